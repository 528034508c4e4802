package handshake

import (
	"context"
	"errors"

	"github.com/moltgate/moltgate/wire"
)

// Transport carries handshake messages, one whole message per call, in
// order. A WebSocket connection or a gRPC stream is one directly; a
// request/response exchange such as HTTP becomes one with RoundTrip.
type Transport interface {
	Send(ctx context.Context, msg []byte) error
	Receive(ctx context.Context) ([]byte, error)
}

func send(ctx context.Context, t Transport, msg []byte) error {
	if err := t.Send(ctx, msg); err != nil {
		return transportError("send", ctx, err)
	}
	return nil
}

func receive(ctx context.Context, t Transport) ([]byte, error) {
	b, err := t.Receive(ctx)
	if err != nil {
		return nil, transportError("receive", ctx, err)
	}
	return b, nil
}

// RoundTrip makes a Transport of a request/response exchange, such as an
// HTTP POST whose response body is the reply: each Send makes one exchange
// and the next Receive returns its reply. An Initiator's last message gets
// an empty reply, which is not read.
func RoundTrip(exchange func(ctx context.Context, msg []byte) ([]byte, error)) Transport {
	return &roundTrip{exchange: exchange}
}

type roundTrip struct {
	exchange func(context.Context, []byte) ([]byte, error)
	reply    []byte
	have     bool
}

func (r *roundTrip) Send(ctx context.Context, msg []byte) error {
	reply, err := r.exchange(ctx, msg)
	if err != nil {
		return err
	}
	r.reply, r.have = reply, true
	return nil
}

func (r *roundTrip) Receive(context.Context) ([]byte, error) {
	if !r.have {
		return nil, errors.New("no exchange to read a reply from")
	}
	b := r.reply
	r.reply, r.have = nil, false
	if len(b) == 0 {
		return nil, errors.New("empty reply")
	}
	return b, nil
}

// Pipe returns the two ends of an in-memory Transport, for handshakes
// within one process and for tests.
func Pipe() (Transport, Transport) {
	ab, ba := make(chan []byte, 1), make(chan []byte, 1)
	return &pipeEnd{out: ab, in: ba}, &pipeEnd{out: ba, in: ab}
}

type pipeEnd struct{ out, in chan []byte }

func (p *pipeEnd) Send(ctx context.Context, msg []byte) error {
	select {
	case p.out <- append([]byte(nil), msg...):
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (p *pipeEnd) Receive(ctx context.Context) ([]byte, error) {
	select {
	case b := <-p.in:
		return b, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// sendError tells the peer why the handshake ended, when the failure was
// this side's refusal of a message (not the transport's, and not the
// peer's own error). It is best effort: its failure is not reported.
func sendError(ctx context.Context, t Transport, c *Config, me self, cause error, to wire.Ref, re string) {
	var we *wire.Error
	if !errors.As(cause, &we) || errors.Is(cause, ErrPeerRefused) || ctx.Err() != nil || re == "" {
		return
	}
	if we.Code == wire.ErrTimeout || we.Code == wire.ErrInternal {
		return
	}
	if me.id == nil {
		// The handshake failed before it read who this side is.
		if me, _ = c.self(); me.id == nil {
			return
		}
	}
	m, err := c.newMessage(me, wire.OpError, to, re, we.Payload())
	if err != nil {
		return
	}
	b, err := c.sign(me, m)
	if err != nil {
		return
	}
	_ = t.Send(ctx, b)
}
