package gateway

import (
	"context"

	"github.com/moltgate/moltgate/crypto"
	"github.com/moltgate/moltgate/gateway/face/frames"
	"github.com/moltgate/moltgate/gateway/pipeline"
	"github.com/moltgate/moltgate/keys"
	"github.com/moltgate/moltgate/wire"
)

// routes are where the pipeline takes what it admits: the registry, or one
// of this organisation's agents.
type routes struct{ s *Server }

func (r routes) Registry(ctx context.Context, in *pipeline.Inbound) pipeline.Answer {
	return r.s.registryAnswer(ctx, in)
}

func (r routes) Local(ctx context.Context, in *pipeline.Inbound, emit func([]byte) error) pipeline.Answer {
	return r.s.local.Answer(ctx, in, emit)
}

// Seal seals what the local room answers: see reply.
func (r routes) Seal(in *pipeline.Inbound, m *wire.Message, sk keys.Ed25519Private) ([]byte, error) {
	return r.s.reply(in, m, sk)
}

// reply seals a reply to an inbound message, signed by sk, the way the
// request came: in its session, or sealed to the sender's key, or (for pub
// and int only) in the clear.
func (s *Server) reply(in *pipeline.Inbound, r *wire.Message, sk keys.Ed25519Private) ([]byte, error) {
	if in.Sess != nil {
		return in.Sess.AppendSignAndSeal(frames.GetEnvelopeBuf(), r, sk)
	}
	if !in.M.From.EncKey.IsZero() {
		return crypto.SealMessage(s.codec, r, sk, s.box, in.M.From.EncKey)
	}
	if r.Cls > wire.Int {
		return nil, wire.Errorf(wire.ErrClassification, "cls", "a %s reply cannot travel in the clear; send the request sealed", r.Cls)
	}
	return crypto.Sign(s.codec, r, sk)
}
