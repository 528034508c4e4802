package gateway

import (
	"context"

	"github.com/moltgate/moltgate/classify"
	"github.com/moltgate/moltgate/crypto"
	"github.com/moltgate/moltgate/gateway/pipeline"
	"github.com/moltgate/moltgate/handshake"
	"github.com/moltgate/moltgate/wire"
)

const (
	gateInbound  = classify.Inbound
	gateOutbound = classify.Outbound
)

var signMessage = crypto.Sign

// peerGate is the gate as the calls to peers meet it: what it blocks is
// logged as the pipeline logs its own blocks.
type peerGate struct{ s *Server }

func (g peerGate) Outbound(ctx context.Context, m *wire.Message, tree wire.Value, org string, sess *handshake.Session) error {
	d := g.s.gate.CheckTree(ctx, m, tree, gateOutbound, org, pipeline.GateSession(sess, true, true))
	if !d.Allow {
		g.s.audit.Outbound(ctx, m, d)
		g.s.pipe.LogBlock(m, gateOutbound, d)
		return d.Err
	}
	if err := g.s.holds.checkForward(m, d.Types); err != nil {
		return err
	}
	// Recorded last, once nothing else can stop it: personal data is
	// recorded as transmitted before it leaves, and does not leave if
	// that cannot be recorded.
	return g.s.audit.Outbound(ctx, m, d)
}

func (g peerGate) Inbound(ctx context.Context, r *wire.Message, org string, sess *handshake.Session, sealed bool) error {
	d := g.s.gate.Check(ctx, r, gateInbound, org, pipeline.GateSession(sess, sealed, false))
	g.s.audit.Reply(ctx, r, d)
	if !d.Allow {
		g.s.pipe.LogBlock(r, gateInbound, d)
		return d.Err
	}
	return nil
}
