package gateway

import (
	"context"
	"time"

	"github.com/moltgate/moltgate/directory"
	"github.com/moltgate/moltgate/gateway/registry"
	"github.com/moltgate/moltgate/gateway/roster"
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
		Store: s.store, Org: s.cfg.Org, Signer: s.keys, Trust: s.trust,
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
	if l.s.roster.Agent(agent) == nil {
		return nil, false
	}
	return l.s.local.Pong(agent, nonce), true
}

// Registry returns the gateway's registry.
func (s *Server) Registry() *directory.Registry { return s.registry.Registry() }

// rosterDirectory is the directory service as the roster publishes the
// local agents' entries in it.
type rosterDirectory struct{ s *Server }

func (d rosterDirectory) Publish(ctx context.Context, a *roster.Agent, info localbridge.AgentInfo) {
	d.s.registry.Publish(ctx, registry.LocalAgent{
		ID: info.ID, Capabilities: a.Spec.Capabilities, Visibility: a.Spec.Visibility,
		Key: a.Identity.Signing.Public(), EncKey: a.Identity.Encryption.Public(), Cert: a.Cert.Value(),
	}, info)
}

func (d rosterDirectory) Withdraw(ctx context.Context, id string) { d.s.registry.Withdraw(ctx, id) }

// VerifyAttestation checks one discovery result against the registry key
// of org: see directory.VerifyAttestation.
func VerifyAttestation(result wire.Value, org string, key keys.Ed25519Public) error {
	_, err := directory.VerifyAttestation(result, org, key, time.Now())
	return err
}
