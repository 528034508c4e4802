package gateway

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/moltgate/moltgate/crypto"
	"github.com/moltgate/moltgate/gateway/face/frames"
	"github.com/moltgate/moltgate/gateway/pipeline"
	"github.com/moltgate/moltgate/handshake"
	"github.com/moltgate/moltgate/identity"
	"github.com/moltgate/moltgate/internal/grpcconn"
	"github.com/moltgate/moltgate/internal/wsconn"
	"github.com/moltgate/moltgate/wire"
)

// The cross-face conformance suite: one table of scenarios, each run over
// every face of a real gateway (HTTP message, HTTP batch, WebSocket, gRPC
// Send and gRPC Stream) by a client that speaks the protocol itself, with
// its own handshake on that face. Every face must give the same answer: the
// same error code, and the HTTP or gRPC status that code maps to.

// faceNames are the faces, in the order the suite runs them.
var faceNames = []string{pipeline.FaceHTTP, pipeline.FaceBatch, pipeline.FaceWS, pipeline.FaceGRPC, pipeline.FaceStream}

// faceRig is the gateway under test (globex, with an echo agent) and what a
// client of a peer organisation (acme) needs to speak to it.
type faceRig struct {
	t     *testing.T
	g     *testGateway
	peer  *Peer // globex, as acme imported it
	codec *wire.Codec
	tls   *tls.Config
	hs    *handshake.Config // acme's gateway side of handshakes
	acme  *identity.Org
	other *identity.Org // an organisation globex does not trust
	http  *http.Client
}

// setConfig rewrites one line of a gateway directory's configuration.
func setConfig(t testing.TB, d Dir, old, new string) {
	t.Helper()
	b, err := os.ReadFile(d.ConfigPath())
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(b, []byte(old)) {
		t.Fatalf("config has no %q", old)
	}
	if err := os.WriteFile(d.ConfigPath(), bytes.Replace(b, []byte(old), []byte(new), 1), 0o600); err != nil {
		t.Fatal(err)
	}
}

func newFaceRig(t *testing.T, opts ...func(*Server)) *faceRig {
	return newFaceRigOn(t, nil, opts...)
}

// newFaceRigOn is newFaceRig with globex's listeners passed through wrap,
// if not nil, before it serves on them.
func newFaceRigOn(t *testing.T, wrap func(*Listeners), opts ...func(*Server)) *faceRig {
	da, la := newTestDir(t, "acme")
	la.HTTP.Close()
	la.GRPC.Close()
	db, lb := newTestDir(t, "globex", AddAgentOptions{ID: "echo", Capabilities: []string{"echo.text"}, QueryTool: "echo", MaxCls: "pii"})
	trustEachOther(t, da, db, "pii")
	// A small bucket per sending agent, so that the rate scenario reaches
	// it; every other scenario sends as an agent of its own.
	setConfig(t, db, "agent_per_second = 50.0", "agent_per_second = 0.01")
	setConfig(t, db, "agent_burst = 100", "agent_burst = 3")
	// The suite compares the answers that faces give in their responses,
	// so the HTTP face holds a request for its reply until the request's
	// own deadline: at the default 10s wait a loaded machine gets a 202
	// (TestAcceptedNamesTheRequest covers that path).
	setConfig(t, db, `reply_wait = "10s"`, `reply_wait = "10m"`)
	if wrap != nil {
		wrap(lb)
	}
	r := &faceRig{t: t, g: start(t, db, lb, TransportWebSocket, opts...), codec: wire.NewCodec(wire.Limits{})}

	peers, err := LoadPeers(da, "acme")
	if err != nil || len(peers) != 1 {
		t.Fatalf("acme's peers: %v %v", peers, err)
	}
	r.peer = peers[0]
	if r.tls, err = pinnedClientTLS(r.peer.TLSPin, nil); err != nil {
		t.Fatal(err)
	}
	r.http = &http.Client{Transport: &http.Transport{TLSClientConfig: r.tls.Clone(), ForceAttemptHTTP2: true}, Timeout: 30 * time.Second}
	t.Cleanup(r.http.CloseIdleConnections)

	gw, err := LoadOrg(da, nil)
	if err != nil {
		t.Fatal(err)
	}
	r.acme = &identity.Org{Name: "acme", Signing: gw.Signing}
	now := time.Now()
	cert, err := r.acme.IssueIdentity(gw.Public(), now.Add(-time.Minute), now.Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	trust := identity.NewTrustStore()
	trust.Add("globex", r.peer.OrgKey)
	r.hs = &handshake.Config{Identity: gw, Cert: cert, Trust: trust, Codec: r.codec,
		Capabilities: []string{"query", "task", "stream", "tool.invoke", "consent", "registry"}}

	other, err := identity.Generate(rand.Reader, wire.Ref{Agent: GatewayAgent, Org: "initech"})
	if err != nil {
		t.Fatal(err)
	}
	r.other = &identity.Org{Name: "initech", Signing: other.Signing}
	return r
}

// session dials face for one test, with a sender of its own; the
// connection and the context end with the test.
func (r *faceRig) session(t *testing.T, face, name string) (context.Context, *faceClient, *sender) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	c := r.dial(ctx, t, face)
	t.Cleanup(c.close)
	c.t = t
	s := newSender(t, r.acme, name)
	c.as = s
	return ctx, c, s
}

// sender is an agent of a client organisation, with the capability
// certificate its org gives it to invoke tools.
type sender struct {
	id  *identity.Agent
	ext wire.Value
}

// newSender makes agent name of org, certified for tool.invoke.
func newSender(t *testing.T, org *identity.Org, name string) *sender {
	a, err := identity.Generate(rand.Reader, wire.Ref{Agent: name, Org: org.Name})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	cc, err := org.IssueCapability(a.Ref, a.Signing.Public(), "tool.invoke", now.Add(-time.Minute), now.Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	ext := wire.ObjectValue(wire.Member{Key: pipeline.ExtCapabilities, Value: wire.ObjectValue(
		wire.Member{Key: "certs", Value: wire.ArrayValue(cc.Value())})})
	return &sender{id: a, ext: ext}
}

// tool builds a call of the echo agent's tool from s.
func (s *sender) tool(tool, input string, cls wire.Class) *wire.Message {
	in, err := wire.Parse([]byte(input), 0)
	if err != nil {
		panic(err)
	}
	return &wire.Message{V: wire.Version, ID: pipeline.NewMessageID(rand.Reader), TS: time.Now().UnixMilli(), Op: wire.OpTool,
		From: s.id.Sender(), To: wire.Ref{Agent: "echo", Org: "globex"}, Cls: cls,
		Payload: &wire.ToolPayload{Action: "invoke", Tool: tool, Input: in}, Cap: []string{"tool.invoke"}, Ext: s.ext}
}

func (s *sender) ping() *wire.Message {
	return &wire.Message{V: wire.Version, ID: pipeline.NewMessageID(rand.Reader), TS: time.Now().UnixMilli(), Op: wire.OpPing,
		From: s.id.Sender(), To: wire.Ref{Agent: "echo", Org: "globex"}, Cls: wire.Pub,
		Payload: &wire.PingPayload{Nonce: "n1"}}
}

// faceAnswer is what a face answered to one envelope.
type faceAnswer struct {
	final      *wire.Message         // the respond, pong or error that ends the answer
	raw        []byte                // the final envelope as received
	chunks     int                   // stream chunks before it
	stream     []*wire.StreamPayload // the stream messages before it, start and end included
	status     int                   // HTTP status (HTTP message and batch faces); 0 elsewhere
	grpc       *codes.Code           // gRPC status (Send); nil elsewhere
	retryAfter string                // Retry-After header (HTTP faces)
}

func (a faceAnswer) code() wire.Code {
	if a.final != nil && a.final.Op == wire.OpError {
		if p, ok := a.final.Payload.(*wire.ErrorPayload); ok {
			return p.Code
		}
	}
	return ""
}

// faceClient is one connection to one face, with the session its own
// handshake made on that face.
type faceClient struct {
	t    *testing.T
	r    *faceRig
	as   *sender // whose box-sealed replies this client opens
	face string
	sess *handshake.Session
	ws   *websocket.Conn
	cc   *grpc.ClientConn
	st   grpc.ClientStream
	stop context.CancelFunc
}

// dial connects to face and runs a handshake on it.
func (r *faceRig) dial(ctx context.Context, t *testing.T, face string) *faceClient {
	t.Helper()
	c, err := r.tryDial(ctx, t, face)
	if err != nil {
		t.Fatalf("handshake on %s: %v", face, err)
	}
	return c
}

// tryDial is dial, returning the handshake's failure.
func (r *faceRig) tryDial(ctx context.Context, t *testing.T, face string) (*faceClient, error) {
	t.Helper()
	c := &faceClient{t: t, r: r, face: face}
	var tr handshake.Transport
	switch face {
	case pipeline.FaceHTTP, pipeline.FaceBatch, pipeline.FaceGRPC:
		if face == pipeline.FaceGRPC {
			c.grpcConn()
		}
		tr = handshake.RoundTrip(func(ctx context.Context, msg []byte) ([]byte, error) {
			a, err := c.exchange(ctx, msg)
			return a, err
		})
	case pipeline.FaceWS:
		u := "wss" + strings.TrimPrefix(r.peer.Endpoint, "https") + "/moltspeak/v0.1/stream"
		d := websocket.Dialer{TLSClientConfig: r.tls, HandshakeTimeout: 5 * time.Second}
		ws, resp, err := d.DialContext(ctx, u, nil)
		if err != nil {
			t.Fatalf("dial %s: %v", u, err)
		}
		resp.Body.Close()
		c.ws = ws
		tr = wsconn.Transport{C: ws}
	case pipeline.FaceStream:
		c.grpcConn()
		sctx, cancel := context.WithCancel(context.Background())
		st, err := c.cc.NewStream(sctx, &grpc.StreamDesc{StreamName: "Stream", ServerStreams: true, ClientStreams: true}, grpcconn.MethodStream)
		if err != nil {
			cancel()
			t.Fatal(err)
		}
		c.st, c.stop = st, cancel
		tr = grpcconn.Transport{Stream: st}
	}
	sess, err := handshake.NewInitiator(r.hs, handshake.Peer{Ref: wire.Ref{Agent: GatewayAgent, Org: "globex"}, Key: r.peer.OrgKey}).Run(ctx, tr)
	if err != nil {
		c.close()
		return nil, err
	}
	if c.ws != nil {
		c.ws.SetReadDeadline(time.Time{})
		c.ws.SetWriteDeadline(time.Time{})
	}
	c.sess = sess
	return c, nil
}

func (c *faceClient) grpcConn() {
	target := strings.TrimPrefix(strings.TrimPrefix(c.r.peer.GRPC, "https://"), "http://")
	cc, err := grpc.NewClient(target, grpc.WithTransportCredentials(credentials.NewTLS(c.r.tls)),
		grpc.WithDefaultCallOptions(grpc.ForceCodecV2(grpcconn.Codec{}), grpc.MaxCallRecvMsgSize(8<<20)))
	if err != nil {
		c.t.Fatal(err)
	}
	c.cc = cc
}

func (c *faceClient) close() {
	if c.ws != nil {
		c.ws.Close()
	}
	if c.stop != nil {
		c.stop()
	}
	if c.cc != nil {
		c.cc.Close()
	}
}

// exchange sends one handshake message on a request/response face and
// returns the reply body.
func (c *faceClient) exchange(ctx context.Context, msg []byte) ([]byte, error) {
	a, err := c.roundTrip(ctx, msg)
	if err != nil {
		return nil, err
	}
	return a.raw, nil
}

// send sends one envelope whose message has id, and reads the answer up
// to its final message.
func (c *faceClient) send(ctx context.Context, env []byte, id string) faceAnswer {
	c.t.Helper()
	var a faceAnswer
	var err error
	switch c.face {
	case pipeline.FaceHTTP, pipeline.FaceBatch, pipeline.FaceGRPC:
		a, err = c.roundTrip(ctx, env)
	case pipeline.FaceWS, pipeline.FaceStream:
		a, err = c.stream(ctx, env, id)
	}
	if err != nil {
		c.t.Fatalf("%s: %v", c.face, err)
	}
	return a
}

// roundTrip is one request on the HTTP message face (asking for a streamed
// reply), the batch face (a batch of one) or gRPC Send.
func (c *faceClient) roundTrip(ctx context.Context, env []byte) (faceAnswer, error) {
	var a faceAnswer
	switch c.face {
	case pipeline.FaceHTTP:
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, c.r.peer.Endpoint+"/moltspeak/v0.1/message", bytes.NewReader(env))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", frames.ContentNDJSON)
		resp, err := c.r.http.Do(req)
		if err != nil {
			return a, err
		}
		defer resp.Body.Close()
		a.status, a.retryAfter = resp.StatusCode, resp.Header.Get("Retry-After")
		br := bufio.NewReader(resp.Body)
		for {
			line, err := br.ReadBytes('\n')
			if line = bytes.TrimSpace(line); len(line) > 0 {
				if err := c.take(&a, line); err != nil {
					return a, err
				}
			}
			if err == io.EOF {
				return a, nil
			}
			if err != nil {
				return a, err
			}
		}
	case pipeline.FaceBatch:
		body := append(append([]byte{'['}, env...), ']')
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, c.r.peer.Endpoint+"/moltspeak/v0.1/batch", bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		resp, err := c.r.http.Do(req)
		if err != nil {
			return a, err
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		if err != nil {
			return a, err
		}
		a.status, a.retryAfter = resp.StatusCode, resp.Header.Get("Retry-After")
		if resp.StatusCode != http.StatusOK {
			// The batch as a whole was refused; its body is the error.
			return a, c.take(&a, b)
		}
		var items []struct {
			Status int             `json:"status"`
			Reply  json.RawMessage `json:"reply"`
		}
		if err := json.Unmarshal(b, &items); err != nil || len(items) != 1 {
			return a, fmt.Errorf("batch answer %q: %v", b, err)
		}
		a.status = items[0].Status
		if len(items[0].Reply) == 0 {
			return a, nil
		}
		return a, c.take(&a, items[0].Reply)
	case pipeline.FaceGRPC:
		var out []byte
		var trailer metadata.MD
		err := c.cc.Invoke(ctx, grpcconn.MethodSend, &env, &out, grpc.Trailer(&trailer))
		code := status.Code(err)
		a.grpc = &code
		if err != nil {
			if code == codes.Unavailable || code == codes.Canceled {
				return a, err
			}
			if v := trailer.Get(grpcconn.ErrorKey); len(v) > 0 {
				return a, c.take(&a, []byte(v[0]))
			}
			return a, nil
		}
		if len(out) == 0 {
			return a, nil
		}
		return a, c.take(&a, out)
	}
	return a, errors.New("not a request/response face")
}

// stream sends env on the WebSocket or the gRPC stream and reads until the
// final message for id, or an error that answers no message (the face could
// not open what it got).
func (c *faceClient) stream(ctx context.Context, env []byte, id string) (faceAnswer, error) {
	var a faceAnswer
	var err error
	if c.ws != nil {
		err = c.ws.WriteMessage(websocket.TextMessage, env)
	} else {
		err = c.st.SendMsg(&env)
	}
	if err != nil {
		return a, err
	}
	for {
		var b []byte
		if c.ws != nil {
			d, _ := ctx.Deadline()
			c.ws.SetReadDeadline(d)
			_, b, err = c.ws.ReadMessage()
		} else {
			err = c.st.RecvMsg(&b)
		}
		if err != nil {
			return a, err
		}
		if err := c.take(&a, b); err != nil {
			return a, err
		}
		if a.final != nil && (a.final.Re == id || a.final.Re == "") {
			return a, nil
		}
		a.final = nil
	}
}

// take opens one envelope of an answer: sealed in the session, or a bare
// error signed by globex's org key. A stream message is counted; anything
// else is the final message.
func (c *faceClient) take(a *faceAnswer, b []byte) error {
	env, err := c.r.codec.DecodeEnvelope(b)
	if err != nil {
		return fmt.Errorf("answer is not an envelope: %v: %.200s", err, b)
	}
	var m *wire.Message
	if env.Algorithm == wire.AlgSession {
		if c.sess == nil {
			return errors.New("session envelope before the session")
		}
		if m, err = c.sess.Open(env); err != nil {
			return fmt.Errorf("open answer: %v", err)
		}
	} else if env.Encrypted {
		if c.as == nil {
			return fmt.Errorf("sealed answer for no one: %.200s", b)
		}
		op := &crypto.Opener{Codec: c.r.codec, Box: crypto.NewBox(c.as.id.Encryption, 0), Accept: crypto.AcceptRef(c.as.id.Ref)}
		if m, err = op.OpenEnvelope(env); err != nil {
			return fmt.Errorf("open sealed answer: %v", err)
		}
	} else {
		m = env.Message
		if err := crypto.VerifyWith(m, c.r.peer.OrgKey); err != nil && m.Op == wire.OpError {
			return fmt.Errorf("error answer not signed by globex: %v", err)
		}
	}
	if m.Op == wire.OpStream {
		a.stream = append(a.stream, m.Payload.(*wire.StreamPayload))
		if a.stream[len(a.stream)-1].Action == "chunk" {
			a.chunks++
		}
		return nil
	}
	a.final, a.raw = m, b
	return nil
}

// scenario is one row of the suite: what the client sends on a fresh
// connection, and the error code every face must answer with ("" for
// success).
type scenario struct {
	name string
	code wire.Code
	run  func(ctx context.Context, t *testing.T, r *faceRig, c *faceClient, s *sender) faceAnswer
	// check, if set, looks further at one face's answer.
	check func(t *testing.T, r *faceRig, face string, a faceAnswer)
	// fresh asks for a connection and session of the scenario's own;
	// others share one per face.
	fresh bool
}

// sealed signs m as s and seals it in c's session.
func sealed(t *testing.T, c *faceClient, s *sender, m *wire.Message) []byte {
	t.Helper()
	b, err := c.sess.SignAndSeal(m, s.id.Signing)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// boxed signs m as s and seals it to globex's gateway key, outside any
// session.
func boxed(t *testing.T, r *faceRig, s *sender, m *wire.Message) []byte {
	t.Helper()
	m.To = wire.Ref{Agent: m.To.Agent, Org: "globex"}
	b, err := crypto.SealMessage(r.codec, m, s.id.Signing, crypto.NewBox(s.id.Encryption, 0), r.peer.EncKey)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// send signs m as s, seals it in c's session and sends it.
func send(ctx context.Context, c *faceClient, s *sender, m *wire.Message) faceAnswer {
	return c.send(ctx, sealed(c.t, c, s, m), m.ID)
}
