// Package grpcconn is what both ends of a gateway-to-gateway gRPC
// connection share: the service's names, the codec that passes envelope
// bytes through untouched, the flow-control window and keep-alive, and the
// writer that gives up on a stream whose other end stops reading.
package grpcconn

import (
	"errors"
	"net"
	"time"

	"google.golang.org/grpc/mem"
	"google.golang.org/grpc/metadata"

	"github.com/moltgate/moltgate/gateway/face/frames"
)

// The gRPC face carries envelope bytes unchanged: the service
// moltgate.v1.Gateway has a unary Send (one envelope in, the reply envelope
// out) and a bidirectional Stream (envelopes both ways, as on the
// WebSocket). Messages are raw bytes, so no protobuf schema is involved.
const (
	Service      = "moltgate.v1.Gateway"
	MethodSend   = "/" + Service + "/Send"
	MethodStream = "/" + Service + "/Stream"
	// ErrorKey carries the signed error envelope of a failed Send in
	// the trailers, next to the status.
	ErrorKey = "moltgate-error-bin"
	// EndKey, in the trailers of a Stream the answering gateway ended,
	// says why, when the dialling gateway has something to do about it.
	EndKey = "moltgate-end"
	// EndNoSession is EndKey's value for a Stream ended because no session
	// was made on it within the answering gateway's handshake timeout (its
	// status is DeadlineExceeded). Nothing sent on it was acted on, so the
	// dialling gateway sends it again in a new session, as it does for a
	// WebSocket closed with code 4408.
	EndNoSession = "no-session"
)

// NoSession reports whether trailer, a Stream's, says that the answering
// gateway ended it for making no session in time (EndNoSession).
func NoSession(trailer metadata.MD) bool {
	for _, v := range trailer.Get(EndKey) {
		if v == EndNoSession {
			return true
		}
	}
	return false
}

// Codec passes message bytes through untouched.
type Codec struct{}

func (Codec) Marshal(v any) (mem.BufferSlice, error) {
	b, ok := v.(*[]byte)
	if !ok {
		return nil, errors.New("moltgate gRPC messages are raw bytes")
	}
	return mem.BufferSlice{mem.SliceBuffer(*b)}, nil
}

// Frame is a message received into a recycled envelope buffer,
// taken once the message has come: a stream waiting for its next message
// holds none. Whoever receives one gives it back (frames.PutEnvelopeBuf).
type Frame []byte

// Unmarshal copies the message into the room *v has, if it has enough,
// so that a reader can receive into a buffer it reuses.
func (Codec) Unmarshal(data mem.BufferSlice, v any) error {
	var b *[]byte
	switch v := v.(type) {
	case *[]byte:
		b = v
	case *Frame:
		*v = frames.GetEnvelopeBuf()
		b = (*[]byte)(v)
	default:
		return errors.New("moltgate gRPC messages are raw bytes")
	}
	if n := data.Len(); cap(*b) >= n {
		*b = (*b)[:n]
		data.CopyTo(*b)
		return nil
	}
	*b = data.Materialize()
	return nil
}

func (Codec) Name() string { return "moltgate-raw" }

// Window is the HTTP/2 flow-control window of gRPC streams and
// connections, both ways. Setting it turns off grpc-go's bandwidth-delay
// estimation, which pings the peer as data arrives and grows the window from
// 64 KiB: on a gateway's steady stream of small messages the pings and their
// acknowledgements were extra frames, writes and wake-ups on both sides.
// A peer that stops reading still holds back its sender, once it has 1 MiB
// unread.
const Window = 1 << 20

// PingTimeout is how long a keepalive ping may go unanswered, and data
// unacknowledged (TCP_USER_TIMEOUT), before a gRPC connection is dropped.
const PingTimeout = 10 * time.Second

// Listener sets TCP_USER_TIMEOUT on the connections it accepts, which
// grpc-go does itself only on connections of package net (see
// SetUserTimeout).
type Listener struct{ net.Listener }

func (l Listener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err == nil {
		SetUserTimeout(c, PingTimeout)
	}
	return c, err
}
