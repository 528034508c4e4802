package gateway

import (
	"context"

	"github.com/moltgate/moltgate/gateway/local"
	"github.com/moltgate/moltgate/gateway/pipeline"
	"github.com/moltgate/moltgate/localbridge"
	"github.com/moltgate/moltgate/wire"
)

// AskConsent answers consent.request: it sends a consent request from a
// local agent to a peer's agent and waits for the grant or the refusal,
// which a person at the peer decides. A grant's proof is checked before it
// is handed over: a consent token signed by the peer's organisation key,
// naming the asking agent as grantee, for what was asked.
func (s *Server) AskConsent(ctx context.Context, req localbridge.ConsentAsk) (localbridge.ConsentAnswer, error) {
	to, err := s.target(req.To)
	if err != nil {
		return localbridge.ConsentAnswer{}, err
	}
	if to.Org == s.cfg.Org {
		return localbridge.ConsentAnswer{}, wire.Errorf(wire.ErrInvalidParam, "to",
			"%s is this organisation's own agent: issue the consent with moltgate consent issue", to)
	}
	st, err := s.sender(req.From)
	if err != nil {
		return localbridge.ConsentAnswer{}, err
	}
	ps, err := s.peerFor(to.Org)
	if err != nil {
		return localbridge.ConsentAnswer{}, err
	}
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, s.cfg.Listen.RequestTimeout.D())
		defer cancel()
	}
	p := &wire.ConsentPayload{Action: "request", DataTypes: req.DataTypes, Purpose: req.Purpose, Duration: req.Duration, Human: req.Human}
	m := &wire.Message{V: wire.Version, ID: pipeline.NewMessageID(s.rand), TS: s.now().UnixMilli(), Op: wire.OpConsent,
		From: st.id.Sender(), To: to, Cls: wire.Int, Payload: p}
	var ans localbridge.ConsentAnswer
	err = s.sendVia(ctx, ps, m, st.id.Signing, func(r *wire.Message) (bool, error) {
		g, ok := r.Payload.(*wire.ConsentPayload)
		if !ok {
			return false, nil
		}
		ans = localbridge.ConsentAnswer{DataTypes: g.DataTypes, Purpose: g.Purpose, Duration: g.Duration, Human: g.Human, Reason: g.Reason}
		switch g.Action {
		case "deny":
			return true, nil
		case "grant":
			if err := local.CheckGrant(ps.p.OrgKey, st.id.Ref, req, g.Proof, s.now()); err != nil {
				return true, err
			}
			ans.Granted, ans.Proof = true, g.Proof
			return true, nil
		}
		return true, wire.Errorf(wire.ErrInvalidParam, "p.action", "%s answered a consent request with %q", to, g.Action)
	})
	return ans, err
}
