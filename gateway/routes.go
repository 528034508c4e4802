package gateway

import (
	"context"
	"net/http"

	"github.com/moltgate/moltgate/crypto"
	"github.com/moltgate/moltgate/directory"
	"github.com/moltgate/moltgate/gateway/face/frames"
	"github.com/moltgate/moltgate/gateway/pipeline"
	"github.com/moltgate/moltgate/keys"
	"github.com/moltgate/moltgate/wire"
)

// routes are where the pipeline takes what it admits: the registry, or one
// of this organisation's agents.
type routes struct{ s *Server }

// Registry answers what the pipeline routes to registry@org, signed with
// the org key and sealed the way the request came.
func (rt routes) Registry(ctx context.Context, in *pipeline.Inbound) pipeline.Answer {
	s := rt.s
	if p, ok := in.M.Payload.(*wire.SecurityAlertPayload); ok && p.AlertType == "key_rotation" {
		// A peer's handover statement, which moves its pin on.
		data, err := s.rotation.Alert(ctx, in, p)
		if err != nil {
			return s.pipe.Refuse(in.M, in.Sess, err)
		}
		return rt.sealRegistry(in, s.registry.Reply(in.M.Reply(wire.OpRespond, &wire.RespondPayload{Status: "success", Data: data})))
	}
	if p, ok := in.M.Payload.(*wire.SecurityAlertPayload); ok {
		// A peer's revocation list: taken here, and applied once the
		// answer is sealed, since applying it may end the session the
		// answer goes back in.
		data, apply, err := s.revoked.Alert(ctx, in, p)
		if err != nil {
			return s.pipe.Refuse(in.M, in.Sess, err)
		}
		ans := rt.sealRegistry(in, s.registry.Reply(in.M.Reply(wire.OpRespond, &wire.RespondPayload{Status: "success", Data: data})))
		apply()
		return ans
	}
	v := directory.Viewer{}
	if s.pipe.OrgShown(in) {
		v.Org = in.M.From.Org
	}
	r, err := s.registry.Answer(ctx, in, v)
	if err != nil {
		return s.pipe.Refuse(in.M, in.Sess, err)
	}
	return rt.sealRegistry(in, r)
}

// sealRegistry signs the registry's reply r with the org key, whose sender
// it then is, and seals it the way the request came.
func (rt routes) sealRegistry(in *pipeline.Inbound, r *wire.Message) pipeline.Answer {
	s := rt.s
	self := s.self()
	r.From = self.Sender()
	r.From.Agent = RegistryAgent
	body, err := rt.Seal(in, r, self.Signing)
	if err != nil {
		return s.pipe.Refuse(in.M, in.Sess, err)
	}
	return pipeline.Answer{Body: body, Status: http.StatusOK}
}

func (r routes) Local(ctx context.Context, in *pipeline.Inbound, emit func([]byte) error) pipeline.Answer {
	return r.s.local.Answer(ctx, in, emit)
}

// Seal seals a reply to an inbound message (the registry's, or what the
// local room answers), signed by sk, the way the request came: in its
// session, or sealed to the sender's key, or (for pub and int only) in the
// clear. The receipt of the exchange, if r has one, is told how it went.
func (rt routes) Seal(in *pipeline.Inbound, r *wire.Message, sk keys.Ed25519Private) ([]byte, error) {
	b, err := rt.seal(in, r, sk)
	rt.s.receipts.Sealed(r, err)
	return b, err
}

func (rt routes) seal(in *pipeline.Inbound, r *wire.Message, sk keys.Ed25519Private) ([]byte, error) {
	s := rt.s
	if in.Sess != nil {
		return in.Sess.AppendSignAndSeal(frames.GetEnvelopeBuf(), r, sk)
	}
	if !in.M.From.EncKey.IsZero() {
		// Out of the box of the key the reply names as its sender's: during
		// a rotation of the X25519 key, a reply signed by an identity read
		// before the switch names the key replaced.
		b := s.keys.Keyring().For(r.From.EncKey)
		if b == nil {
			return nil, wire.Errorf(wire.ErrInternal, "from.enc_key", "the reply names %s, which is not this gateway's X25519 key", r.From.EncKey)
		}
		return crypto.SealMessage(s.codec, r, sk, b, in.M.From.EncKey)
	}
	if r.Cls > wire.Int {
		return nil, wire.Errorf(wire.ErrClassification, "cls", "a %s reply cannot travel in the clear; send the request sealed", r.Cls)
	}
	return crypto.Sign(s.codec, r, sk)
}
