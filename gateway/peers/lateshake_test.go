package peers

import (
	"crypto/rand"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/moltgate/moltgate/crypto"
	"github.com/moltgate/moltgate/gateway/face/frames"
	"github.com/moltgate/moltgate/gateway/pipeline"
	"github.com/moltgate/moltgate/handshake"
	"github.com/moltgate/moltgate/wire"
)

// The HTTPS face has no counterpart of the stream faces' late handshake
// (close code 4408, the gRPC trailer moltgate-end): each message of an
// HTTP handshake is a request of its own, and the last one
// (session_established) is answered but its answer not read. A responder
// whose handshake ran out of time as that last message came refuses it,
// so the session this gateway made is unknown to the peer; its first call
// in it is refused E_SESSION_EXPIRED naming no message, since the peer
// could not open it, and the call goes again in a new session. Here
// against a real handshake.Acceptor whose clock jumps past its timeout
// when the first session_established comes: a tool call (not idempotent)
// is acted on once, in the second session.
func TestLateHTTPHandshakeResendsTheCall(t *testing.T) {
	tab, ps, acme, globex := pair(t)
	acme.sessions.RemoveOrg("globex")
	globex.sessions.RemoveOrg("acme")
	// A gateway signs as its organisation: its gateway agent's key is
	// the org key its peer document names.
	globex.gw.Signing = globex.org.Signing
	cert, err := globex.org.IssueIdentity(globex.gw.Public(), time.Now().Add(-time.Minute), time.Now().Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	var skew atomic.Int64 // added to globex's clock
	hs := &handshake.Config{Identity: globex.gw, Cert: cert, Trust: globex.cfg.Trust, Capabilities: globex.cfg.Capabilities,
		Now: func() time.Time { return time.Now().Add(time.Duration(skew.Load())) }}
	acceptor := handshake.NewAcceptor(hs, globex.sessions)
	codec := wire.NewCodec(wire.Limits{})

	var (
		mu                            sync.Mutex
		late, hellos, unknown, opened int
	)
	answer := func(w http.ResponseWriter, b []byte) {
		w.Header().Set("Content-Type", frames.ContentNDJSON)
		w.Write(append(b, '\n'))
	}
	sign := func(m *wire.Message) []byte {
		m.V, m.ID, m.TS, m.Op, m.Cls = wire.Version, pipeline.NewMessageID(rand.Reader), hs.Now().UnixMilli(), wire.OpError, wire.Pub
		m.From = globex.gw.Sender()
		b, err := crypto.Sign(codec, m, globex.org.Signing)
		if err != nil {
			t.Error(err)
		}
		return b
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		env, err := codec.DecodeEnvelope(b)
		if err != nil {
			t.Errorf("globex: %v", err)
			return
		}
		if acceptor.Handles(env) {
			mu.Lock()
			if env.Encrypted && late == 0 {
				// session_established of the first handshake comes
				// after the responder's time is up.
				late++
				skew.Store(int64(time.Minute))
			} else if !env.Encrypted && env.Message.Op == wire.OpHello {
				hellos++
			}
			mu.Unlock()
			reply, _, err := acceptor.HandleEnvelope(r.Context(), env)
			skew.Store(0)
			if err != nil {
				answer(w, sign(&wire.Message{To: wire.Ref{Agent: "unknown", Org: "unknown"}, Payload: pipeline.AsWire(err).Payload()}))
				return
			}
			w.Write(reply)
			return
		}
		req, sess, err := globex.sessions.Open(env)
		if err != nil {
			// As the pipeline refuses what it cannot open: in the
			// clear, naming no message.
			mu.Lock()
			unknown++
			mu.Unlock()
			answer(w, sign(&wire.Message{To: wire.Ref{Agent: "unknown", Org: "unknown"}, Payload: pipeline.AsWire(err).Payload()}))
			return
		}
		mu.Lock()
		opened++
		mu.Unlock()
		m := &wire.Message{V: wire.Version, ID: pipeline.NewMessageID(rand.Reader), TS: time.Now().UnixMilli(), Op: wire.OpError,
			From: globex.gw.Sender(), To: req.From.Ref(), Re: req.ID, Cls: wire.Pub,
			Payload: wire.Errorf(wire.ErrCapability, "", "the tool was run: this is its answer").Payload()}
		out, err := sess.SignAndSeal(m, globex.gw.Signing)
		if err != nil {
			t.Errorf("globex: seal: %v", err)
			return
		}
		answer(w, out)
	}))
	t.Cleanup(srv.Close)
	p := *ps.p
	p.Endpoint = srv.URL
	if err := tab.Add(&p); err != nil {
		t.Fatal(err)
	}

	err = send(t, tab, acme, wire.OpTool)
	if pipeline.Code(err) != wire.ErrCapability {
		t.Fatalf("the call ended with %v, want the answer in the second session", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if late != 1 || hellos != 2 || unknown != 1 || opened != 1 {
		t.Fatalf("late session_established %d, handshakes %d, calls refused unread %d, calls opened %d; want 1, 2, 1, 1", late, hellos, unknown, opened)
	}
}
