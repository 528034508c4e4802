package gateway

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync/atomic"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/keepalive"
	"google.golang.org/grpc/mem"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/peer"
	"google.golang.org/grpc/status"

	"github.com/moltgate/moltgate/gateway/face/frames"
	"github.com/moltgate/moltgate/gateway/pipeline"
)

// The gRPC face carries envelope bytes unchanged: the service
// moltgate.v1.Gateway has a unary Send (one envelope in, the reply envelope
// out) and a bidirectional Stream (envelopes both ways, as on the
// WebSocket). Messages are raw bytes, so no protobuf schema is involved.
const (
	grpcService = "moltgate.v1.Gateway"
	grpcSend    = "/" + grpcService + "/Send"
	grpcStream  = "/" + grpcService + "/Stream"
	// grpcErrorKey carries the signed error envelope of a failed Send in
	// the trailers, next to the status.
	grpcErrorKey = "moltgate-error-bin"
)

// rawCodec passes message bytes through untouched.
type rawCodec struct{}

func (rawCodec) Marshal(v any) (mem.BufferSlice, error) {
	b, ok := v.(*[]byte)
	if !ok {
		return nil, errors.New("moltgate gRPC messages are raw bytes")
	}
	return mem.BufferSlice{mem.SliceBuffer(*b)}, nil
}

// recycledFrame is a message received into a recycled envelope buffer,
// taken once the message has come: a stream waiting for its next message
// holds none. Whoever receives one gives it back (frames.PutEnvelopeBuf).
type recycledFrame []byte

// Unmarshal copies the message into the room *v has, if it has enough,
// so that a reader can receive into a buffer it reuses.
func (rawCodec) Unmarshal(data mem.BufferSlice, v any) error {
	var b *[]byte
	switch v := v.(type) {
	case *[]byte:
		b = v
	case *recycledFrame:
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

func (rawCodec) Name() string { return "moltgate-raw" }

type grpcHandler interface{}

// grpcWindow is the HTTP/2 flow-control window of gRPC streams and
// connections, both ways. Setting it turns off grpc-go's bandwidth-delay
// estimation, which pings the peer as data arrives and grows the window from
// 64 KiB: on a gateway's steady stream of small messages the pings and their
// acknowledgements were extra frames, writes and wake-ups on both sides.
// A peer that stops reading still holds back its sender, once it has 1 MiB
// unread.
const grpcWindow = 1 << 20

// grpcPingTimeout is how long a keepalive ping may go unanswered, and data
// unacknowledged (TCP_USER_TIMEOUT), before a gRPC connection is dropped.
const grpcPingTimeout = 10 * time.Second

// grpcListener sets TCP_USER_TIMEOUT on the connections it accepts, which
// grpc-go does itself only on connections of package net (see
// setUserTimeout).
type grpcListener struct{ net.Listener }

func (l grpcListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err == nil {
		setUserTimeout(c, grpcPingTimeout)
	}
	return c, err
}

func (s *Server) grpcServer(creds credentials.TransportCredentials) *grpc.Server {
	opts := []grpc.ServerOption{
		grpc.ForceServerCodecV2(rawCodec{}),
		grpc.MaxRecvMsgSize(s.frameLimit()),
		grpc.MaxSendMsgSize(s.pipe.EnvelopeLimit()),
		// A peer's gateway holds one Stream; Send calls beyond this wait
		// their turn at the client. Each open stream costs the gateway
		// goroutines and buffers, so a connection may not open a thousand.
		grpc.MaxConcurrentStreams(uint32(min(s.cfg.Limits.MaxInFlight, maxStreamsPerConn))),
		grpc.MaxHeaderListSize(64 << 10),
		// A connection with no stream open for the idle timeout is closed,
		// as the HTTP face closes idle connections: otherwise it holds its
		// slot under max_connections for ever by answering pings.
		grpc.KeepaliveParams(keepalive.ServerParameters{Time: wsPingEvery, Timeout: grpcPingTimeout, MaxConnectionIdle: s.cfg.Listen.IdleTimeout.D()}),
		grpc.KeepaliveEnforcementPolicy(keepalive.EnforcementPolicy{MinTime: 10 * time.Second, PermitWithoutStream: true}),
		grpc.ConnectionTimeout(s.cfg.Listen.ReadHeaderTimeout.D()),
		grpc.InitialWindowSize(grpcWindow),
		grpc.InitialConnWindowSize(grpcWindow),
	}
	if creds != nil {
		opts = append(opts, grpc.Creds(creds))
	}
	g := grpc.NewServer(opts...)
	g.RegisterService(&grpc.ServiceDesc{
		ServiceName: grpcService,
		HandlerType: (*grpcHandler)(nil),
		Methods: []grpc.MethodDesc{{MethodName: "Send", Handler: func(_ any, ctx context.Context, dec func(any) error, _ grpc.UnaryServerInterceptor) (any, error) {
			var in []byte
			if err := dec(&in); err != nil {
				return nil, err
			}
			a := s.pipe.Handle(ctx, pipeline.Origin{Face: pipeline.FaceGRPC, Remote: remoteOf(ctx)}, in, nil)
			if a.Code != "" {
				if a.Body != nil {
					grpc.SetTrailer(ctx, metadata.Pairs(grpcErrorKey, string(a.Body)))
				}
				return nil, status.Error(grpcCode(a.Status), string(a.Code))
			}
			out := a.Body
			if out == nil {
				out = []byte{}
			}
			return &out, nil
		}}},
		Streams: []grpc.StreamDesc{{StreamName: "Stream", ServerStreams: true, ClientStreams: true, Handler: s.serveGRPCStream}},
	}, s)
	return g
}

// serveGRPCStream handles one bidirectional stream as the WebSocket face
// handles a connection. A peer that stops reading its replies has the
// stream ended once a write has waited the write timeout for it, as the
// WebSocket face drops such a connection: returning resets the stream,
// which fails the write and those queued behind it.
func (s *Server) serveGRPCStream(_ any, stream grpc.ServerStream) error {
	ctx, stall := context.WithCancelCause(stream.Context())
	defer stall(nil)
	w := newGRPCWriter(stream.SendMsg, s.writeTimeout, func() { stall(frames.ErrWriteStalled) })
	send := func(b []byte) error { return w.send(ctx, b) }
	recv := func() ([]byte, error) {
		// Given back once handled (package frames): the pipeline
		// decodes from copies.
		var in recycledFrame
		err := stream.RecvMsg(&in)
		return in, err
	}
	if s.frames.Serve(ctx, &pipeline.Origin{Face: pipeline.FaceStream, Remote: remoteOf(ctx)}, recv, send, nil) == frames.EndStalled {
		return status.Error(codes.ResourceExhausted, "replies not read within the write timeout")
	}
	return nil
}

// errNoTurn is the error of a write that did not start before its caller's
// deadline, another write holding the stream: nothing of it was sent.
var errNoTurn = errors.New("no turn to write before the deadline")

// grpcWriter writes the messages of one gRPC stream, one at a time.
// grpc-go's SendMsg takes no deadline: it waits for as long as the other
// end's flow-control window stays full, which an end that stops reading
// keeps so for ever. A write that has waited the timeout calls stall once,
// which must end the stream (its handler returns, or its context is
// cancelled), so that the write fails; every later one fails at once.
type grpcWriter struct {
	sendMsg func(any) error
	timeout time.Duration
	stall   func()

	turn    chan struct{} // held by the write in progress
	epoch   time.Time     // began counts from here, on the monotonic clock
	began   atomic.Int64  // since epoch, when the write in progress began; 0 between writes
	stalled atomic.Bool
	// watch fires timeout after a write began, unless stopped as it
	// ends; made by the first write, and used only with the turn held.
	watch *time.Timer
}

func newGRPCWriter(sendMsg func(any) error, timeout time.Duration, stall func()) *grpcWriter {
	return &grpcWriter{sendMsg: sendMsg, timeout: timeout, stall: stall, turn: make(chan struct{}, 1), epoch: time.Now()}
}

// send writes b, waiting for its turn until ctx ends (errNoTurn).
func (w *grpcWriter) send(ctx context.Context, b []byte) error {
	select {
	case w.turn <- struct{}{}:
	case <-ctx.Done():
		return errNoTurn
	}
	defer func() { <-w.turn }()
	if w.stalled.Load() {
		return frames.ErrWriteStalled
	}
	w.began.Store(int64(time.Since(w.epoch)) + 1)
	if w.watch == nil {
		w.watch = time.AfterFunc(w.timeout, w.check)
	} else {
		w.watch.Reset(w.timeout)
	}
	err := w.sendMsg(&b)
	w.began.Store(0)
	w.watch.Stop()
	if err == nil || !w.stalled.Load() {
		return err
	}
	return fmt.Errorf("%w: %w", frames.ErrWriteStalled, err)
}

// check stalls the stream if the write in progress has waited the timeout.
// The watch may fire just as a write ends, or for one that was followed
// by another: what began says which.
func (w *grpcWriter) check() {
	b := w.began.Load()
	if b == 0 || time.Since(w.epoch)-time.Duration(b-1) < w.timeout {
		return
	}
	if w.stalled.CompareAndSwap(false, true) {
		w.stall()
	}
}

func remoteOf(ctx context.Context) string {
	if p, ok := peer.FromContext(ctx); ok && p.Addr != nil {
		return p.Addr.String()
	}
	return ""
}

// grpcCode maps the HTTP status of a refusal to a gRPC status code.
func grpcCode(httpStatus int) codes.Code {
	switch httpStatus {
	case http.StatusBadRequest:
		return codes.InvalidArgument
	case http.StatusUnauthorized:
		return codes.Unauthenticated
	case http.StatusForbidden:
		return codes.PermissionDenied
	case http.StatusNotFound:
		return codes.NotFound
	case http.StatusConflict:
		return codes.AlreadyExists
	case http.StatusGone:
		return codes.FailedPrecondition
	case http.StatusRequestEntityTooLarge, http.StatusTooManyRequests:
		return codes.ResourceExhausted
	case http.StatusGatewayTimeout:
		return codes.DeadlineExceeded
	case http.StatusServiceUnavailable:
		return codes.Unavailable
	}
	return codes.Internal
}
