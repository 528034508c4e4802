// Package grpcface is the gateway's gRPC face: the service
// moltgate.v1.Gateway, with a unary Send (one envelope in, the reply
// envelope out) and a bidirectional Stream (envelopes both ways, framed as
// on the WebSocket by package frames), which proto/moltgate/v1/gateway.proto
// describes. A message is an envelope's bytes, either raw (what gateways
// send each other, with a codec that passes them through) or as that
// file's protobuf message Envelope, whose one field holds them (what
// grpcurl and generated clients send); each call is answered in the
// framing it came in.
package grpcface

import (
	"context"
	"crypto/tls"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"time"

	"golang.org/x/net/netutil"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/keepalive"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/peer"
	"google.golang.org/grpc/status"

	"github.com/moltgate/moltgate/gateway/face/frames"
	"github.com/moltgate/moltgate/gateway/pipeline"
	"github.com/moltgate/moltgate/internal/grpcconn"
	"github.com/moltgate/moltgate/internal/sockio"
	"github.com/moltgate/moltgate/internal/wsconn"
)

// ErrServerClosed is what Serve returns after Shutdown.
var ErrServerClosed = errors.New("grpcface: server closed")

// Pipeline takes envelopes through the gateway's checks and routes them
// (*pipeline.Pipeline).
type Pipeline interface {
	Handle(ctx context.Context, o pipeline.Origin, body []byte, emit func([]byte) error) pipeline.Answer
	EnvelopeLimit() int
}

// Frames runs the pipeline over one stream (*frames.Conns).
type Frames interface {
	Serve(ctx, quitting context.Context, o *pipeline.Origin, recv func() ([]byte, error), send func([]byte) error, interrupt func()) frames.End
}

// Config is what the face needs. Pipeline, Frames and Log are required;
// every other field has the default it states.
type Config struct {
	Pipeline Pipeline
	Frames   Frames
	Log      *slog.Logger
	// TLS, if set, is the listener's TLS configuration. Default plain
	// HTTP/2.
	TLS *tls.Config
	// MaxConnections bounds the connections served at once; more wait to
	// be accepted. Default 1024.
	MaxConnections int
	// MaxStreams bounds the calls one connection has open at once. A
	// peer's gateway holds one Stream; Send calls beyond this wait their
	// turn at the client. Default 100.
	MaxStreams int
	// MaxFrame is the largest message read whole. Up to it, an envelope
	// over the limit reaches the pipeline, which refuses it with
	// E_TOO_LARGE as the HTTP face does; beyond it the call ends with
	// ResourceExhausted without reading more. Default twice the envelope
	// limit.
	MaxFrame int
	// IdleTimeout closes a connection with no call open that long, as the
	// HTTP face closes idle connections. Default 2m.
	IdleTimeout time.Duration
	// ConnectionTimeout bounds a new connection's handshakes. Default 5s.
	ConnectionTimeout time.Duration
	// WriteTimeout is how long a write to a Stream may wait for the peer
	// to read before the stream is ended. Default 10s.
	WriteTimeout time.Duration
}

// Face is the gRPC face. Make it with New.
type Face struct {
	cfg      Config
	g        *grpc.Server
	quitting context.Context
	quit     context.CancelFunc

	mu     sync.Mutex
	closed bool
}

type service interface{}

// New makes the face.
func New(cfg Config) *Face {
	if cfg.MaxConnections <= 0 {
		cfg.MaxConnections = 1024
	}
	if cfg.MaxStreams <= 0 {
		cfg.MaxStreams = 100
	}
	if cfg.MaxFrame <= 0 {
		cfg.MaxFrame = 2 * cfg.Pipeline.EnvelopeLimit()
	}
	if cfg.IdleTimeout <= 0 {
		cfg.IdleTimeout = 2 * time.Minute
	}
	if cfg.ConnectionTimeout <= 0 {
		cfg.ConnectionTimeout = 5 * time.Second
	}
	if cfg.WriteTimeout <= 0 {
		cfg.WriteTimeout = wsconn.WriteTimeout
	}
	f := &Face{cfg: cfg}
	f.quitting, f.quit = context.WithCancel(context.Background())
	opts := []grpc.ServerOption{
		grpc.ForceServerCodecV2(grpcconn.Codec{}),
		grpc.MaxRecvMsgSize(cfg.MaxFrame),
		// The protobuf framing adds a few bytes to an envelope.
		grpc.MaxSendMsgSize(cfg.Pipeline.EnvelopeLimit() + protoOverhead),
		// Each open stream costs the gateway goroutines and buffers, so a
		// connection may not open a thousand.
		grpc.MaxConcurrentStreams(uint32(cfg.MaxStreams)),
		grpc.MaxHeaderListSize(64 << 10),
		// A connection with no stream open for the idle timeout is closed:
		// otherwise it holds its slot under MaxConnections for ever by
		// answering pings.
		grpc.KeepaliveParams(keepalive.ServerParameters{Time: wsconn.PingEvery, Timeout: grpcconn.PingTimeout, MaxConnectionIdle: cfg.IdleTimeout}),
		grpc.KeepaliveEnforcementPolicy(keepalive.EnforcementPolicy{MinTime: 10 * time.Second, PermitWithoutStream: true}),
		grpc.ConnectionTimeout(cfg.ConnectionTimeout),
		grpc.InitialWindowSize(grpcconn.Window),
		grpc.InitialConnWindowSize(grpcconn.Window),
	}
	if cfg.TLS != nil {
		opts = append(opts, grpc.Creds(credentials.NewTLS(cfg.TLS)))
	}
	f.g = grpc.NewServer(opts...)
	f.g.RegisterService(&grpc.ServiceDesc{
		ServiceName: grpcconn.Service,
		HandlerType: (*service)(nil),
		Methods:     []grpc.MethodDesc{{MethodName: "Send", Handler: f.send}},
		Streams:     []grpc.StreamDesc{{StreamName: "Stream", ServerStreams: true, ClientStreams: true, Handler: f.stream}},
		Metadata:    ProtoFile,
	}, f)
	return f
}

// ServiceInfo is what the face registers: its service, with each method
// and whether it streams.
func (f *Face) ServiceInfo() map[string]grpc.ServiceInfo { return f.g.GetServiceInfo() }

// Serve accepts connections on l, at most MaxConnections at once, until
// Shutdown; then it returns ErrServerClosed.
func (f *Face) Serve(l net.Listener) error {
	f.mu.Lock()
	closed := f.closed
	f.mu.Unlock()
	if closed {
		l.Close()
		return ErrServerClosed
	}
	err := f.g.Serve(netutil.LimitListener(grpcconn.Listener{Listener: sockio.Listener{Listener: l}}, f.cfg.MaxConnections))
	f.mu.Lock()
	closed = f.closed
	f.mu.Unlock()
	if closed && (err == nil || errors.Is(err, grpc.ErrServerStopped)) {
		return ErrServerClosed
	}
	return err
}

// Shutdown stops accepting and stops each Stream reading; the calls in
// progress are answered (a Stream writes the answers to what it had read)
// and end, until ctx ends, when those left are cut off.
func (f *Face) Shutdown(ctx context.Context) error {
	f.mu.Lock()
	f.closed = true
	f.mu.Unlock()
	f.quit()
	done := make(chan struct{})
	go func() { f.g.GracefulStop(); close(done) }()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		f.g.Stop()
		return ctx.Err()
	}
}

// send is Send: one envelope in, the reply envelope out. A refusal is a
// status whose message is the error code, with the signed error envelope
// in the trailer grpcconn.ErrorKey.
func (f *Face) send(_ any, ctx context.Context, dec func(any) error, _ grpc.UnaryServerInterceptor) (any, error) {
	var in []byte
	if err := dec(&in); err != nil {
		return nil, err
	}
	env, framed := fromProto(in)
	if !framed {
		env = in
	}
	a := f.cfg.Pipeline.Handle(ctx, pipeline.Origin{Face: pipeline.FaceGRPC, Remote: remoteOf(ctx)}, env, nil)
	if a.Code != "" {
		if a.Body != nil {
			grpc.SetTrailer(ctx, metadata.Pairs(grpcconn.ErrorKey, string(a.Body)))
		}
		return nil, status.Error(Code(a.Status), string(a.Code))
	}
	out := a.Body
	if framed {
		out = toProto(out)
	} else if out == nil {
		out = []byte{}
	}
	return &out, nil
}

// stream handles one bidirectional Stream as the WebSocket face handles a
// connection. A peer that stops reading its replies has the stream ended
// once a write has waited the write timeout for it, as the WebSocket face
// drops such a connection: returning resets the stream, which fails the
// write and those queued behind it.
func (f *Face) stream(_ any, stream grpc.ServerStream) error {
	ctx, stall := context.WithCancelCause(stream.Context())
	defer stall(nil)
	w := grpcconn.NewWriter(stream.SendMsg, f.cfg.WriteTimeout, func() { stall(frames.ErrWriteStalled) })
	// The first message says how the stream frames its envelopes; every
	// answer is framed the same way, and so must every later message be.
	var (
		first  sync.Once
		framed bool
	)
	send := func(b []byte) error {
		if framed {
			b = toProto(b)
		}
		return w.Send(ctx, b)
	}
	recv := func() ([]byte, error) {
		// Given back once handled (package frames): the pipeline
		// decodes from copies.
		var in grpcconn.Frame
		if err := stream.RecvMsg(&in); err != nil {
			return nil, err
		}
		first.Do(func() { _, framed = fromProto(in) })
		if framed {
			return unframeInPlace(in), nil
		}
		return in, nil
	}
	switch f.cfg.Frames.Serve(ctx, f.quitting, &pipeline.Origin{Face: pipeline.FaceStream, Remote: remoteOf(ctx)}, recv, send, nil) {
	case frames.EndStalled:
		return status.Error(codes.ResourceExhausted, "replies not read within the write timeout")
	case frames.EndNoSession:
		// The dialling gateway may have finished its end of the handshake
		// and sent calls already, which were never acted on: the trailer
		// tells it they may go again in a new session (a stream ended
		// with no word looks like a lost connection, which loses them).
		stream.SetTrailer(metadata.Pairs(grpcconn.EndKey, grpcconn.EndNoSession))
		return status.Error(codes.DeadlineExceeded, "no session was made in time")
	}
	return nil
}

func remoteOf(ctx context.Context) string {
	if p, ok := peer.FromContext(ctx); ok && p.Addr != nil {
		return p.Addr.String()
	}
	return ""
}

// Code maps the HTTP status of a refusal to a gRPC status code.
func Code(httpStatus int) codes.Code {
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
