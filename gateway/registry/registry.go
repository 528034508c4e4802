// Package registry is the gateway's directory service: its registry
// (directory.Registry over the gateway's store), the answers to the
// directory's operations, registry sync with peers, the liveness monitor,
// and the client that sends a registration to a registry over HTTP(S).
// docs/protocol.md ("Directory") states the rules.
//
// It knows no transport beyond the HTTP client it is given: what it asks of
// peers goes through the Peers interface, what it answers goes back to the
// pipeline as a message that the caller seals.
package registry

import (
	"cmp"
	"context"
	"crypto/rand"
	"io"
	"log/slog"
	"net"
	"slices"
	"sync"
	"time"

	"github.com/moltgate/moltgate/crypto"
	"github.com/moltgate/moltgate/directory"
	"github.com/moltgate/moltgate/gateway/pipeline"
	"github.com/moltgate/moltgate/identity"
	"github.com/moltgate/moltgate/keys"
	"github.com/moltgate/moltgate/localbridge"
	"github.com/moltgate/moltgate/pii"
	"github.com/moltgate/moltgate/wire"
)

// Agent is the agent name the registry answers as: registry@org.
const Agent = pipeline.RegistryAgent

// Registry sync rides the peer channel as a query to registry@peer:
// {"domain":"registry","intent":"sync","params":{…directory.SyncRequest…}}.
const (
	syncDomain = "registry"
	syncIntent = "sync"
)

// Tuning of the directory's background work.
const (
	// syncOverlap is how far before the last change seen a sync asks
	// again, so a write committed late on the peer is not missed.
	syncOverlap = time.Minute
	// syncPageBytes bounds the data of one sync page, well under the
	// message limit.
	syncPageBytes = 256 << 10
	// monitorEvery is how often local agents' health is recorded and
	// peers' agents held here are pinged.
	monitorEvery = 5 * time.Minute
	// monitorPerPeer bounds the agents of one peer pinged per round.
	monitorPerPeer = 100
)

// Peer is a peer organisation as the registry sees it: its name and the
// key its registry signs attestations with.
type Peer struct {
	Org string
	Key keys.Ed25519Public
}

// Peers is the gateway's peer table, as sync and the liveness monitor use
// it.
type Peers interface {
	// Peers lists the peers, in any order.
	Peers() []Peer
	// CallAsGateway sends m to peer org in the gateway's own name, and
	// hands each message that comes back to onMsg until it returns true
	// or an error.
	CallAsGateway(ctx context.Context, org string, m *wire.Message, onMsg func(*wire.Message) (bool, error)) error
}

// Locals are this gateway's own agents, as the local bridge knows them.
type Locals interface {
	// Agents lists every local agent the bridge knows.
	Agents() []localbridge.AgentInfo
	// Pong is a local agent's answer to a ping from its heartbeats, and
	// false if there is no such agent.
	Pong(agent, nonce string) (*wire.PongPayload, bool)
}

// Limiter takes a token for a key, or says how long until one is free.
type Limiter interface {
	Allow(key string) (ok bool, retryAfter time.Duration)
}

// Counter counts an event (a prometheus.Counter is one).
type Counter interface{ Inc() }

// Config is what New needs.
type Config struct {
	// Store holds the directory. Required.
	Store directory.Store
	// Org is this gateway's organisation. Required.
	Org string
	// Signer is gateway@org: its key signs the registry's attestations and
	// the registrations the gateway makes for its local agents. Required.
	Signer identity.Holder
	// Trust holds the organisations' keys that identity certificates are
	// checked against. Required.
	Trust *identity.TrustStore
	// MinTTL and MaxTTL bound a registration's lifetime: see
	// directory.RegistryConfig. Default directory's.
	MinTTL, MaxTTL time.Duration
	// Codec checks registrations. Default wire.NewCodec(wire.Limits{}).
	Codec *wire.Codec
	// Scanner finds personal data in public profiles. Default none:
	// directory.RegistryConfig says what that skips.
	Scanner *pii.Scanner
	// Endpoint is where peers send this gateway's agents their messages:
	// the endpoint their entries are published with. Required to publish.
	Endpoint string
	// MessageBytes is the gateway's message limit; a sync page holds at
	// most half of it. Default 1 MiB.
	MessageBytes int
	// SyncInterval is how often every peer's registry is pulled; zero or
	// negative turns scheduled sync (and the catch-up sync of a new peer)
	// off. It is read at each use. Default off.
	SyncInterval func() time.Duration
	// Capabilities are the gateway's handshake capabilities, which a ping
	// of the registry reports active. Default none.
	Capabilities []string
	// Load reports how busy the gateway is (calls in flight over the
	// limit) and how many calls it holds, for a ping of the registry.
	// Default idle.
	Load func() (load float64, queued int64)
	// Peers are the gateway's peers. Default none.
	Peers Peers
	// Locals are the gateway's local agents. Default none.
	Locals Locals
	// Discovery rate-limits discovery per caller. Default unlimited.
	Discovery Limiter
	// Limited counts the discovery queries the limit refused. Default
	// uncounted.
	Limited Counter
	// Log receives the registry's log. Default slog.Default().
	Log *slog.Logger
	// Now is the clock. Default time.Now.
	Now func() time.Time
	// Rand is the source of message ids. Default crypto/rand.
	Rand io.Reader
}

// Service is the gateway's directory state: its registry, and where sync
// with each peer has reached.
type Service struct {
	cfg Config
	reg *directory.Registry

	mu      sync.Mutex
	since   map[string]time.Time    // per peer org: the latest change synced, on the peer's clock
	pending map[string]*pendingSync // per peer org: a sync asked for by WantSync, not yet done
}

// New builds the directory service over cfg.Store.
func New(cfg Config) (*Service, error) {
	if cfg.Codec == nil {
		cfg.Codec = wire.NewCodec(wire.Limits{})
	}
	if cfg.MessageBytes <= 0 {
		cfg.MessageBytes = 1 << 20
	}
	if cfg.SyncInterval == nil {
		cfg.SyncInterval = func() time.Duration { return 0 }
	}
	if cfg.Load == nil {
		cfg.Load = func() (float64, int64) { return 0, 0 }
	}
	if cfg.Peers == nil {
		cfg.Peers = noPeers{}
	}
	if cfg.Locals == nil {
		cfg.Locals = noLocals{}
	}
	if cfg.Log == nil {
		cfg.Log = slog.Default()
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Rand == nil {
		cfg.Rand = rand.Reader
	}
	if cfg.Signer == nil {
		return nil, wire.Errorf(wire.ErrInternal, "signer", "the registry needs the gateway's key")
	}
	reg, err := directory.NewRegistry(directory.RegistryConfig{
		Store: cfg.Store, Org: cfg.Org, Key: cfg.Signer.Current().Signing, Trust: cfg.Trust,
		MinTTL: cfg.MinTTL, MaxTTL: cfg.MaxTTL,
		Codec: cfg.Codec, Scanner: cfg.Scanner, Logger: cfg.Log, Now: cfg.Now,
	})
	if err != nil {
		return nil, err
	}
	return &Service{cfg: cfg, reg: reg, since: map[string]time.Time{}, pending: map[string]*pendingSync{}}, nil
}

type noPeers struct{}

func (noPeers) Peers() []Peer { return nil }
func (noPeers) CallAsGateway(context.Context, string, *wire.Message, func(*wire.Message) (bool, error)) error {
	return wire.Errorf(wire.ErrPeerUnavailable, "", "this gateway has no peers")
}

type noLocals struct{}

func (noLocals) Agents() []localbridge.AgentInfo               { return nil }
func (noLocals) Pong(string, string) (*wire.PongPayload, bool) { return nil, false }

// Registry returns the registry the service answers from.
func (s *Service) Registry() *directory.Registry { return s.reg }

// CheckContent applies the registry's content checks to a register
// message: see directory.Registry.CheckContent.
func (s *Service) CheckContent(m *wire.Message) error { return s.reg.CheckContent(m) }

// LocalAgent is a local agent's directory entry as the gateway publishes
// it.
type LocalAgent struct {
	ID string
	// Capabilities are the configured ones; the tools the agent has
	// registered with the local bridge are added to them.
	Capabilities []string
	Visibility   string // public when empty
	Key          keys.Ed25519Public
	EncKey       keys.X25519Public
	// Cert is the agent's identity certificate, issued by the org key.
	Cert wire.Value
}

// Publish keeps a local agent's directory entry in step with what the
// local bridge knows: its registered tools (as capabilities) and the
// configured ones, and its liveness. The registration is a register
// message signed by the org key with the agent's identity certificate, and
// goes through the same checks as any other. An agent with no capability
// is not listed; its liveness is still recorded.
func (s *Service) Publish(ctx context.Context, a LocalAgent, info localbridge.AgentInfo) {
	caps := append(slices.Clone(a.Capabilities), info.Capabilities()...)
	slices.Sort(caps)
	caps = slices.Compact(caps)
	vis := a.Visibility
	if vis == "" {
		vis = string(directory.Public)
	}
	if len(caps) > 0 {
		profile := &wire.Profile{
			AgentID: info.ID, Name: cmp.Or(info.Name, info.ID),
			Endpoint:  &wire.Endpoint{URL: s.cfg.Endpoint, Transport: "https"},
			PublicKey: a.Key, EncryptionKey: a.EncKey,
			Capabilities: caps, Visibility: vis,
		}
		p := &wire.RegisterPayload{Action: "create", Profile: profile, TTL: s.cfg.MaxTTL.Milliseconds(), IdentityCert: a.Cert}
		if _, err := s.RegisterAsOrg(ctx, p); err != nil {
			s.cfg.Log.Error("cannot publish agent", "agent", info.ID, "err", err.Error())
		}
	}
	s.RecordLocal(ctx, info)
}

// Withdraw deletes a local agent's directory entry; one that is not there
// is no error.
func (s *Service) Withdraw(ctx context.Context, id string) {
	p := &wire.RegisterPayload{Action: "delete", Reason: "removed", Profile: &wire.Profile{AgentID: id}}
	if _, err := s.RegisterAsOrg(ctx, p); err != nil && pipeline.Code(err) != wire.ErrAgentNotFound {
		s.cfg.Log.Warn("cannot deregister agent", "agent", id, "err", err.Error())
	}
}

// RegisterAsOrg signs p with the org key and registers it here.
func (s *Service) RegisterAsOrg(ctx context.Context, p *wire.RegisterPayload) (directory.Receipt, error) {
	signer := s.cfg.Signer.Current()
	m := &wire.Message{V: wire.Version, ID: pipeline.NewMessageID(s.cfg.Rand), TS: s.cfg.Now().UnixMilli(), Op: wire.OpRegister,
		From: signer.Sender(), To: wire.Ref{Agent: Agent, Org: s.cfg.Org}, Cls: wire.Pub, Payload: p}
	b, err := crypto.Sign(s.cfg.Codec, m, signer.Signing)
	if err != nil {
		return directory.Receipt{}, err
	}
	d, err := s.cfg.Codec.Decode(b)
	if err != nil {
		return directory.Receipt{}, err
	}
	return s.reg.Register(ctx, d)
}

// RecordLocal records a local agent's health as the local bridge sees it:
// alive, degraded or unhealthy as it reports itself while connected,
// offline when it is not.
func (s *Service) RecordLocal(ctx context.Context, info localbridge.AgentInfo) {
	status := directory.StatusOffline
	switch {
	case !info.Connected:
	case !info.Healthy || info.Status == localbridge.StatusUnhealthy:
		status = directory.StatusUnhealthy
	case info.Status == localbridge.StatusDegraded:
		status = directory.StatusDegraded
	default:
		status = directory.StatusAlive
	}
	hb := directory.Heartbeat{At: s.cfg.Now(), Status: status, Load: min(max(info.Load, 0), 1), QueueDepth: info.Queued}
	if info.Healthy {
		hb.CapabilitiesActive = info.Capabilities()
	}
	if err := s.cfg.Store.RecordLiveness(ctx, directory.ID{Agent: info.ID, Org: s.cfg.Org}, hb); err != nil {
		s.cfg.Log.Warn("cannot record liveness", "agent", info.ID, "err", err.Error())
	}
}

// caller is the key discovery is rate-limited by: the authenticated
// organisation, or else the address the request came from.
func caller(v directory.Viewer, remote string) string {
	if v.Org != "" {
		return "org:" + v.Org
	}
	if host, _, err := net.SplitHostPort(remote); err == nil {
		remote = host
	}
	return "addr:" + remote
}

// allowDiscovery takes a token of caller's discovery budget.
func (s *Service) allowDiscovery(caller string) error {
	if s.cfg.Discovery == nil {
		return nil
	}
	if ok, wait := s.cfg.Discovery.Allow(caller); !ok {
		if s.cfg.Limited != nil {
			s.cfg.Limited.Inc()
		}
		return pipeline.WithRetry(wire.Errorf(wire.ErrRateLimitDiscovery, "", "too many discovery queries"), wait)
	}
	return nil
}

// Answer answers the directory's operations that came through the
// pipeline: register, discover, ping of the registry itself, and registry
// sync (a query to registry@org). v is who the message is from, as far as
// that is authenticated: an entry restricted to some organisations is never
// shown to a sender that merely claims one of them. The answer is a reply
// from registry@org, to be signed with the org key and sealed the way the
// request came; an error is the refusal to send instead.
func (s *Service) Answer(ctx context.Context, in *pipeline.Inbound, v directory.Viewer) (*wire.Message, error) {
	m := in.M
	var (
		data wire.Value
		err  error
	)
	switch p := m.Payload.(type) {
	case *wire.DiscoverPayload:
		if err = s.allowDiscovery(caller(v, in.Origin.Remote)); err != nil {
			break
		}
		var ans *directory.Answer
		if ans, err = s.reg.Discover(ctx, p, v, false); err == nil {
			data = ans.Value()
		}
	case *wire.RegisterPayload:
		var rc directory.Receipt
		if rc, err = s.reg.Register(ctx, m); err == nil {
			data = rc.Data()
			s.cfg.Log.Info("registration", "action", rc.Action, "agent", rc.ID.String(), "from", m.From.Ref().String())
		}
	case *wire.PingPayload:
		load, queued := s.cfg.Load()
		return s.Reply(m.Reply(wire.OpPong, &wire.PongPayload{Nonce: p.Nonce, Status: "alive", Load: load,
			QueueDepth: queued, CapabilitiesActive: s.cfg.Capabilities})), nil
	case *wire.QueryPayload:
		if p.Domain != syncDomain || p.Intent != syncIntent {
			err = wire.Errorf(wire.ErrInvalidParam, "p.domain", "the registry answers queries of domain registry, intent sync only")
			break
		}
		data, err = s.exportSync(ctx, in, p)
	default:
		err = wire.Errorf(wire.ErrInvalidParam, "op", "the registry does not take %s messages", m.Op)
	}
	if err != nil {
		return nil, err
	}
	return s.Reply(m.Reply(wire.OpRespond, &wire.RespondPayload{Status: "success", Data: data})), nil
}

// Reply completes a reply as registry@org sends it: version, a fresh id,
// the time, and the sender.
func (s *Service) Reply(r *wire.Message) *wire.Message {
	r.V, r.ID, r.TS, r.From = wire.Version, pipeline.NewMessageID(s.cfg.Rand), s.cfg.Now().UnixMilli(), s.cfg.Signer.Current().Sender()
	r.From.Agent = Agent
	return r
}

// exportSync answers registry.sync for a peer registry: only in a session
// with that peer, whose organisation is then known for certain.
func (s *Service) exportSync(ctx context.Context, in *pipeline.Inbound, p *wire.QueryPayload) (wire.Value, error) {
	if !in.FromPeer || in.Sess == nil {
		return wire.Value{}, wire.Errorf(wire.ErrAuthFailed, "", "registry sync is for peer registries, in a session")
	}
	q, err := directory.ParseSyncRequest(p.Params)
	if err != nil {
		return wire.Value{}, err
	}
	return s.reg.Export(ctx, q, in.M.From.Org, min(syncPageBytes, s.cfg.MessageBytes/2))
}

// DiscoverLocal answers directory.discover for a local caller: this
// gateway's whole directory, private entries included; with hidden,
// unlisted entries and agents last seen offline too (the gateway's
// inventory, moltgate agents).
func (s *Service) DiscoverLocal(ctx context.Context, p *wire.DiscoverPayload, hidden bool) (wire.Value, error) {
	ans, err := s.reg.Discover(ctx, p, directory.Viewer{Local: true}, hidden)
	if err != nil {
		return wire.Value{}, err
	}
	return ans.Value(), nil
}

// VerifyAttestations is VerifyAttestations on the service's clock.
func (s *Service) VerifyAttestations(data wire.Value, org string, key keys.Ed25519Public) error {
	return VerifyAttestations(data, org, key, s.cfg.Now())
}

// VerifyAttestations checks the registry's signature on every result of
// a peer's discovery answer, with key, the key held for org: a result that
// was forged or altered on the way, or has expired, is refused with the
// whole answer.
func VerifyAttestations(data wire.Value, org string, key keys.Ed25519Public, now time.Time) error {
	res := data.Get("results")
	if res.Kind() != wire.Array {
		return wire.Errorf(wire.ErrSchema, "results", "the peer's discovery answer has no results")
	}
	for i, r := range res.Elems() {
		if _, err := directory.VerifyAttestation(r.Value, org, key, now); err != nil {
			we := pipeline.AsWire(err)
			return wire.Errorf(we.Code, wire.IndexPath("results", i)+"."+we.Field, "%s", we.Message)
		}
	}
	return nil
}
