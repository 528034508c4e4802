package gateway

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/bufbuild/protocompile"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/moltgate/moltgate/gateway/face/grpcface"
	"github.com/moltgate/moltgate/handshake"
	"github.com/moltgate/moltgate/internal/grpcconn"
	"github.com/moltgate/moltgate/wire"
)

// gatewayProto compiles proto/moltgate/v1/gateway.proto, as protoc or
// grpcurl would, and returns its service.
func gatewayProto(t *testing.T) protoreflect.ServiceDescriptor {
	t.Helper()
	c := protocompile.Compiler{Resolver: &protocompile.SourceResolver{ImportPaths: []string{"../proto"}}}
	files, err := c.Compile(context.Background(), grpcface.ProtoFile)
	if err != nil {
		t.Fatalf("proto/%s does not compile: %v", grpcface.ProtoFile, err)
	}
	services := files[0].Services()
	if services.Len() != 1 {
		t.Fatalf("proto/%s has %d services, want 1", grpcface.ProtoFile, services.Len())
	}
	return services.Get(0)
}

// TestProtoIsWhatTheServerRegisters: the service, its methods and which
// of them stream are the same in the .proto and in the gRPC face.
func TestProtoIsWhatTheServerRegisters(t *testing.T) {
	svc := gatewayProto(t)
	d, _ := newTestDir(t, "globex")
	s, err := Open(Options{Dir: d, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Shutdown(context.Background())
	infos := s.faces.grpc(nil).ServiceInfo()
	info, ok := infos[string(svc.FullName())]
	if !ok || len(infos) != 1 {
		t.Fatalf("the .proto's service is %s; the face registers %v", svc.FullName(), infos)
	}
	if info.Metadata != grpcface.ProtoFile {
		t.Errorf("the face names %v as its .proto, want %s", info.Metadata, grpcface.ProtoFile)
	}
	var fromProto, registered []string
	for i := range svc.Methods().Len() {
		m := svc.Methods().Get(i)
		fromProto = append(fromProto, methodShape(string(m.Name()), m.IsStreamingClient(), m.IsStreamingServer()))
	}
	for _, m := range info.Methods {
		registered = append(registered, methodShape(m.Name, m.IsClientStream, m.IsServerStream))
	}
	slices.Sort(fromProto)
	slices.Sort(registered)
	if !slices.Equal(fromProto, registered) {
		t.Fatalf("the .proto has %v, the face registers %v", fromProto, registered)
	}
	if got := "/" + string(svc.FullName()) + "/Stream"; got != grpcconn.MethodStream {
		t.Fatalf("the .proto's Stream is %s; gateways dial %s", got, grpcconn.MethodStream)
	}
}

func methodShape(name string, clientStream, serverStream bool) string {
	return name + map[bool]string{true: " client-stream", false: ""}[clientStream] + map[bool]string{true: " server-stream", false: ""}[serverStream]
}

// protoClient is a client of the .proto's messages, built at run time
// (dynamicpb) with gRPC's own protobuf codec, as generated stubs are.
type protoClient struct {
	svc   protoreflect.ServiceDescriptor
	field protoreflect.FieldDescriptor // Envelope.envelope
	cc    *grpc.ClientConn
}

func newProtoClient(t *testing.T, r *faceRig) *protoClient {
	t.Helper()
	svc := gatewayProto(t)
	in := svc.Methods().ByName("Send").Input()
	field := in.Fields().ByNumber(1)
	if field == nil || field.Kind() != protoreflect.BytesKind {
		t.Fatalf("%s has no bytes field 1", in.FullName())
	}
	target := strings.TrimPrefix(strings.TrimPrefix(r.peer.GRPC, "https://"), "http://")
	cc, err := grpc.NewClient(target, grpc.WithTransportCredentials(credentials.NewTLS(r.tls)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cc.Close() })
	return &protoClient{svc: svc, field: field, cc: cc}
}

func (p *protoClient) envelope(md protoreflect.MessageDescriptor, b []byte) *dynamicpb.Message {
	m := dynamicpb.NewMessage(md)
	m.Set(p.field, protoreflect.ValueOfBytes(b))
	return m
}

func (p *protoClient) method(name string) string {
	return "/" + string(p.svc.FullName()) + "/" + name
}

// protoStream carries a handshake, and then messages, over a Stream in
// the .proto's framing.
type protoStream struct {
	p  *protoClient
	st grpc.ClientStream
	md protoreflect.MethodDescriptor
}

func (s protoStream) Send(_ context.Context, b []byte) error {
	return s.st.SendMsg(s.p.envelope(s.md.Input(), b))
}

func (s protoStream) Receive(context.Context) ([]byte, error) {
	out := dynamicpb.NewMessage(s.md.Output())
	if err := s.st.RecvMsg(out); err != nil {
		return nil, err
	}
	return out.Get(s.p.field).Bytes(), nil
}

// TestProtoClientCallsTheGateway: a client built from the .proto alone
// calls Send (a ping answered with a pong; junk refused with its status
// and the signed error in the trailer) and Stream (a handshake and a
// call to an agent in the session it made).
func TestProtoClientCallsTheGateway(t *testing.T) {
	r := newFaceRig(t)
	p := newProtoClient(t, r)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s := newSender(t, r.acme, "proto")
	c := &faceClient{t: t, r: r, as: s}

	send := p.svc.Methods().ByName("Send")
	call := func(env []byte, opts ...grpc.CallOption) ([]byte, error) {
		out := dynamicpb.NewMessage(send.Output())
		err := p.cc.Invoke(ctx, p.method("Send"), p.envelope(send.Input(), env), out, opts...)
		return out.Get(p.field).Bytes(), err
	}
	// A handshake over Send calls, then a ping sealed in its session.
	sess, err := handshake.NewInitiator(r.hs, handshake.Peer{Ref: wire.Ref{Agent: GatewayAgent, Org: "globex"}, Key: r.peer.OrgKey}).
		Run(ctx, handshake.RoundTrip(func(_ context.Context, msg []byte) ([]byte, error) { return call(msg) }))
	if err != nil {
		t.Fatalf("handshake over Send in the .proto's framing: %v", err)
	}
	c.sess = sess
	reply, err := call(sealed(t, c, s, s.ping()))
	if err != nil {
		t.Fatalf("Send: %v", err)
	}
	var a faceAnswer
	if err := c.take(&a, reply); err != nil {
		t.Fatal(err)
	}
	if a.final == nil || a.final.Op != wire.OpPong {
		t.Fatalf("Send of a ping answered %+v", a.final)
	}

	var trailer metadata.MD
	_, err = call([]byte("MARKER junk"), grpc.Trailer(&trailer))
	if st, _ := status.FromError(err); st.Code() != codes.InvalidArgument || st.Message() != string(wire.ErrParse) {
		t.Fatalf("Send of junk: %v", err)
	}
	a = faceAnswer{}
	if refusal := trailer.Get(grpcconn.ErrorKey); len(refusal) != 1 || c.take(&a, []byte(refusal[0])) != nil || a.code() != wire.ErrParse {
		t.Fatalf("the refusal in the trailer: %q (%s)", trailer.Get(grpcconn.ErrorKey), a.code())
	}

	stream := p.svc.Methods().ByName("Stream")
	sctx, stop := context.WithCancel(ctx)
	defer stop()
	st, err := p.cc.NewStream(sctx, &grpc.StreamDesc{StreamName: "Stream", ClientStreams: true, ServerStreams: true}, p.method("Stream"))
	if err != nil {
		t.Fatal(err)
	}
	tr := protoStream{p: p, st: st, md: stream}
	sess, err = handshake.NewInitiator(r.hs, handshake.Peer{Ref: wire.Ref{Agent: GatewayAgent, Org: "globex"}, Key: r.peer.OrgKey}).Run(ctx, tr)
	if err != nil {
		t.Fatalf("handshake over a Stream in the .proto's framing: %v", err)
	}
	c.sess = sess
	m := s.tool("echo", `{"text":"framed","repeat":2}`, wire.Conf)
	if err := tr.Send(ctx, sealed(t, c, s, m)); err != nil {
		t.Fatal(err)
	}
	a = faceAnswer{}
	for a.final == nil {
		b, err := tr.Receive(ctx)
		if err != nil {
			t.Fatalf("Stream: %v", err)
		}
		if err := c.take(&a, b); err != nil {
			t.Fatal(err)
		}
	}
	if a.final.Op != wire.OpRespond || a.final.Re != m.ID || a.chunks == 0 {
		t.Fatalf("the call on the Stream answered %s re %s after %d chunks", a.final.Op, a.final.Re, a.chunks)
	}
	st.CloseSend()
	if _, err := tr.Receive(ctx); !errors.Is(err, io.EOF) {
		t.Fatalf("the Stream closed by the client ended with %v", err)
	}
}
