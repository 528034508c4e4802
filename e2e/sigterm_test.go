package e2e

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"

	"github.com/moltgate/moltgate/crypto"
	"github.com/moltgate/moltgate/internal/grpcconn"
	"github.com/moltgate/moltgate/wire"
)

// TestSIGTERMUnderLoad sends SIGTERM to a `moltgate serve` loaded on each
// face at once (HTTPS posts, WebSocket streams, gRPC streams, several
// callers each), round after round, and holds every request to one of two
// outcomes: its whole answer, which opens and verifies, or a connection
// error before any byte of it. A truncated or garbled answer fails at once.
// An answer lost after the gateway accepted the request fails too: every
// request that got no answer is sent again, unchanged, to the restarted
// gateway, whose replay window outlives the restart; had the gateway
// recorded its id before (accepted it), that is E_REPLAY, and the test
// fails. The process must exit 0 each time.
func TestSIGTERMUnderLoad(t *testing.T) {
	needProcesses(t)
	acme, globex := newOrg(t, "acme", "client"), newOrg(t, "globex", "echo")
	trust(t, acme, globex, "pii")
	trust(t, globex, acme, "pii")
	// The load is many pings from a few senders: limits would only turn
	// them into refusals, which are whole answers too but accept nothing.
	globex.set("peer_org_per_second = 200.0", "peer_org_per_second = 100000.0")
	globex.set("peer_org_burst = 400", "peer_org_burst = 100000")
	globex.set("agent_per_second = 50.0", "agent_per_second = 100000.0")
	globex.set("agent_burst = 100", "agent_burst = 100000")
	const rounds = 10
	var unanswered []sent // of the previous round, to send again
	var total, answeredTotal, lostChecked int
	for round := range rounds + 1 {
		globex.start()
		client := globex.https()
		for _, u := range unanswered {
			u.p.client = client
			switch a := u.p.post(u.env); {
			case a.code() == wire.ErrReplay:
				t.Fatalf("round %d: a request the gateway accepted before SIGTERM got no answer (sent again, it is a replay)", round-1)
			case a.status != http.StatusOK || a.reply.Op != wire.OpPong:
				t.Fatalf("round %d: a request left unanswered, sent again: %d %q", round-1, a.status, a.code())
			}
			lostChecked++
		}
		if round == rounds {
			break
		}
		r := loadAndTerminate(t, acme, globex, round)
		total += r.sent
		answeredTotal += r.answered
		unanswered = r.unanswered
		if err := globex.wait(60 * time.Second); err != nil {
			t.Fatalf("round %d: the gateway exited with %v after SIGTERM", round, err)
		}
	}
	t.Logf("%d rounds: %d requests, %d answered whole, %d unanswered and then found never accepted", rounds, total, answeredTotal, lostChecked)
}

// roundResult is what the callers of one round saw.
type roundResult struct {
	sent, answered int
	unanswered     []sent // requests with a connection error and no answer
}

// sent is a request and who sent it, who alone can open its answer.
type sent struct {
	p   *rawPeer
	env []byte
}

// loadCaller is one client of globex's faces, as an agent of acme.
type loadCaller struct {
	t    *testing.T
	p    *rawPeer
	face string

	mu         sync.Mutex
	pending    map[string][]byte // by message id: sent, not answered
	sent       int
	answered   atomic.Int64
	unanswered []sent
	bad        error // a truncated or garbled answer
}

func (c *loadCaller) fail(err error) {
	c.mu.Lock()
	if c.bad == nil {
		c.bad = err
	}
	c.mu.Unlock()
}

// open opens one answer; any answer that is not whole and genuine fails.
func (c *loadCaller) open(b []byte) (*wire.Message, error) {
	env, err := c.p.codec.DecodeEnvelope(bytes.TrimSpace(b))
	if err != nil {
		return nil, fmt.Errorf("%s: an answer that is not a whole envelope (%d bytes): %w", c.face, len(b), err)
	}
	if env.Encrypted {
		op := &crypto.Opener{Codec: c.p.codec, Box: crypto.NewBox(c.p.agent.Encryption, 0), Accept: crypto.AcceptRef(c.p.agent.Ref)}
		m, err := op.OpenEnvelope(env)
		if err != nil {
			return nil, fmt.Errorf("%s: an answer that does not open: %w", c.face, err)
		}
		return m, nil
	}
	if err := crypto.VerifyWith(env.Message, c.p.to.doc.OrgKey); err != nil {
		return nil, fmt.Errorf("%s: an answer not signed by the gateway: %w", c.face, err)
	}
	return env.Message, nil
}

// ping is a new sealed ping of globex's echo agent, and its id.
func (c *loadCaller) ping() (string, []byte) {
	p := c.p
	m := &wire.Message{V: wire.Version, ID: newID(c.t), TS: time.Now().UnixMilli(), Op: wire.OpPing,
		From: p.agent.Sender(), To: wire.Ref{Agent: "echo", Org: p.to.name}, Cls: wire.Pub,
		Payload: &wire.PingPayload{Nonce: "sigterm"}, Ext: p.ext}
	b, err := crypto.SealMessage(p.codec, m, p.agent.Signing, crypto.NewBox(p.agent.Encryption, 0), p.to.doc.EncKey)
	if err != nil {
		c.t.Error(err)
	}
	return m.ID, b
}

// posts sends pings one after another until the gateway is gone.
func (c *loadCaller) posts(ctx context.Context) {
	for ctx.Err() == nil {
		_, env := c.ping()
		c.mu.Lock()
		c.sent++
		c.mu.Unlock()
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, c.p.to.doc.Endpoint+"/moltspeak/v0.1/message", bytes.NewReader(env))
		req.Header.Set("Content-Type", "application/json")
		resp, err := c.p.client.Do(req)
		if err != nil {
			// Before any byte of the answer: the request may not have been
			// accepted, which the restarted gateway will tell.
			c.mu.Lock()
			c.unanswered = append(c.unanswered, sent{c.p, env})
			c.mu.Unlock()
			return
		}
		b, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			c.fail(fmt.Errorf("http: the answer was cut after its headers (%d bytes of body): %w", len(b), err))
			return
		}
		if _, err := c.open(b); err != nil {
			c.fail(err)
			return
		}
		c.answered.Add(1)
	}
}

// streamConn is one stream face's connection: whole envelopes each way.
type stream interface {
	send(b []byte) error
	recv() ([]byte, error)
}

type wsStream struct{ c *websocket.Conn }

func (s wsStream) send(b []byte) error     { return s.c.WriteMessage(websocket.TextMessage, b) }
func (s wsStream) recv() ([]byte, error)   { _, b, err := s.c.ReadMessage(); return b, err }
func (s grpcStream) send(b []byte) error   { return s.s.SendMsg(&b) }
func (s grpcStream) recv() ([]byte, error) { var b []byte; err := s.s.RecvMsg(&b); return b, err }

type grpcStream struct{ s grpc.ClientStream }

// streams keeps up to 8 pings in flight on s until the gateway ends it.
func (c *loadCaller) streams(ctx context.Context, s stream) {
	credit := make(chan struct{}, 8)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			b, err := s.recv()
			if err != nil {
				return // the connection ended: what is pending was not answered
			}
			m, err := c.open(b)
			if err != nil {
				c.fail(err)
				return
			}
			c.mu.Lock()
			_, ok := c.pending[m.Re]
			delete(c.pending, m.Re)
			c.mu.Unlock()
			if !ok {
				c.fail(fmt.Errorf("%s: an answer to no pending request (re %q)", c.face, m.Re))
				return
			}
			c.answered.Add(1)
			<-credit
		}
	}()
send:
	for {
		select {
		case credit <- struct{}{}:
		case <-done:
			break send
		case <-ctx.Done():
			break send
		}
		id, env := c.ping()
		c.mu.Lock()
		c.pending[id] = env
		c.sent++
		c.mu.Unlock()
		if err := s.send(env); err != nil {
			break // it may or may not have left: the restarted gateway will tell
		}
	}
	<-done
	c.mu.Lock()
	for _, env := range c.pending {
		c.unanswered = append(c.unanswered, sent{c.p, env})
	}
	c.mu.Unlock()
}

// loadAndTerminate loads globex with two callers on each face, sends
// SIGTERM once answers flow on every face, and returns what they saw.
func loadAndTerminate(t *testing.T, acme, globex *org, round int) roundResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	tcfg := globex.https().Transport.(*http.Transport).TLSClientConfig
	var callers []*loadCaller
	var wg sync.WaitGroup
	for _, face := range []string{"http", "websocket", "grpc"} {
		for i := range 2 {
			c := &loadCaller{t: t, p: newRawPeer(t, acme, globex, fmt.Sprintf("%s%d-%d", face, i, round)), face: face, pending: map[string][]byte{}}
			callers = append(callers, c)
			switch face {
			case "http":
				c.p.client = globex.https() // its own connections
				wg.Add(1)
				go func() { defer wg.Done(); c.posts(ctx) }()
			case "websocket":
				d := websocket.Dialer{TLSClientConfig: tcfg, HandshakeTimeout: 10 * time.Second}
				ws, _, err := d.DialContext(ctx, "wss"+strings.TrimPrefix(globex.doc.Endpoint, "https")+"/moltspeak/v0.1/stream", nil)
				if err != nil {
					t.Fatalf("round %d: websocket: %v", round, err)
				}
				defer ws.Close()
				ws.SetReadDeadline(time.Now().Add(60 * time.Second))
				wg.Add(1)
				go func() { defer wg.Done(); c.streams(ctx, wsStream{ws}) }()
			case "grpc":
				gc := tcfg.Clone()
				gc.NextProtos = []string{"h2"}
				conn, err := grpc.NewClient("passthrough:///"+globex.doc.GRPC, grpc.WithTransportCredentials(credentials.NewTLS(gc)),
					grpc.WithDefaultCallOptions(grpc.ForceCodecV2(grpcconn.Codec{})))
				if err != nil {
					t.Fatal(err)
				}
				defer conn.Close()
				st, err := conn.NewStream(ctx, &grpc.StreamDesc{StreamName: "Stream", ServerStreams: true, ClientStreams: true}, grpcconn.MethodStream)
				if err != nil {
					t.Fatalf("round %d: grpc stream: %v", round, err)
				}
				wg.Add(1)
				go func() { defer wg.Done(); c.streams(ctx, grpcStream{st}) }()
			}
		}
	}
	// SIGTERM once every loadCaller has had answers: requests are then in
	// flight on every face.
	for _, c := range callers {
		for c.answered.Load() < 3 {
			c.mu.Lock()
			bad := c.bad
			c.mu.Unlock()
			if bad != nil {
				t.Fatalf("round %d: %v", round, bad)
			}
			select {
			case <-ctx.Done():
				t.Fatalf("round %d: %s loadCaller had %d answers before the deadline\n%s", round, c.face, c.answered.Load(), globex.log.String())
			case <-time.After(2 * time.Millisecond):
			}
		}
	}
	globex.signal(syscall.SIGTERM)
	finished := make(chan struct{})
	go func() { wg.Wait(); close(finished) }()
	select {
	case <-finished:
	case <-ctx.Done():
		t.Fatalf("round %d: callers still waiting a minute after SIGTERM", round)
	}
	var r roundResult
	for _, c := range callers {
		if c.bad != nil {
			t.Fatalf("round %d: %v", round, c.bad)
		}
		r.sent += c.sent
		r.answered += int(c.answered.Load())
		r.unanswered = append(r.unanswered, c.unanswered...)
	}
	if r.answered+len(r.unanswered) != r.sent {
		t.Fatalf("round %d: %d sent, %d answered, %d unanswered", round, r.sent, r.answered, len(r.unanswered))
	}
	t.Logf("round %d: %d sent, %d answered, %d cut off", round, r.sent, r.answered, len(r.unanswered))
	return r
}
