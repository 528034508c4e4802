package peers

import (
	"errors"
	"io"
	"testing"

	"github.com/gorilla/websocket"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/moltgate/moltgate/internal/grpcconn"
	"github.com/moltgate/moltgate/internal/wsconn"
	"github.com/moltgate/moltgate/wire"
)

// endedStream is a gRPC stream that the answering gateway has ended with
// err and trailer.
type endedStream struct {
	grpc.ClientStream
	err     error
	trailer metadata.MD
}

func (s endedStream) RecvMsg(any) error         { return s.err }
func (s endedStream) Trailer() metadata.MD      { return s.trailer }
func (s endedStream) fail() ([]byte, error)     { return grpcReader(s)() }
func failWith(err error) func() ([]byte, error) { return func() ([]byte, error) { return nil, err } }

// A stream connection the peer ends because no session was made on it in
// time (its end of the handshake was late; this end's was not) was never
// read: the calls on it are sent again in a new session, where any other
// end of the connection loses them as the peer may have acted on them. A
// WebSocket says so with close code 4408, a gRPC stream with its trailer.
func TestNoSessionCloseResendsCalls(t *testing.T) {
	lostCall := wire.Errorf(wire.ErrPeerUnavailable, "", "connection to peer globex lost before the reply")
	noSession := metadata.Pairs(grpcconn.EndKey, grpcconn.EndNoSession)
	for _, tc := range []struct {
		name   string
		read   func() ([]byte, error)
		resend bool
	}{
		{"WebSocket: no session in time", failWith(&websocket.CloseError{Code: wsconn.CloseNoSession, Text: "no session was made in time"}), true},
		{"WebSocket: going away", failWith(&websocket.CloseError{Code: websocket.CloseGoingAway}), false},
		{"WebSocket: reset", failWith(errors.New("connection reset by peer")), false},
		{"gRPC: no session in time", endedStream{err: status.Error(codes.DeadlineExceeded, "no session was made in time"), trailer: noSession}.fail, true},
		{"gRPC: the same status without the trailer", endedStream{err: status.Error(codes.DeadlineExceeded, "no session was made in time")}.fail, false},
		{"gRPC: stream ended without a status", endedStream{err: io.EOF}.fail, false},
		{"gRPC: shutting down", endedStream{err: status.Error(codes.Unavailable, "transport is closing")}.fail, false},
	} {
		p := newPooled(nil, func() {})
		var tb Table
		tb.readReplies(nil, p, tc.read)
		if !p.isDead() {
			t.Fatalf("%s: the connection is not dead", tc.name)
		}
		err := p.lost(lostCall)
		f, _ := classify(err)
		if got := errors.As(err, new(sessionGone)) && f.safe && f.renew; got != tc.resend {
			t.Fatalf("%s: the call's %v is sent again: %v, want %v", tc.name, err, got, tc.resend)
		}
	}
}
