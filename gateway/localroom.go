package gateway

import (
	"context"

	"github.com/moltgate/moltgate/classify"
	"github.com/moltgate/moltgate/gateway/local"
	"github.com/moltgate/moltgate/gateway/pipeline"
	"github.com/moltgate/moltgate/gateway/roster"
	"github.com/moltgate/moltgate/gateway/trail"
	"github.com/moltgate/moltgate/keys"
	"github.com/moltgate/moltgate/wire"
)

// The gateway's side of its local room (gateway/local): the agents it
// answers for.

// Local returns the gateway's local room: what it answers for its own
// agents, and the consent tokens it issues.
func (s *Server) Local() *local.Room { return s.local }

// localObserver records what the local room does: spans, the audit trail
// and receipts.
type localObserver struct{ s *Server }

func (o localObserver) BridgeCall(ctx context.Context, agent, tool string) (context.Context, string, func(error)) {
	return o.s.spans.BridgeCall(ctx, agent, tool)
}

func (o localObserver) Outbound(ctx context.Context, r *wire.Message, d classify.Decision) error {
	return o.s.audit.Outbound(ctx, r, d)
}

func (o localObserver) Receipt(in *pipeline.Inbound, r *wire.Message) error {
	return o.s.receipts.Sign(in, r)
}

func (o localObserver) CallerTrace(ctx context.Context, parent, state string) context.Context {
	return trail.CallerTrace(ctx, parent, state)
}

// localAgents are the local agents as the local room sees them.
type localAgents struct{ s *Server }

func (a localAgents) Agent(id string) (local.Agent, bool) {
	st := a.s.roster.Agent(id)
	if st == nil {
		return local.Agent{}, false
	}
	return localAgent(st), true
}

func (a localAgents) Only() (local.Agent, bool) {
	if agents := a.s.roster.All(); len(agents) == 1 {
		for _, st := range agents {
			return localAgent(st), true
		}
	}
	return local.Agent{}, false
}

// localAgent is the agent as the local room sees it.
func localAgent(st *roster.Agent) local.Agent {
	return local.Agent{ID: st.Spec.ID, QueryTool: st.Spec.QueryTool, Identity: st.Identity, Caps: st.Caps}
}

// localPeers are the peers as local callers reach them.
type localPeers struct{ s *Server }

func (p localPeers) Send(ctx context.Context, m *wire.Message, sk keys.Ed25519Private, onMsg func(*wire.Message) (bool, error)) error {
	ps, err := p.s.peers.For(m.To.Org)
	if err != nil {
		return err
	}
	return p.s.peers.SendVia(ctx, ps, m, sk, onMsg)
}

func (p localPeers) Key(org string) (keys.Ed25519Public, bool) {
	ps := p.s.peers.Get(org)
	if ps == nil {
		return keys.Ed25519Public{}, false
	}
	return ps.Peer().OrgKey, true
}

// background runs f with the background context, tracked by the
// background loops' wait group, unless the gateway is closing.
func (s *Server) background(f func(ctx context.Context)) {
	if s.closing.Load() {
		return
	}
	s.bg.Add(1)
	go func() {
		defer s.bg.Done()
		f(s.bgCtx)
	}()
}
