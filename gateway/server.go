package gateway

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/moltgate/moltgate/classify"
	"github.com/moltgate/moltgate/directory"
	"github.com/moltgate/moltgate/events"
	"github.com/moltgate/moltgate/gateway/face/frames"
	"github.com/moltgate/moltgate/gateway/feed"
	"github.com/moltgate/moltgate/gateway/keyswitch"
	"github.com/moltgate/moltgate/gateway/limit"
	"github.com/moltgate/moltgate/gateway/local"
	"github.com/moltgate/moltgate/gateway/orgkey"
	"github.com/moltgate/moltgate/gateway/peers"
	"github.com/moltgate/moltgate/gateway/pipeline"
	"github.com/moltgate/moltgate/gateway/registry"
	"github.com/moltgate/moltgate/gateway/revoke"
	"github.com/moltgate/moltgate/gateway/roster"
	"github.com/moltgate/moltgate/gateway/rotation"
	"github.com/moltgate/moltgate/gateway/trail"
	"github.com/moltgate/moltgate/handshake"
	"github.com/moltgate/moltgate/handshake/replay"
	"github.com/moltgate/moltgate/handshake/replay/journal"
	"github.com/moltgate/moltgate/identity"
	"github.com/moltgate/moltgate/internal/outage"
	"github.com/moltgate/moltgate/internal/pgshared"
	"github.com/moltgate/moltgate/keys"
	"github.com/moltgate/moltgate/localbridge"
	"github.com/moltgate/moltgate/pii"
	"github.com/moltgate/moltgate/pii/consent"
	"github.com/moltgate/moltgate/tracing"
	"github.com/moltgate/moltgate/wire"
)

// ErrServerClosed is returned by the Serve methods after Shutdown or Close.
var ErrServerClosed = errors.New("gateway: server closed")

// Options are what Open needs besides the gateway directory's contents.
type Options struct {
	// Dir is the gateway directory. Required.
	Dir Dir
	// Passphrase unlocks encrypted key files. Default none.
	Passphrase []byte
	// Logger receives the gateway's log. Default: JSON lines on standard
	// error at the configured level. Either way it passes through the
	// classification redaction layer, so no key, token, secret-class value
	// or unmasked personal datum reaches it.
	Logger *slog.Logger
	// Now is the clock. Default time.Now.
	Now func() time.Time
	// Rand is the source of ids, nonces and keys. Default crypto/rand.
	Rand io.Reader
	// Environ is the environment launched agents inherit besides their
	// three OPENSENTIENCE_* variables. Default PATH, HOME, LANG and TZ.
	Environ func() []string
}

// Server is one organisation's gateway. Make it with Open, run it with Run
// (or the Serve methods), and stop it with Shutdown.
type Server struct {
	cfg   *Config
	dir   Dir
	log   *slog.Logger
	now   func() time.Time
	rand  io.Reader
	codec *wire.Codec
	held  heldLog // what is logged before Serve

	cfgMu   sync.Mutex
	cfgSeen string // moltgate.toml as last read (or why it could not be)
	// verifier checks message signatures, keeping the keys of peers and
	// their agents expanded; shared by every face.
	verifier *keys.Verifier

	// keys are gateway@org (the org key and the gateway's X25519 key),
	// its identity certificate, presented in every handshake, and the
	// faces' TLS certificate: the key switch issues the certificate again
	// before it expires, and takes up a rotation that replaces the org
	// key and the TLS certificate while the gateway serves.
	keys      *orgkey.Source
	keySwitch *keyswitch.Switch // the key files, for a rotation while serving
	trust     *identity.TrustStore
	pins      *keys.PinStore

	// reloadMu serialises ReloadPeers.
	reloadMu sync.Mutex
	// peers are the imported peers and the calls to them.
	peers *peers.Table
	// roster is the local agents: their keys and certificates, reloads,
	// and their entries in the directory.
	roster     *roster.Roster
	events     *events.Stream
	feed       *feed.Feed // what the rooms report to the event stream
	agentsSeen string     // filestamp.Dir of the agents' records last read; the watch loop's own

	replay   *replay.Window
	hsCfg    *handshake.Config
	sessions *handshake.Store
	acceptor *handshake.Acceptor

	scanner     *pii.Scanner
	policy      *classify.Policy
	gate        *classify.Gate
	blocks      *classify.Counts
	revocations *consent.FileStore
	consents    *consent.Verifier
	// holds are the no_forward consents local agents received data under.
	holds *consentHolds

	store    directory.Store
	outages  *outage.Watch // the stores failing while serving
	registry *registry.Service
	// revoked is the revocation lists: this organisation's own, and its
	// peers' that it enforces.
	revoked *revoke.Lists
	// rotation is the handovers: this organisation's own, which it
	// serves and pushes, and its peers', which move their pins on.
	rotation *rotation.Room

	core      *localbridge.Core
	approvals *localbridge.Approvals
	local     *local.Room     // what the gateway answers for its own agents
	grants    classify.Grants // what replies may carry back under their requests' consents
	rpc       *localbridge.RPCServer

	discoverLimit rateLimiter
	shared        *pgshared.Shared // state shared with other replicas; nil with SQLite
	db            *sql.DB          // the PostgreSQL handle, if any
	replayJournal *journal.Journal // the replay window on disk; nil with PostgreSQL
	faces         *faces           // what builds the faces at Serve
	flight        *limit.Ceiling
	metrics       *metrics
	// pipe is the pipeline every face hands what it reads to.
	pipe *pipeline.Pipeline
	// frames are the stream faces' connections and the sessions made on
	// them.
	frames *frames.Conns
	// writeTimeout is how long a write to a WebSocket or a gRPC stream,
	// either way, may wait for the other end to read before the
	// connection or stream is given up: wsconn.WriteTimeout.
	writeTimeout time.Duration

	async   *asyncReplies
	tracing *tracing.Tracing // nil with [tracing] exporter none
	audit   *trail.Trail
	spans   *trail.Spans // of the calls to peers and to local agents
	// receipts, with [audit] receipts on: what the receipt exchange
	// keeps between a reply and its countersignature.
	receipts *trail.Receipts

	// draining is set when Shutdown begins: /readyz answers 503 from then
	// on, while closing, which refuses new work, waits for the drain delay.
	draining atomic.Bool
	closing  atomic.Bool
	// readyAsked is when /readyz was last asked (s.now, in Unix
	// nanoseconds; 0 never): the drain delay is for whoever polls it.
	readyAsked atomic.Int64
	// skipDrain, closed by SkipDrainDelay, ends the drain delay.
	skipDrain     chan struct{}
	skipDrainOnce sync.Once
	// quitting ends when the faces close (quit), after the drain delay:
	// stream faces stop reading.
	quitting context.Context
	quit     context.CancelFunc
	bg       sync.WaitGroup // background loops
	stopBG   context.CancelFunc
	bgCtx    context.Context

	lnMu    sync.Mutex
	servers []shutdowner
}

type shutdowner interface{ Shutdown(context.Context) error }

// rateLimiter takes a token for a key, or says how long until one is free.
type rateLimiter interface {
	Allow(key string) (ok bool, retryAfter time.Duration)
}

// The names the gateway exports of its own: its release, and the agent
// names of a gateway and of its registry, which the pipeline routes by.
const (
	// Version is the gateway's release.
	Version = "0.1.0"
	// GatewayAgent is the agent name of the gateway itself within its org.
	GatewayAgent = pipeline.GatewayAgent
	// RegistryAgent is the agent name the directory answers to.
	RegistryAgent = pipeline.RegistryAgent
)

// Config returns the gateway's configuration.
func (s *Server) Config() *Config { return s.cfg }

// Org returns the gateway's organisation.
func (s *Server) Org() string { return s.cfg.Org }

// self is gateway@org as it signs now.
func (s *Server) self() *identity.Agent { return s.keys.Current() }

// orgPins adapts the pin store to the handshake: peers are pinned by org
// ("globex"), and a peer gateway presents its org key. A key that differs
// from the pin is told to mismatch (if set): the peer may have rotated
// while its push did not reach this gateway (it restarted with the new
// key before pushing, or this one was down), and its statements are
// fetched at once rather than at the next pull, a minute later.
type orgPins struct {
	p        *keys.PinStore
	mismatch func(org string)
}

func (o orgPins) Check(name string, key keys.Ed25519Public) error {
	ref, err := wire.ParseRef(name)
	if err != nil || ref.Agent != GatewayAgent {
		return fmt.Errorf("check pin %s: %w", name, keys.ErrNotPinned)
	}
	err = o.p.Check(ref.Org, key)
	if err != nil && !errors.Is(err, keys.ErrNotPinned) && o.mismatch != nil {
		o.mismatch(ref.Org)
	}
	return err
}
