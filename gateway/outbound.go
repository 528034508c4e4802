package gateway

import (
	"context"
	"time"

	"github.com/moltgate/moltgate/classify"
	"github.com/moltgate/moltgate/crypto"
	"github.com/moltgate/moltgate/gateway/pipeline"
	"github.com/moltgate/moltgate/keys"
	"github.com/moltgate/moltgate/wire"
)

const (
	gateInbound  = classify.Inbound
	gateOutbound = classify.Outbound

	headerDeadline = "X-Moltgate-Deadline" // unix milliseconds
	contentNDJSON  = "application/x-ndjson"
)

var signMessage = crypto.Sign

// peerFor is the peer of org, for a message a local caller sends there.
func (s *Server) peerFor(org string) (*peerState, error) {
	ps := s.peer(org)
	if ps == nil {
		return nil, wire.Errorf(wire.ErrAgentNotFound, "to.org", "%s is not a peer of this gateway (import it with moltgate peer import)", org)
	}
	return ps, nil
}

// sendVia passes m, signed with sk, through the gate outbound and sends it
// to ps: every message for a peer goes this way, whoever it speaks for.
func (s *Server) sendVia(ctx context.Context, ps *peerState, m *wire.Message, sk keys.Ed25519Private, onMsg func(*wire.Message) (bool, error)) (err error) {
	ctx, span := s.startPeerCall(ctx, m) // before the tree is made: the context is signed with the rest
	start := s.now()
	defer func() { s.outboundDone(ctx, span, m, s.now().Sub(start), err) }()
	t, err := s.prepareOutbound(ctx, m)
	if err != nil {
		return err
	}
	sess, _ := s.sessions.Peer(ps.ref)
	d := s.gate.CheckTree(ctx, m, t, gateOutbound, m.To.Org, pipeline.GateSession(sess, true, true))
	if !d.Allow {
		s.auditOut(ctx, m, d)
		s.pipe.LogBlock(m, gateOutbound, d)
		return d.Err
	}
	if err := s.checkForward(m, d.Types); err != nil {
		return err
	}
	// Recorded last, once nothing else can stop it: personal data is
	// recorded as transmitted before it leaves, and does not leave if
	// that cannot be recorded.
	if err := s.auditOut(ctx, m, d); err != nil {
		return err
	}
	return ps.call(ctx, s.cfg.Peers.Transport, m, sk, onMsg)
}

func (s *Server) callAsGateway(ctx context.Context, ps *peerState, m *wire.Message, onMsg func(*wire.Message) (bool, error)) error {
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, s.cfg.Listen.RequestTimeout.D())
		defer cancel()
	}
	// What the gateway sends in its own name may still carry a local
	// caller's text (a discovery query's requirements): the same gate.
	return s.sendVia(ctx, ps, m, s.org.Signing, onMsg)
}

// prepareOutbound gives a message for a peer the caller's deadline as its
// exp, then checks it and returns its tree. The deadline goes in first, so
// that the message checked, gated and signed is one and the same: signing
// finds it checked.
func (s *Server) prepareOutbound(ctx context.Context, m *wire.Message) (wire.Value, error) {
	if d, ok := ctx.Deadline(); ok && m.Exp == 0 {
		// exp is on the gateway's clock, as ts is; the deadline on the
		// process's.
		m.Exp = s.now().Add(time.Until(d)).UnixMilli()
	}
	return s.codec.CheckTree(m)
}
