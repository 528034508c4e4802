package peers

import (
	"context"
	"errors"
	"fmt"

	"github.com/moltgate/moltgate/crypto"
	"github.com/moltgate/moltgate/gateway/pipeline"
	"github.com/moltgate/moltgate/handshake"
	"github.com/moltgate/moltgate/wire"
)

// connection they would come on is lost.
func (t *Table) awaitStream(ctx context.Context, ps *Remote, req *wire.Message, pc *pendingCall, dead <-chan struct{}, onMsg func(*wire.Message) (bool, error)) error {
	abandoned := func() error {
		return wire.Errorf(wire.ErrTimeout, "", "the reply from %s was abandoned: its stream was not taken for %v", ps.p.Org, pc.stalled)
	}
	for {
		// Replies that came are taken before anything else is looked at,
		// unless delivery gave up on the call: what is queued then is
		// not the whole reply.
		select {
		case <-pc.overrun:
			return abandoned()
		default:
		}
		if d, ok := pc.next(); ok {
			if d.m.From.Org != ps.p.Org {
				// Replies that come as messages of their own (late ones,
				// on this gateway's faces) are matched by re alone: one
				// from another organisation is not this call's answer.
				t.log.Warn("dropped a reply from another organisation", "from", d.m.From.Org, "call_to", ps.p.Org)
				continue
			}
			if !t.addressedTo(ps, req, d) {
				continue
			}
			r, err := t.checkReply(ctx, ps, req, d)
			if err != nil {
				return err
			}
			if fin, err := onMsg(r); err != nil || fin {
				return err
			}
			continue
		}
		select {
		case <-pc.ready:
		case <-pc.overrun:
			return abandoned()
		case <-dead:
			return wire.Errorf(wire.ErrPeerUnavailable, "", "connection to peer %s lost before the reply", ps.p.Org)
		case <-ctx.Done():
			return wire.Errorf(wire.ErrTimeout, "", "no reply from %s before the deadline", ps.p.Org)
		}
	}
}

// addressedTo reports whether d, a reply that names req in re, is
// addressed to the one who sent req. The gate checks a reply against the
// ceiling of the local agent it is addressed to, so one addressed to
// another agent, with a higher ceiling, would bring the caller what its
// own ceiling keeps out. It is not this call's answer; it is dropped. An
// error carries a code and a rule, no content, and the gate does not see
// it; a peer that cannot read who sent a message refuses it to the gateway
// it came from.
func (t *Table) addressedTo(ps *Remote, req *wire.Message, d delivered) bool {
	if d.refused != nil || d.m.Op == wire.OpError || d.m.To == req.From.Ref() {
		return true
	}
	t.log.Warn("dropped a reply addressed to another than its caller", "peer", ps.p.Org, "to", d.m.To.String(), "caller", req.From.Ref().String())
	return false
}

// openFrame opens one envelope of a peer's reply: in a session, it must
// come from the peer's organisation; a bare one is accepted only as an
// error message signed with the peer's org key (the peer could not seal
// it, for instance because it no longer knows the session).
func (t *Table) openFrame(ps *Remote, b []byte) (delivered, error) {
	env, err := t.cfg.Codec.DecodeEnvelope(b)
	if err != nil {
		return delivered{}, err
	}
	if env.Algorithm == wire.AlgSession {
		r, sess, err := t.cfg.Sessions.Open(env)
		if sess != nil && sess.Peer().Ref().Org != ps.p.Org {
			return delivered{}, wire.Errorf(wire.ErrAuthFailed, "", "reply from another organisation's session")
		}
		if err != nil {
			var rf *handshake.RefusedError
			if sess != nil && errors.As(err, &rf) && rf.Re != "" {
				// The peer sent it, but it cannot be taken: the call it
				// answers fails now, rather than at its deadline.
				return delivered{m: &wire.Message{Re: rf.Re, From: wire.Sender{Org: ps.p.Org}}, sess: sess, refused: err}, nil
			}
			return delivered{}, err
		}
		return delivered{m: r, sess: sess, sealed: true}, nil
	}
	r := env.Message
	if r == nil || r.Op != wire.OpError {
		return delivered{}, wire.Errorf(wire.ErrAuthFailed, "", "peer %s replied outside the session", ps.p.Org)
	}
	if r.From.Org != ps.p.Org || !ps.accepts(r.From.Key) || crypto.VerifyUsing(ps.t.cfg.Verifier, r) != nil {
		return delivered{}, wire.Errorf(wire.ErrAuthFailed, "", "error reply not signed by peer %s", ps.p.Org)
	}
	return delivered{m: r}, nil
}

// checkReply turns a peer's error message into its error, and passes any
// other reply through the gate inbound, like every message that enters.
func (t *Table) checkReply(ctx context.Context, ps *Remote, req *wire.Message, d delivered) (*wire.Message, error) {
	if d.refused != nil {
		t.log.Warn("refused a reply from a peer", "peer", ps.p.Org, "code", string(pipeline.Code(d.refused)))
		return nil, fmt.Errorf("reply from %s refused: %w", ps.p.Org, d.refused)
	}
	r := d.m
	if t.cfg.Replied != nil {
		t.cfg.Replied(ps, req, r, d.sess)
	}
	if r.Op == wire.OpError {
		if p, ok := r.Payload.(*wire.ErrorPayload); ok {
			return nil, answered{p.Err()}
		}
	}
	if err := t.cfg.Gate.Inbound(ctx, r, ps.p.Org, d.sess, d.sealed); err != nil {
		return nil, err
	}
	return r, nil
}
