package grpcconn

import (
	"context"

	"google.golang.org/grpc"
)

// Transport carries a handshake over a client stream before anything
// else uses it.
type Transport struct{ Stream grpc.ClientStream }

func (t Transport) Send(ctx context.Context, b []byte) error { return t.Stream.SendMsg(&b) }

func (t Transport) Receive(ctx context.Context) ([]byte, error) {
	type res struct {
		b   []byte
		err error
	}
	ch := make(chan res, 1)
	go func() {
		var b []byte
		err := t.Stream.RecvMsg(&b)
		ch <- res{b, err}
	}()
	select {
	case r := <-ch:
		return r.b, r.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}
