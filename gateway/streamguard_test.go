package gateway

import (
	"context"
	"crypto/rand"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/status"

	"github.com/moltgate/moltgate/gateway/face/wsface"
	"github.com/moltgate/moltgate/gateway/pipeline"
	"github.com/moltgate/moltgate/handshake"
	"github.com/moltgate/moltgate/identity"
	"github.com/moltgate/moltgate/internal/grpcconn"
	"github.com/moltgate/moltgate/internal/wsconn"
	"github.com/moltgate/moltgate/localbridge"
	"github.com/moltgate/moltgate/wire"
)

// TestStreamFacesNeedAHandshake: a WebSocket or gRPC stream that has made
// no session within the handshake timeout is ended, whatever it sends
// meanwhile (here pings, or nothing), so that it cannot hold its slot
// under max_connections for ever; and the refusals of the junk it sends
// before are signed once they are many, not one signature a frame.
func TestStreamFacesNeedAHandshake(t *testing.T) {
	// The timeout is short, but not so short that a loaded machine cannot
	// make a session within it; the junk goes to a gateway of the default
	// timeout, so that answering it is not a race against the clock.
	const timeout = 2 * time.Second
	junk := newFaceRig(t)
	r := newFaceRig(t, func(s *Server) { s.cfg.Security.HandshakeTimeout = Duration(timeout) })
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	dialWS := func(r *faceRig) *websocket.Conn {
		d := websocket.Dialer{TLSClientConfig: r.tls}
		ws, resp, err := d.DialContext(ctx, "wss"+strings.TrimPrefix(r.peer.Endpoint, "https")+"/moltspeak/v0.1/stream", nil)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return ws
	}
	ws := dialWS(junk)
	defer ws.Close()
	replies := map[string]bool{}
	for range 50 {
		if err := ws.WriteMessage(websocket.TextMessage, []byte("x")); err != nil {
			t.Fatal(err)
		}
	}
	for range 50 {
		_, b, err := ws.ReadMessage()
		if err != nil {
			t.Fatalf("the answers to junk: %v", err)
		}
		if env, err := junk.codec.DecodeEnvelope(b); err != nil || env.Message == nil || env.Message.Op != wire.OpError {
			t.Fatalf("an answer to junk that is not an error message: %v %.100s", err, b)
		}
		replies[string(b)] = true
	}
	if len(replies) > pipeline.UnreadDetailed+1 {
		t.Fatalf("%d signed refusals for 50 junk frames", len(replies))
	}
	ws.Close()
	// Pings keep nothing alive before the handshake.
	ws = dialWS(r)
	defer ws.Close()
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		for {
			select {
			case <-stop:
				return
			case <-time.After(250 * time.Millisecond): // within the face's ping limit
				ws.WriteControl(websocket.PingMessage, nil, time.Now().Add(time.Second))
			}
		}
	}()
	ws.SetReadDeadline(time.Now().Add(10 * time.Second))
	for {
		if _, _, err := ws.ReadMessage(); err != nil {
			if ne, ok := err.(interface{ Timeout() bool }); ok && ne.Timeout() {
				t.Fatal("a WebSocket without a handshake was still open after 10 s")
			}
			// Closed saying why, so that a gateway whose own end of the
			// handshake finished sends its calls again.
			if ce := (*websocket.CloseError)(nil); !errors.As(err, &ce) || ce.Code != wsconn.CloseNoSession {
				t.Fatalf("a WebSocket without a handshake ended with %v, want close code %d", err, wsconn.CloseNoSession)
			}
			break
		}
	}

	c := &faceClient{t: t, r: r, face: pipeline.FaceStream}
	c.grpcConn()
	defer c.close()
	st, err := c.cc.NewStream(ctx, &grpc.StreamDesc{StreamName: "Stream", ServerStreams: true, ClientStreams: true}, grpcconn.MethodStream)
	if err != nil {
		t.Fatal(err)
	}
	var b []byte
	if err := st.RecvMsg(&b); err == nil || ctx.Err() != nil {
		t.Fatalf("a gRPC stream without a handshake: %v (%v)", err, ctx.Err())
	} else if status.Code(err) != codes.DeadlineExceeded || !grpcconn.NoSession(st.Trailer()) {
		// Ended saying why, as the WebSocket is.
		t.Fatalf("a gRPC stream without a handshake ended with %v and trailer %v, want DeadlineExceeded and %s: %s", err, st.Trailer(), grpcconn.EndKey, grpcconn.EndNoSession)
	}

	// A connection that makes its session in time stays.
	ok, err := r.tryDial(ctx, t, pipeline.FaceWS)
	if err != nil {
		t.Fatal(err)
	}
	defer ok.close()
	ok.as = newSender(t, r.acme, "after")
	time.Sleep(timeout + timeout/2)
	if a := send(ctx, ok, ok.as, ok.as.ping()); a.code() != "" {
		t.Fatalf("a ping in a session past the handshake timeout: %s", a.code())
	}
}

// TestStrangersHellosLeaveThePeersBudget: hellos are limited per client
// address, but a stranger's do not use up the budget of a peer's gateway
// behind the same address.
func TestStrangersHellosLeaveThePeersBudget(t *testing.T) {
	r := newFaceRig(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	peerHS := r.hs
	gw, err := identity.Generate(rand.Reader, wire.Ref{Agent: GatewayAgent, Org: "initech"})
	if err != nil {
		t.Fatal(err)
	}
	gw.Signing = r.other.Signing
	cert, err := r.other.IssueIdentity(gw.Public(), time.Now().Add(-time.Minute), time.Now().Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	trust := identity.NewTrustStore()
	trust.Add("globex", r.peer.OrgKey)
	r.hs = &handshake.Config{Identity: gw, Cert: cert, Trust: trust, Codec: r.codec, Capabilities: []string{"tool.invoke"}}
	// Hellos go from 40 callers at once, each sending again as soon as it
	// is answered, until one is limited: the limit (a burst of 40, then 10
	// a second) is met whatever the speed of the machine, as long as it
	// handles more than 10 hellos a second, and the test waits for that, not
	// for a number of hellos sent in a time.
	var (
		limited atomic.Bool
		wg      sync.WaitGroup
		mu      sync.Mutex
		other   error
		sent    atomic.Int64
	)
	for range 40 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !limited.Load() && ctx.Err() == nil {
				sent.Add(1)
				_, err := r.tryDial(ctx, t, pipeline.FaceHTTP)
				switch pipeline.Code(err) {
				case wire.ErrAuthFailed:
				case wire.ErrTimeout:
					// Neither refused nor admitted: on a loaded machine a
					// hello among forty may outlive the handshake's
					// deadline. It is sent again.
				case wire.ErrRateLimit:
					limited.Store(true)
				default:
					if ctx.Err() == nil {
						mu.Lock()
						other = err
						mu.Unlock()
					}
					return
				}
			}
		}()
	}
	wg.Wait()
	if other != nil {
		t.Fatalf("a stranger's hello: %v", other)
	}
	if !limited.Load() {
		t.Fatalf("%d hellos of a stranger in %v were not limited", sent.Load(), 30*time.Second)
	}
	r.hs = peerHS
	c, err := r.tryDial(ctx, t, pipeline.FaceHTTP)
	if err != nil {
		t.Fatalf("the peer's handshake after a stranger's hellos from its address: %v", err)
	}
	c.close()
}

// TestSessionBoundToItsConnection: a session made on a WebSocket or a
// gRPC stream is taken on that connection only; a call sealed in it and
// sent on another face is refused.
func TestSessionBoundToItsConnection(t *testing.T) {
	r := newFaceRig(t)
	for _, face := range []string{pipeline.FaceWS, pipeline.FaceStream} {
		ctx, c, s := r.session(t, face, "bound-"+face)
		if a := send(ctx, c, s, s.ping()); a.code() != "" {
			t.Fatalf("%s: a ping on its own connection: %s", face, a.code())
		}
		for _, other := range []string{pipeline.FaceHTTP, pipeline.FaceGRPC, pipeline.FaceWS} {
			o := &faceClient{t: t, r: r, face: other, sess: c.sess, as: s}
			switch other {
			case pipeline.FaceGRPC:
				o.grpcConn()
			case pipeline.FaceWS:
				o2, err := r.tryDial(ctx, t, pipeline.FaceWS) // a connection with a session of its own
				if err != nil {
					t.Fatal(err)
				}
				o.ws = o2.ws
				defer o2.close()
			}
			m := s.ping()
			if a := o.send(ctx, sealed(t, c, s, m), m.ID); a.code() != wire.ErrAuthFailed {
				t.Fatalf("%s's session used on %s: %q, want E_AUTH_FAILED", face, other, a.code())
			}
			if other == pipeline.FaceGRPC {
				o.close()
			}
		}
	}
}

// TestGRPCStreamThatStopsReadingIsEnded: a peer that sends calls on a gRPC
// stream and never reads their replies fills the stream's window, after
// which the gateway's writes to it wait. Once one has waited the write
// timeout the stream is ended with its session, the calls on it let go of
// their slots, and another connection is answered all the while.
func TestGRPCStreamThatStopsReadingIsEnded(t *testing.T) {
	const timeout = time.Second
	r := newFaceRig(t, func(s *Server) { s.writeTimeout = timeout })
	ctx, c, _ := r.session(t, pipeline.FaceStream, "unread")
	_, other, os := r.session(t, pipeline.FaceStream, "reader")
	s := r.g.s

	// Streamed replies of 8 × 256 KiB, sealed, are twice the window.
	text := strings.Repeat("x", 4<<10)
	for i := range 8 {
		as := newSender(t, r.acme, fmt.Sprintf("unread-%d", i))
		env := sealed(t, c, as, as.tool("echo", `{"text":"`+text+`","repeat":64}`, wire.Conf))
		if err := c.st.SendMsg(&env); err != nil {
			t.Fatal(err)
		}
	}
	start := time.Now()
	// The calls are held up by the peer that does not read: they hold
	// their slots, but the gateway answers others meanwhile.
	within(t, 5*time.Second, "the unread calls in flight", func() bool { return s.flight.Count() > 0 })
	if a := send(ctx, other, os, os.ping()); a.code() != "" {
		t.Fatalf("a ping beside a stream that does not read: %s", a.code())
	}
	if _, ok := s.frames.Load(c.sess.ID()); !ok {
		t.Fatal("the stream was ended before its writes waited at all")
	}

	within(t, timeout+5*time.Second, "the end of the stream that does not read", func() bool {
		_, bound := s.frames.Load(c.sess.ID())
		_, err := s.sessions.Get(c.sess.ID())
		return !bound && err != nil
	})
	if d := time.Since(start); d < timeout/2 {
		t.Fatalf("the stream was ended %v after the calls, before the write timeout (%v)", d, timeout)
	}
	within(t, 5*time.Second, "the calls in flight to end", func() bool { return s.flight.Count() == 0 })
	if !strings.Contains(r.g.logs(), `"peer stopped reading its stream: the stream is ended","peer":"acme"`) {
		t.Fatalf("no warning naming the peer in the log:\n%s", r.g.logs())
	}
	if a := send(ctx, other, os, os.ping()); a.code() != "" {
		t.Fatalf("a ping after a stream that did not read was ended: %s", a.code())
	}

	// Reading now takes what was sent, and then the stream's end.
	rctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	go func() { <-rctx.Done(); c.stop() }()
	for {
		var b []byte
		if err := c.st.RecvMsg(&b); err != nil {
			if rctx.Err() != nil {
				t.Fatalf("the stream did not end for its reader: %v", err)
			}
			break
		}
	}
}

// within polls cond until it holds, failing the test after d.
func within(t *testing.T, d time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %v", what, d)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestGRPCPeerThatStopsReadingFailsTheCalls: a peer's gateway that takes
// the handshake on its gRPC stream and then reads nothing more fills the
// stream's window with the calls sent to it, after which writes wait. Once
// one has waited the write timeout the connection is closed, and no caller
// is held past its deadline by more than that.
func TestGRPCPeerThatStopsReadingFailsTheCalls(t *testing.T) {
	const timeout = time.Second
	da, la := newTestDir(t, "acme", AddAgentOptions{ID: "client", MaxCls: "pii"})
	db, lb := newTestDir(t, "globex", AddAgentOptions{ID: "echo", Capabilities: []string{"echo.text"}, QueryTool: "echo", MaxCls: "pii"})
	trustEachOther(t, da, db, "pii")
	acme := start(t, da, la, TransportGRPC, func(s *Server) { s.writeTimeout = timeout })

	globex, err := Open(Options{Dir: db, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { globex.Shutdown(context.Background()) })
	lb.HTTP.Close()
	gs := grpc.NewServer(grpc.Creds(credentials.NewTLS(&tls.Config{Certificates: []tls.Certificate{*globex.keys.Load().TLS}, MinVersion: tls.VersionTLS13})),
		grpc.ForceServerCodecV2(grpcconn.Codec{}), grpc.InitialWindowSize(grpcconn.Window), grpc.InitialConnWindowSize(grpcconn.Window))
	gs.RegisterService(&grpc.ServiceDesc{ServiceName: grpcconn.Service, HandlerType: (*any)(nil),
		Streams: []grpc.StreamDesc{{StreamName: "Stream", ServerStreams: true, ClientStreams: true, Handler: func(_ any, st grpc.ServerStream) error {
			for {
				var b []byte
				if err := st.RecvMsg(&b); err != nil {
					return err
				}
				reply, sess, err := globex.acceptor.Handle(st.Context(), b)
				if err != nil {
					return err
				}
				if reply != nil {
					if err := st.SendMsg(&reply); err != nil {
						return err
					}
				}
				if sess != nil {
					break
				}
			}
			<-st.Context().Done() // reads nothing more
			return nil
		}}}}, nil)
	go gs.Serve(lb.GRPC)
	t.Cleanup(gs.Stop)

	// 32 calls of 64 KiB each are twice the window.
	const deadline = 3 * time.Second
	input, _ := json.Marshal(map[string]string{"text": strings.Repeat("x", 64<<10)})
	errs := make(chan error, 32)
	start := time.Now()
	for range 32 {
		go func() {
			ctx, cancel := context.WithTimeout(context.Background(), deadline)
			defer cancel()
			_, err := acme.s.local.Query(ctx, localbridge.QueryRequest{From: "client", To: "echo@globex", Tool: "echo", Input: input}, nil)
			errs <- err
		}()
	}
	// A bound against a hang, not a measure: on a loaded machine the calls' own deadline and
	// the write timeout fire late (a whole run of the suite beside 10 busy loops saw them end
	// 9.8 s after they began), and what is under test is that they end, not how fast.
	hang := time.After(2 * time.Minute)
	for range 32 {
		select {
		case err := <-errs:
			if err == nil {
				t.Fatal("a call to a peer that reads nothing succeeded")
			}
		case <-hang:
			t.Fatalf("calls to a peer that does not read were still waiting %v after they began (deadline %v, write timeout %v)", time.Since(start), deadline, timeout)
		}
	}
	if !strings.Contains(acme.logs(), `"peer stopped reading the calls sent to it: the connection is closed","peer":"globex"`) {
		t.Fatalf("no warning naming the peer in the log:\n%s", acme.logs())
	}
}

// TestWebSocketPingFloodIsCutOff: a peer that sends pings as fast as it can
// after its handshake, each of which the gateway would answer with a pong,
// has its connection closed as a policy violation (1008), while another
// connection is answered.
func TestWebSocketPingFloodIsCutOff(t *testing.T) {
	r := newFaceRig(t)
	ctx, c, _ := r.session(t, pipeline.FaceWS, "flood")
	_, other, os := r.session(t, pipeline.FaceWS, "quiet")

	// Pings at a gateway's pace, and a few more, are answered.
	pongs := make(chan struct{}, 1000)
	c.ws.SetPongHandler(func(string) error { pongs <- struct{}{}; return nil })
	closed := make(chan error, 1)
	go func() {
		for {
			if _, _, err := c.ws.ReadMessage(); err != nil {
				closed <- err
				return
			}
		}
	}()
	for range wsface.DefaultPingBurst / 2 {
		if err := c.ws.WriteControl(websocket.PingMessage, []byte("p"), time.Now().Add(time.Second)); err != nil {
			t.Fatal(err)
		}
	}
	for range wsface.DefaultPingBurst / 2 {
		select {
		case <-pongs:
		case err := <-closed:
			t.Fatalf("the connection ended after a few pings: %v", err)
		case <-time.After(5 * time.Second):
			t.Fatal("no pong")
		}
	}

	stop := time.After(5 * time.Second)
flood:
	for {
		select {
		case err := <-closed:
			var ce *websocket.CloseError
			if !errors.As(err, &ce) || ce.Code != websocket.ClosePolicyViolation {
				t.Fatalf("a flood of pings ended with %v, want close 1008", err)
			}
			break flood
		case <-stop:
			t.Fatal("a flood of pings was still taken after 5 s")
		default:
		}
		c.ws.WriteControl(websocket.PingMessage, nil, time.Now().Add(time.Second))
	}
	if !strings.Contains(r.g.logs(), `"peer broke a limit of its stream connection: the connection is closed","peer":"acme"`) {
		t.Fatalf("no warning naming the peer in the log:\n%s", r.g.logs())
	}
	if a := send(ctx, other, os, os.ping()); a.code() != "" {
		t.Fatalf("a ping on another connection after a flood: %s", a.code())
	}
}

// TestWebSocketThatStopsReadingIsDropped: a peer that sends calls on a
// WebSocket and never reads their replies fills the connection's buffers;
// once a write has waited the write timeout the connection is closed, the
// operator is told which peer it was, and the calls on it let go of their
// slots.
func TestWebSocketThatStopsReadingIsDropped(t *testing.T) {
	const timeout = time.Second
	r := newFaceRig(t, func(s *Server) { s.writeTimeout = timeout })
	ctx, c, _ := r.session(t, pipeline.FaceWS, "unread")
	_, other, os := r.session(t, pipeline.FaceWS, "reader")
	s := r.g.s
	// A small receive buffer, so that a few replies fill it.
	tc, ok := c.ws.UnderlyingConn().(*tls.Conn)
	if !ok {
		t.Fatalf("the WebSocket runs over %T", c.ws.UnderlyingConn())
	}
	if err := tc.NetConn().(*net.TCPConn).SetReadBuffer(4096); err != nil {
		t.Fatal(err)
	}
	text := strings.Repeat("x", 4<<10)
	for i := range 16 {
		as := newSender(t, r.acme, fmt.Sprintf("unread-%d", i))
		env := sealed(t, c, as, as.tool("echo", `{"text":"`+text+`","repeat":64}`, wire.Conf))
		if err := c.ws.WriteMessage(websocket.TextMessage, env); err != nil {
			t.Fatal(err)
		}
	}
	// Each reply is 256 KiB through the gate, which a loaded machine takes
	// its time over: the test waits while the calls are still ending, and
	// fails only when nothing has moved for the write timeout and 10 s.
	last, moved := s.flight.Count(), time.Now()
	for {
		if _, bound := s.frames.Load(c.sess.ID()); !bound {
			break
		}
		if n := s.flight.Count(); n != last {
			last, moved = n, time.Now()
		}
		if time.Since(moved) > timeout+10*time.Second {
			t.Fatalf("the connection that does not read is still open, %d calls in flight, none ended for %v", last, timeout+10*time.Second)
		}
		time.Sleep(10 * time.Millisecond)
	}
	within(t, 5*time.Second, "the calls in flight to end", func() bool { return s.flight.Count() == 0 })
	const warning = `"level":"WARN","msg":"peer stopped reading its stream: the connection is closed","peer":"acme","face":"websocket"`
	within(t, 5*time.Second, "the warning", func() bool { return strings.Contains(r.g.logs(), warning) })
	if n := strings.Count(r.g.logs(), warning); n != 1 {
		t.Fatalf("%d warnings naming the peer in the log, want 1:\n%s", n, r.g.logs())
	}
	if a := send(ctx, other, os, os.ping()); a.code() != "" {
		t.Fatalf("a ping after a connection that did not read was dropped: %s", a.code())
	}
}
