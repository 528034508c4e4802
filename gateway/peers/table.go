package peers

import (
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/moltgate/moltgate/gateway/pipeline"
	"github.com/moltgate/moltgate/handshake"
	"github.com/moltgate/moltgate/identity"
	"github.com/moltgate/moltgate/internal/sockio"
	"github.com/moltgate/moltgate/internal/tlspin"
	"github.com/moltgate/moltgate/internal/wsconn"
	"github.com/moltgate/moltgate/keys"
	"github.com/moltgate/moltgate/wire"
)

// Gate is the data protection gate as calls to peers meet it. The gateway's
// satisfies it with its classification gate, logging what it blocks.
type Gate interface {
	// Outbound checks m, whose checked tree is tree, before it goes to
	// org, in sess if one is open with it (nil otherwise).
	Outbound(ctx context.Context, m *wire.Message, tree wire.Value, org string, sess *handshake.Session) error
	// Inbound checks r, a reply from org that came in sess (nil if in
	// none), sealed in it or not.
	Inbound(ctx context.Context, r *wire.Message, org string, sess *handshake.Session, sealed bool) error
}

// Metrics are told what the calls to peers do. Each may be nil.
type Metrics struct {
	// Breaker is told of each peer's circuit state, at first and on each
	// change.
	Breaker func(org string, st BreakerState)
	// Renewed is told of each renewal of a stream session with org:
	// "background", "waited" or "failed" (see slotPolicy).
	Renewed func(org, way string)
	// Sessions is told how many sessions the store holds after a
	// handshake over HTTP.
	Sessions func(n int)
}

// Config is what a Table needs of the gateway.
type Config struct {
	// Handshake configures the handshakes with peers' gateways, and
	// Sessions keeps the sessions they make. Required.
	Handshake *handshake.Config
	Sessions  *handshake.Store
	// Codec checks outbound messages and decodes replies. Required.
	Codec *wire.Codec
	// Verifier checks the signatures of error replies sent outside a
	// session. Required.
	Verifier *keys.Verifier
	// Gate checks what goes out and what comes back. Required.
	Gate Gate
	// Self is gateway@org, whose key signs what the gateway sends in its
	// own name, read at each call. Required.
	Self identity.Holder
	// PeerKeys returns the org keys accepted for org now and, of them,
	// the newest: during a handover of its org key, the key handed over
	// to (once in effect) as well as the one handed from. A session made
	// under an older key than the newest is renewed, and an error reply
	// outside a session is accepted under any of them. For an org it
	// returns no keys for, and by default, the key of the peer file
	// alone.
	PeerKeys func(org string) (newest keys.Ed25519Public, accepted []keys.Ed25519Public)
	// Transport is how calls go: TransportHTTP, TransportWebSocket or
	// TransportGRPC. Default TransportHTTP.
	Transport func() string
	// EnvelopeLimit is the largest envelope read from a peer. Required.
	EnvelopeLimit func() int
	// HandshakeTimeout bounds a handshake on a stream connection. Default
	// handshake.DefaultTimeout.
	HandshakeTimeout func() time.Duration
	// RequestTimeout is the deadline of a call the gateway makes in its
	// own name without one. Default 30 s.
	RequestTimeout func() time.Duration
	// WriteTimeout is how long a write to a stream connection may wait
	// for the peer to read before the connection is given up; half of it
	// is how long a reply waits for a caller that takes none (see
	// stallLimit). Default wsconn.WriteTimeout.
	WriteTimeout func() time.Duration
	// Base ends renewals in the background when it is done (at shutdown).
	// Default context.Background().
	Base context.Context
	// Metrics are told what happens. Default none.
	Metrics Metrics
	// Trace, if set, is told of each message for a peer before it is
	// checked, and may add to its context (a span, whose trace context
	// the message then carries, signed with the rest); the func it
	// returns is told how the call ended. Default none.
	Trace func(ctx context.Context, m *wire.Message) (context.Context, func(error))
	// Replied, if set, is told of every reply to req that opened, error
	// replies included, before anything else is done with it (the
	// gateway countersigns the receipts replies carry). Default none.
	Replied func(ps *Remote, req, r *wire.Message, sess *handshake.Session)
	// Policy is how calls to the peer of org handle failures: retries
	// and the breaker, read when the peer is imported. Default
	// DefaultPolicy, OSSA's default error handling.
	Policy func(org string) Policy
	// Log receives warnings about peers. Default slog.Default().
	Log *slog.Logger
	// Now is the clock (default time.Now); Rand the source of message ids
	// (required).
	Now  func() time.Time
	Rand io.Reader
}

// Table is the gateway's peers and the means to call them: for each, a
// pooled HTTP client pinned to its TLS certificate, a circuit breaker and
// its stream connections; and the calls waiting for replies.
type Table struct {
	cfg     Config
	log     *slog.Logger
	now     func() time.Time
	pending *pendingCalls

	corkBufs sync.Pool // batches being written to WebSocket connections
	wsQueues sync.Pool // messages queued for WebSocket connections

	mu    sync.RWMutex
	peers map[string]*Remote // by org
}

// New makes an empty table.
func New(cfg Config) *Table {
	if cfg.Transport == nil {
		cfg.Transport = func() string { return TransportHTTP }
	}
	if cfg.HandshakeTimeout == nil {
		cfg.HandshakeTimeout = func() time.Duration { return handshake.DefaultTimeout }
	}
	if cfg.RequestTimeout == nil {
		cfg.RequestTimeout = func() time.Duration { return 30 * time.Second }
	}
	if cfg.WriteTimeout == nil {
		cfg.WriteTimeout = func() time.Duration { return wsconn.WriteTimeout }
	}
	if cfg.Base == nil {
		cfg.Base = context.Background()
	}
	if cfg.Log == nil {
		cfg.Log = slog.Default()
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return &Table{cfg: cfg, log: cfg.Log, now: cfg.Now, pending: newPendingCalls(cfg.WriteTimeout, cfg.Log), peers: map[string]*Remote{}}
}

// Get returns the peer of org, or nil.
func (t *Table) Get(org string) *Remote {
	t.mu.RLock()
	defer t.mu.RUnlock()
	return t.peers[org]
}

// All returns the peers, in the order of their names.
func (t *Table) All() []*Remote {
	t.mu.RLock()
	all := make([]*Remote, 0, len(t.peers))
	for _, ps := range t.peers {
		all = append(all, ps)
	}
	t.mu.RUnlock()
	slices.SortFunc(all, func(a, b *Remote) int { return strings.Compare(a.p.Org, b.p.Org) })
	return all
}

// Add makes what the gateway needs to call p and puts it in the table.
func (t *Table) Add(p *Peer) error {
	ps, err := t.Prepare(p)
	if err != nil {
		return err
	}
	t.Put(ps)
	return nil
}

// Put puts ps in the table, in place of the peer of its org if there is
// one. Calls under way on the one replaced see it (Remote.current) and
// connect no more with what was trusted before; its connections are the
// caller's to close.
func (t *Table) Put(ps *Remote) {
	t.mu.Lock()
	t.peers[ps.p.Org] = ps
	t.mu.Unlock()
}

// Keep removes every peer whose org keep refuses, and returns them: their
// connections are the caller's to close.
func (t *Table) Keep(keep func(org string) bool) []*Remote {
	t.mu.Lock()
	defer t.mu.Unlock()
	var gone []*Remote
	for org, ps := range t.peers {
		if !keep(org) {
			delete(t.peers, org)
			gone = append(gone, ps)
		}
	}
	return gone
}

// Close ends the connections made to every peer, with the calls on them.
func (t *Table) Close() {
	for _, ps := range t.All() {
		ps.Close()
	}
}

// Deliver hands a reply the pipeline opened (m, in sess if it came in
// one) to the call waiting for it. It reports false if none waits.
func (t *Table) Deliver(m *wire.Message, sess *handshake.Session, sealed bool) bool {
	return t.pending.Deliver(m, sess, sealed)
}

// Prepare makes what the gateway needs to call peer p, without putting it
// in the table.
func (t *Table) Prepare(p *Peer) (*Remote, error) {
	ps := &Remote{t: t, p: p, ref: wire.Ref{Agent: pipeline.GatewayAgent, Org: p.Org}}
	renewed, breakerMetric := t.cfg.Metrics.Renewed, t.cfg.Metrics.Breaker
	ps.slots = slotPolicy{due: ps.sessionDue, now: t.now, base: t.cfg.Base, renewed: func(way string, err error) {
		if renewed != nil {
			renewed(p.Org, way)
		}
		if err != nil {
			t.log.Warn("session renewal with peer failed; calls stay on the current session", "peer", p.Org, "err", err.Error())
		}
	}}
	ps.pol = DefaultPolicy()
	if t.cfg.Policy != nil {
		ps.pol = t.cfg.Policy(p.Org)
	}
	ps.br = newBreaker(ps.pol.BreakerFailures, ps.pol.BreakerCooldown, ps.pol.BreakerMaxCooldown, t.now, func(st BreakerState) {
		if breakerMetric != nil {
			breakerMetric(p.Org, st)
		}
		t.log.Warn("peer circuit changed", "peer", p.Org, "state", st.String())
	})
	if breakerMetric != nil {
		breakerMetric(p.Org, BreakerClosed)
	}
	tr := &http.Transport{
		Proxy:                 nil,
		DialContext:           (&sockio.Dialer{Dialer: net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}}).DialContext,
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          256,
		MaxIdleConnsPerHost:   64,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   5 * time.Second,
		ResponseHeaderTimeout: 0, // bounded by each call's context
	}
	if strings.HasPrefix(p.Endpoint, "https://") {
		cfg, err := tlspin.ClientSet(p.TLSPins(t.now()), nil)
		if err != nil {
			return nil, fmt.Errorf("peer %s: %w", p.Org, err)
		}
		// Every handshake, whichever transport makes it, reports a
		// certificate other than the pin to ps.
		verify := cfg.VerifyPeerCertificate
		cfg.VerifyPeerCertificate = func(raw [][]byte, chains [][]*x509.Certificate) error {
			err := verify(raw, chains)
			var me *tlspin.MismatchError
			if errors.As(err, &me) {
				ps.pinMismatch(me)
			}
			return err
		}
		ps.tls = cfg
		// A copy: the HTTP transport adds "h2" to the config's NextProtos
		// on first use, and a WebSocket dial offering h2 then fails.
		tr.TLSClientConfig = cfg.Clone()
	}
	ps.client = &http.Client{Transport: tr}
	return ps, nil
}

// Waiting returns the ids of the calls waiting for replies.
func (t *Table) Waiting() []string {
	t.pending.mu.Lock()
	defer t.pending.mu.Unlock()
	ids := make([]string, 0, len(t.pending.m))
	for id := range t.pending.m {
		ids = append(ids, id)
	}
	return ids
}
