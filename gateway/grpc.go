package gateway

import (
	"context"
	"net/http"
	"time"

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
	"github.com/moltgate/moltgate/internal/wsconn"
)

type grpcHandler interface{}

func (s *Server) grpcServer(creds credentials.TransportCredentials) *grpc.Server {
	opts := []grpc.ServerOption{
		grpc.ForceServerCodecV2(grpcconn.Codec{}),
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
		grpc.KeepaliveParams(keepalive.ServerParameters{Time: wsconn.PingEvery, Timeout: grpcconn.PingTimeout, MaxConnectionIdle: s.cfg.Listen.IdleTimeout.D()}),
		grpc.KeepaliveEnforcementPolicy(keepalive.EnforcementPolicy{MinTime: 10 * time.Second, PermitWithoutStream: true}),
		grpc.ConnectionTimeout(s.cfg.Listen.ReadHeaderTimeout.D()),
		grpc.InitialWindowSize(grpcconn.Window),
		grpc.InitialConnWindowSize(grpcconn.Window),
	}
	if creds != nil {
		opts = append(opts, grpc.Creds(creds))
	}
	g := grpc.NewServer(opts...)
	g.RegisterService(&grpc.ServiceDesc{
		ServiceName: grpcconn.Service,
		HandlerType: (*grpcHandler)(nil),
		Methods: []grpc.MethodDesc{{MethodName: "Send", Handler: func(_ any, ctx context.Context, dec func(any) error, _ grpc.UnaryServerInterceptor) (any, error) {
			var in []byte
			if err := dec(&in); err != nil {
				return nil, err
			}
			a := s.pipe.Handle(ctx, pipeline.Origin{Face: pipeline.FaceGRPC, Remote: remoteOf(ctx)}, in, nil)
			if a.Code != "" {
				if a.Body != nil {
					grpc.SetTrailer(ctx, metadata.Pairs(grpcconn.ErrorKey, string(a.Body)))
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
	w := grpcconn.NewWriter(stream.SendMsg, s.writeTimeout, func() { stall(frames.ErrWriteStalled) })
	send := func(b []byte) error { return w.Send(ctx, b) }
	recv := func() ([]byte, error) {
		// Given back once handled (package frames): the pipeline
		// decodes from copies.
		var in grpcconn.Frame
		err := stream.RecvMsg(&in)
		return in, err
	}
	if s.frames.Serve(ctx, &pipeline.Origin{Face: pipeline.FaceStream, Remote: remoteOf(ctx)}, recv, send, nil) == frames.EndStalled {
		return status.Error(codes.ResourceExhausted, "replies not read within the write timeout")
	}
	return nil
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
