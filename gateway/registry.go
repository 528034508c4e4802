package gateway

import (
	"cmp"
	"context"
	"net"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/moltgate/moltgate/directory"
	"github.com/moltgate/moltgate/gateway/pipeline"
	"github.com/moltgate/moltgate/keys"
	"github.com/moltgate/moltgate/localbridge"
	"github.com/moltgate/moltgate/wire"
)

// The gateway's directory service: its registry (directory.Registry over
// the gateway's store), registry sync with its peers and the liveness
// monitor. docs/protocol.md ("Directory") states the rules.

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

// registryService is the gateway's directory state.
type registryService struct {
	reg *directory.Registry

	mu      sync.Mutex
	since   map[string]time.Time    // per peer org: the latest change synced, on the peer's clock
	pending map[string]*pendingSync // per peer org: a sync asked for by wantSync, not yet done
}

func (s *Server) newRegistry() (*registryService, error) {
	reg, err := directory.NewRegistry(directory.RegistryConfig{
		Store: s.store, Org: s.cfg.Org, Key: s.org.Signing, Trust: s.trust,
		MinTTL: s.cfg.Directory.MinTTL.D(), MaxTTL: s.cfg.Directory.MaxTTL.D(),
		Codec: s.codec, Scanner: s.scanner, Logger: s.log, Now: s.now,
	})
	if err != nil {
		return nil, err
	}
	return &registryService{reg: reg, since: map[string]time.Time{}, pending: map[string]*pendingSync{}}, nil
}

// Registry returns the gateway's registry.
func (s *Server) Registry() *directory.Registry { return s.registry.reg }

// publishAgent keeps a local agent's directory entry in step with what the
// local bridge knows: its registered tools (as capabilities) and the
// configured ones, and its liveness. The registration is a register
// message signed by the org key with the agent's identity certificate, and
// goes through the same checks as any other.
//
// A removed agent's entry is withdrawn by ReloadAgents, which holds
// publishMu while it does, so a report that comes late finds no agent and
// writes nothing.
func (s *Server) publishAgent(info localbridge.AgentInfo) {
	if info.Status == localbridge.StatusRemoved {
		return
	}
	s.publishMu.Lock()
	defer s.publishMu.Unlock()
	st := s.agent(info.ID)
	if st == nil {
		return
	}
	// Not bgCtx: the local bridge reports agents from inside Open, before
	// the background context exists.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	caps := append(slices.Clone(st.spec.Capabilities), info.Capabilities()...)
	slices.Sort(caps)
	caps = slices.Compact(caps)
	vis := st.spec.Visibility
	if vis == "" {
		vis = string(directory.Public)
	}
	if len(caps) > 0 {
		profile := &wire.Profile{
			AgentID: info.ID, Name: cmp.Or(info.Name, info.ID),
			Endpoint:  &wire.Endpoint{URL: s.messageURL(), Transport: "https"},
			PublicKey: st.id.Signing.Public(), EncryptionKey: st.id.Encryption.Public(),
			Capabilities: caps, Visibility: vis,
		}
		p := &wire.RegisterPayload{Action: "create", Profile: profile, TTL: s.cfg.Directory.MaxTTL.D().Milliseconds(), IdentityCert: st.cert.Value()}
		if _, err := s.registerAsOrg(ctx, p); err != nil {
			s.log.Error("cannot publish agent", "agent", info.ID, "err", err.Error())
		}
	}
	s.recordLocal(ctx, info)
}

// withdrawAgent deletes a local agent's directory entry. The caller holds
// publishMu.
func (s *Server) withdrawAgent(ctx context.Context, id string) {
	p := &wire.RegisterPayload{Action: "delete", Reason: "removed", Profile: &wire.Profile{AgentID: id}}
	if _, err := s.registerAsOrg(ctx, p); err != nil && pipeline.Code(err) != wire.ErrAgentNotFound {
		s.log.Warn("cannot deregister agent", "agent", id, "err", err.Error())
	}
}

// messageURL is where peers send this gateway's agents their messages.
func (s *Server) messageURL() string { return s.cfg.Listen.Advertise + "/moltspeak/v0.1/message" }

// registerAsOrg signs p with the org key and registers it here.
func (s *Server) registerAsOrg(ctx context.Context, p *wire.RegisterPayload) (directory.Receipt, error) {
	m := &wire.Message{V: wire.Version, ID: pipeline.NewMessageID(s.rand), TS: s.now().UnixMilli(), Op: wire.OpRegister,
		From: s.org.Sender(), To: wire.Ref{Agent: RegistryAgent, Org: s.cfg.Org}, Cls: wire.Pub, Payload: p}
	b, err := signMessage(s.codec, m, s.org.Signing)
	if err != nil {
		return directory.Receipt{}, err
	}
	d, err := s.codec.Decode(b)
	if err != nil {
		return directory.Receipt{}, err
	}
	return s.registry.reg.Register(ctx, d)
}

// recordLocal records a local agent's health as the local bridge sees it:
// alive, degraded or unhealthy as it reports itself while connected,
// offline when it is not.
func (s *Server) recordLocal(ctx context.Context, info localbridge.AgentInfo) {
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
	hb := directory.Heartbeat{At: s.now(), Status: status, Load: min(max(info.Load, 0), 1), QueueDepth: info.Queued}
	if info.Healthy {
		hb.CapabilitiesActive = info.Capabilities()
	}
	if err := s.store.RecordLiveness(ctx, directory.ID{Agent: info.ID, Org: s.cfg.Org}, hb); err != nil {
		s.log.Warn("cannot record liveness", "agent", info.ID, "err", err.Error())
	}
}

// viewer is who a registry request comes from: its organisation only when
// that is authenticated (the message came in a session with it, or is
// signed by its org key, or carries an identity certificate from it), so
// an entry restricted to some organisations is never shown to a sender that
// merely claims one of them.
func (s *Server) viewer(in *pipeline.Inbound) directory.Viewer {
	if s.pipe.OrgShown(in) {
		return directory.Viewer{Org: in.M.From.Org}
	}
	return directory.Viewer{}
}

// caller is the key discovery is rate-limited by: the authenticated
// organisation, or else the address the request came from.
func (s *Server) caller(v directory.Viewer, remote string) string {
	if v.Org != "" {
		return "org:" + v.Org
	}
	if host, _, err := net.SplitHostPort(remote); err == nil {
		remote = host
	}
	return "addr:" + remote
}

// allowDiscovery takes a token of caller's discovery budget.
func (s *Server) allowDiscovery(caller string) error {
	if ok, wait := s.discoverLimit.Allow(caller); !ok {
		s.metrics.rateLimit.WithLabelValues("discovery").Inc()
		return pipeline.WithRetry(wire.Errorf(wire.ErrRateLimitDiscovery, "", "too many discovery queries"), wait)
	}
	return nil
}

// registryOp answers the directory's operations: register, discover, ping
// of the registry itself, and registry sync (a query to registry@org).
func (s *Server) registryOp(ctx context.Context, in *pipeline.Inbound) pipeline.Answer {
	m := in.M
	reg := s.registry.reg
	var (
		data wire.Value
		err  error
	)
	switch p := m.Payload.(type) {
	case *wire.DiscoverPayload:
		v := s.viewer(in)
		if err = s.allowDiscovery(s.caller(v, in.Origin.Remote)); err != nil {
			break
		}
		var ans *directory.Answer
		if ans, err = reg.Discover(ctx, p, v, false); err == nil {
			data = ans.Value()
		}
	case *wire.RegisterPayload:
		var rc directory.Receipt
		if rc, err = reg.Register(ctx, m); err == nil {
			data = rc.Data()
			s.log.Info("registration", "action", rc.Action, "agent", rc.ID.String(), "from", m.From.Ref().String())
		}
	case *wire.PingPayload:
		r := m.Reply(wire.OpPong, &wire.PongPayload{Nonce: p.Nonce, Status: "alive", Load: s.load(),
			QueueDepth: int64(s.flight.Count()), CapabilitiesActive: s.hsCfg.Capabilities})
		return s.registryReply(in, r)
	case *wire.SecurityAlertPayload:
		var apply func()
		if data, apply, err = s.securityAlert(ctx, in, p); err == nil {
			ans := s.registryReply(in, m.Reply(wire.OpRespond, &wire.RespondPayload{Status: "success", Data: data}))
			apply()
			return ans
		}
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
		return s.pipe.Refuse(m, in.Sess, err)
	}
	return s.registryReply(in, m.Reply(wire.OpRespond, &wire.RespondPayload{Status: "success", Data: data}))
}

// exportSync answers registry.sync for a peer registry: only in a session
// with that peer, whose organisation is then known for certain.
func (s *Server) exportSync(ctx context.Context, in *pipeline.Inbound, p *wire.QueryPayload) (wire.Value, error) {
	if !in.FromPeer || in.Sess == nil {
		return wire.Value{}, wire.Errorf(wire.ErrAuthFailed, "", "registry sync is for peer registries, in a session")
	}
	q, err := directory.ParseSyncRequest(p.Params)
	if err != nil {
		return wire.Value{}, err
	}
	return s.registry.reg.Export(ctx, q, in.M.From.Org, min(syncPageBytes, s.cfg.Limits.MessageBytes/2))
}

func (s *Server) registryReply(in *pipeline.Inbound, r *wire.Message) pipeline.Answer {
	r.V, r.ID, r.TS, r.From = wire.Version, pipeline.NewMessageID(s.rand), s.now().UnixMilli(), s.org.Sender()
	r.From.Agent = RegistryAgent
	// The registry speaks with the org key.
	body, err := s.reply(in, r, s.org.Signing)
	if err != nil {
		return s.pipe.Refuse(in.M, in.Sess, err)
	}
	return pipeline.Answer{Body: body, Status: http.StatusOK}
}

func (s *Server) load() float64 {
	return float64(s.flight.Count()) / float64(s.cfg.Limits.MaxInFlight)
}

// discoverLocal answers directory.discover for a local caller: this
// gateway's whole directory, private entries included; with
// "include_hidden": true in the query, unlisted entries and agents last
// seen offline too (the gateway's inventory, moltgate agents).
func (s *Server) discoverLocal(ctx context.Context, p *wire.DiscoverPayload, query wire.Value) (wire.Value, error) {
	hidden, _ := query.Get("include_hidden").Bool()
	ans, err := s.registry.reg.Discover(ctx, p, directory.Viewer{Local: true}, hidden)
	if err != nil {
		return wire.Value{}, err
	}
	return ans.Value(), nil
}

// verifyAttestations checks the registry's signature on every discovery
// result, with the key pinned for the peer: a result that was forged or
// altered on the way, or has expired, is refused with the whole answer.
func (s *Server) verifyAttestations(data wire.Value, p *Peer) error {
	res := data.Get("results")
	if res.Kind() != wire.Array {
		return wire.Errorf(wire.ErrSchema, "results", "the peer's discovery answer has no results")
	}
	now := s.now()
	for i, r := range res.Elems() {
		if _, err := directory.VerifyAttestation(r.Value, p.Org, p.OrgKey, now); err != nil {
			we := pipeline.AsWire(err)
			return wire.Errorf(we.Code, wire.IndexPath("results", i)+"."+we.Field, "%s", we.Message)
		}
	}
	return nil
}

// VerifyAttestation checks one discovery result against the registry key
// of org: see directory.VerifyAttestation.
func VerifyAttestation(result wire.Value, org string, key keys.Ed25519Public) error {
	_, err := directory.VerifyAttestation(result, org, key, time.Now())
	return err
}
