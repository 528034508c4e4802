package gateway

import (
	"context"
	"time"

	"github.com/moltgate/moltgate/directory"
	"github.com/moltgate/moltgate/gateway/registry"
	"github.com/moltgate/moltgate/keys"
	"github.com/moltgate/moltgate/localbridge"
	"github.com/moltgate/moltgate/wire"
)

// The gateway's side of its directory service (gateway/registry): what it
// is built from, and the peers and local agents it is given.

// registryConfig is the directory service's configuration from the
// gateway's.
func (s *Server) registryConfig() registry.Config {
	return registry.Config{
		Store: s.store, Org: s.cfg.Org, Signer: s.org, Trust: s.trust,
		MinTTL: s.cfg.Directory.MinTTL.D(), MaxTTL: s.cfg.Directory.MaxTTL.D(),
		Codec: s.codec, Scanner: s.scanner,
		Endpoint:     s.cfg.Listen.Advertise + "/moltspeak/v0.1/message",
		MessageBytes: s.cfg.Limits.MessageBytes,
		SyncInterval: func() time.Duration { return s.cfg.Directory.SyncInterval.D() },
		Capabilities: s.hsCfg.Capabilities,
		Load: func() (float64, int64) {
			n := s.flight.Count()
			return float64(n) / float64(s.cfg.Limits.MaxInFlight), int64(n)
		},
		Peers: registryPeers{s}, Locals: registryLocals{s},
		Discovery: s.discoverLimit, Limited: s.metrics.rateLimit.WithLabelValues("discovery"),
		Log: s.log, Now: s.now, Rand: s.rand,
	}
}

// registryPeers is the peer table as the directory service sees it.
type registryPeers struct{ s *Server }

func (r registryPeers) Peers() []registry.Peer {
	all := r.s.peers.All()
	out := make([]registry.Peer, 0, len(all))
	for _, ps := range all {
		out = append(out, registry.Peer{Org: ps.Peer().Org, Key: ps.Peer().OrgKey})
	}
	return out
}

func (r registryPeers) CallAsGateway(ctx context.Context, org string, m *wire.Message, onMsg func(*wire.Message) (bool, error)) error {
	ps := r.s.peers.Get(org)
	if ps == nil {
		return wire.Errorf(wire.ErrPeerUnavailable, "to.org", "%s is no longer a peer of this gateway", org)
	}
	return r.s.peers.CallAsGateway(ctx, ps, m, onMsg)
}

// registryLocals are the local agents as the directory service sees them.
type registryLocals struct{ s *Server }

func (l registryLocals) Agents() []localbridge.AgentInfo { return l.s.core.Agents() }

func (l registryLocals) Pong(agent, nonce string) (*wire.PongPayload, bool) {
	if l.s.agent(agent) == nil {
		return nil, false
	}
	return l.s.local.Pong(agent, nonce), true
}

// Registry returns the gateway's registry.
func (s *Server) Registry() *directory.Registry { return s.registry.Registry() }

// publishAgent keeps a local agent's directory entry in step with what the
// local bridge knows (registry.Service.Publish).
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
	s.registry.Publish(ctx, registry.LocalAgent{
		ID: info.ID, Capabilities: st.spec.Capabilities, Visibility: st.spec.Visibility,
		Key: st.id.Signing.Public(), EncKey: st.id.Encryption.Public(), Cert: st.cert.Value(),
	}, info)
}

// VerifyAttestation checks one discovery result against the registry key
// of org: see directory.VerifyAttestation.
func VerifyAttestation(result wire.Value, org string, key keys.Ed25519Public) error {
	_, err := directory.VerifyAttestation(result, org, key, time.Now())
	return err
}
