package peers

import (
	"context"
	"crypto/rand"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/moltgate/moltgate/gateway/face/frames"
	"github.com/moltgate/moltgate/gateway/pipeline"
	"github.com/moltgate/moltgate/wire"
)

// failingPeer is globex's gateway as an HTTP server that opens each
// message in its session with acme and answers it, sealed in the session,
// with the error answer returns for it (the nth message, from 0); an
// answer of nil drops the connection without a reply, as a peer that
// crashed would. Anything it cannot open (a handshake's hello) is counted
// as a hello and its connection dropped.
type failingPeer struct {
	srv    *httptest.Server
	globex *side
	mu     sync.Mutex
	calls  int
	hellos int
}

func newFailingPeer(t *testing.T, globex *side, answer func(n int) *wire.Error) *failingPeer {
	t.Helper()
	fp := &failingPeer{globex: globex}
	codec := wire.NewCodec(wire.Limits{})
	drop := func(w http.ResponseWriter) {
		c, _, err := http.NewResponseController(w).Hijack()
		if err == nil {
			c.Close()
		}
	}
	fp.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		env, err := codec.DecodeEnvelope(b)
		var req *wire.Message
		if err == nil && env.Algorithm == wire.AlgSession {
			req, _, err = globex.sessions.Open(env)
		}
		fp.mu.Lock()
		if err != nil || req == nil {
			fp.hellos++
			fp.mu.Unlock()
			drop(w)
			return
		}
		n := fp.calls
		fp.calls++
		fp.mu.Unlock()
		we := answer(n)
		if we == nil {
			drop(w)
			return
		}
		sess, err := globex.sessions.Peer(req.From.Ref())
		if err != nil {
			sess, err = globex.sessions.Peer(wire.Ref{Agent: pipeline.GatewayAgent, Org: "acme"})
		}
		if err != nil {
			t.Errorf("globex: no session with acme: %v", err)
			drop(w)
			return
		}
		m := &wire.Message{V: wire.Version, ID: pipeline.NewMessageID(rand.Reader), TS: time.Now().UnixMilli(), Op: wire.OpError,
			From: globex.gw.Sender(), To: req.From.Ref(), Re: req.ID, Cls: wire.Pub, Payload: we.Payload()}
		out, err := sess.SignAndSeal(m, globex.gw.Signing)
		if err != nil {
			t.Errorf("globex: seal: %v", err)
			drop(w)
			return
		}
		w.Header().Set("Content-Type", frames.ContentNDJSON)
		w.Write(append(out, '\n'))
	}))
	t.Cleanup(fp.srv.Close)
	return fp
}

func (fp *failingPeer) counts() (calls, hellos int) {
	fp.mu.Lock()
	defer fp.mu.Unlock()
	return fp.calls, fp.hellos
}

// policyRig is acme's table with globex at fp's address, calling under
// pol (nil: the default).
func policyRig(t *testing.T, pol *Policy, answer func(n int) *wire.Error) (*Table, *Remote, *side, *failingPeer) {
	t.Helper()
	tab, ps, acme, globex := pair(t)
	fp := newFailingPeer(t, globex, answer)
	if pol != nil {
		tab.cfg.Policy = func(string) Policy { return *pol }
	}
	p := *ps.p
	p.Endpoint = fp.srv.URL
	if err := tab.Add(&p); err != nil {
		t.Fatal(err)
	}
	return tab, tab.Get("globex"), acme, fp
}

// send sends acme's gateway's message of op to globex: a query
// (idempotent) or a tool call (not).
func send(t *testing.T, tab *Table, acme *side, op wire.Op) error {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	m := &wire.Message{V: wire.Version, ID: pipeline.NewMessageID(rand.Reader), TS: time.Now().UnixMilli(), Op: op,
		From: acme.gw.Sender(), To: wire.Ref{Agent: "echo", Org: "globex"}, Cls: wire.Pub}
	switch op {
	case wire.OpQuery:
		m.Payload = &wire.QueryPayload{Domain: "general", Intent: "ask"}
	case wire.OpTool:
		m.Payload = &wire.ToolPayload{Action: "invoke", Tool: "echo"}
	}
	return tab.Send(ctx, m, acme.gw.Signing, func(*wire.Message) (bool, error) { return true, nil })
}

func always(we *wire.Error) func(int) *wire.Error { return func(int) *wire.Error { return we } }

// TestPolicyFollowsOSSA: each row of OSSA's default error handling, as
// calls to a peer apply it, against a peer that fails so: how many times
// the call reaches the peer, and what the caller gets.
func TestPolicyFollowsOSSA(t *testing.T) {
	internal := wire.Errorf(wire.ErrInternal, "", "storage failed")
	timeout := wire.Errorf(wire.ErrTimeout, "", "agent too slow")
	rows := []struct {
		name   string
		answer *wire.Error // nil: the connection drops
		op     wire.Op
		calls  int
		code   wire.Code
	}{
		{"TOOL_ERROR: E_INTERNAL, idempotent: 3 retries", internal, wire.OpQuery, 4, wire.ErrInternal},
		{"TOOL_ERROR: E_INTERNAL, tool call: may have acted, none", internal, wire.OpTool, 1, wire.ErrInternal},
		{"TOOL_ERROR: connection lost, idempotent: 3 retries", nil, wire.OpQuery, 4, wire.ErrPeerUnavailable},
		{"TOOL_ERROR: connection lost, tool call: none", nil, wire.OpTool, 1, wire.ErrPeerUnavailable},
		{"TOOL_TIMEOUT: idempotent: 2 retries", timeout, wire.OpQuery, 3, wire.ErrTimeout},
		{"TOOL_TIMEOUT: tool call: none", timeout, wire.OpTool, 1, wire.ErrTimeout},
		{"RATE_LIMITED: refused before acting, tool call: 3 retries",
			pipeline.WithRetry(wire.Errorf(wire.ErrRateLimit, "", "slow down"), 20*time.Millisecond), wire.OpTool, 4, wire.ErrRateLimit},
		{"RATE_LIMITED: retry_after beyond max_backoff: the caller's to wait",
			pipeline.WithRetry(wire.Errorf(wire.ErrRateLimit, "", "slow down"), time.Minute), wire.OpQuery, 1, wire.ErrRateLimit},
		{"CIRCUIT_OPEN: the peer is going away: fallback, none", wire.Errorf(wire.ErrPeerUnavailable, "", "shutting down"), wire.OpQuery, 1, wire.ErrPeerUnavailable},
		{"POLICY_VIOLATION: escalate, none", wire.Errorf(wire.ErrCapability, "", "no capability"), wire.OpQuery, 1, wire.ErrCapability},
		{"VALIDATION_ERROR: abort, none", wire.Errorf(wire.ErrInvalidParam, "p.domain", "unknown domain"), wire.OpQuery, 1, wire.ErrInvalidParam},
		{"CONTENT_FILTERED: escalate, none", wire.Errorf(wire.ErrConsent, "", "no consent"), wire.OpQuery, 1, wire.ErrConsent},
		{"DELEGATION_FAILED: abort, none", wire.Errorf(wire.ErrTaskFailed, "", "agent failed"), wire.OpQuery, 1, wire.ErrTaskFailed},
	}
	for _, row := range rows {
		t.Run(row.name, func(t *testing.T) {
			tab, _, acme, fp := policyRig(t, nil, always(row.answer))
			err := send(t, tab, acme, row.op)
			if got := pipeline.Code(err); got != row.code {
				t.Fatalf("got %v, want %s", err, row.code)
			}
			if calls, _ := fp.counts(); calls != row.calls {
				t.Fatalf("the peer saw %d messages, want %d", calls, row.calls)
			}
			if row.code == wire.ErrRateLimit && row.calls == 1 {
				if we := pipeline.AsWire(err); we.Suggestion == nil || we.Suggestion.DelayMS != time.Minute.Milliseconds() {
					t.Fatalf("the peer's retry_after is not the caller's: %+v", we.Suggestion)
				}
			}
		})
	}
}

// TestPolicyStateError: STATE_ERROR, a session the peer no longer knows:
// one retry, in a new session (a handshake), of any operation, since the
// peer could not open it; with retries = 0, none.
func TestPolicyStateError(t *testing.T) {
	expired := always(wire.Errorf(wire.ErrSessionExpired, "", "unknown session"))
	tab, _, acme, fp := policyRig(t, nil, expired)
	send(t, tab, acme, wire.OpTool)
	if calls, hellos := fp.counts(); calls != 1 || hellos != 1 {
		t.Fatalf("the peer saw %d messages and %d handshakes, want 1 and 1", calls, hellos)
	}
	pol := DefaultPolicy()
	pol.Rules[wire.OSSAStateError] = Rule{Retries: 0}
	tab, _, acme, fp = policyRig(t, &pol, expired)
	if err := send(t, tab, acme, wire.OpTool); pipeline.Code(err) != wire.ErrSessionExpired {
		t.Fatalf("got %v, want E_SESSION_EXPIRED", err)
	}
	if calls, hellos := fp.counts(); calls != 1 || hellos != 0 {
		t.Fatalf("the peer saw %d messages and %d handshakes, want 1 and 0", calls, hellos)
	}
}

// TestPolicyBreaker: failures that count (TOOL_ERROR) open the breaker
// after 5 in a row, and a call then fails at once (CIRCUIT_OPEN) with the
// time to wait, reaching nobody; failures that do not count (the peer's
// E_TIMEOUT: a slow agent, not a failing gateway) never open it.
func TestPolicyBreaker(t *testing.T) {
	tab, ps, acme, fp := policyRig(t, nil, always(wire.Errorf(wire.ErrInternal, "", "storage failed")))
	send(t, tab, acme, wire.OpQuery) // four failures
	send(t, tab, acme, wire.OpTool)  // the fifth
	if ps.br.current() != BreakerOpen {
		t.Fatalf("breaker %s after 5 failures", ps.br.current())
	}
	err := send(t, tab, acme, wire.OpQuery)
	if we := pipeline.AsWire(err); we.Code != wire.ErrPeerUnavailable || we.Code.OSSA() != wire.OSSACircuitOpen ||
		we.Suggestion == nil || we.Suggestion.DelayMS <= 0 {
		t.Fatalf("with the breaker open: %+v", we)
	}
	if calls, _ := fp.counts(); calls != 5 {
		t.Fatalf("the peer saw %d messages, want 5 (none with the breaker open)", calls)
	}

	tab, ps, acme, _ = policyRig(t, nil, always(wire.Errorf(wire.ErrTimeout, "", "agent too slow")))
	for range 3 {
		send(t, tab, acme, wire.OpQuery)
	}
	if ps.br.current() != BreakerClosed {
		t.Fatalf("9 timeouts opened the breaker")
	}
}

// TestPolicyConfigured: a policy other than the default is followed: no
// retry of TOOL_ERROR, rate limits counted toward a breaker that opens
// after 2.
func TestPolicyConfigured(t *testing.T) {
	pol := DefaultPolicy()
	pol.Rules[wire.OSSAToolError] = Rule{Retries: 0, Breaker: true}
	tab, _, acme, fp := policyRig(t, &pol, always(wire.Errorf(wire.ErrInternal, "", "storage failed")))
	send(t, tab, acme, wire.OpQuery)
	if calls, _ := fp.counts(); calls != 1 {
		t.Fatalf("retries = 0: the peer saw %d messages", calls)
	}

	pol = DefaultPolicy()
	pol.BreakerFailures = 2
	pol.Rules[wire.OSSARateLimited] = Rule{Retries: 0, Breaker: true}
	tab, ps, acme, fp := policyRig(t, &pol, always(pipeline.WithRetry(wire.Errorf(wire.ErrRateLimit, "", "slow down"), time.Millisecond)))
	send(t, tab, acme, wire.OpQuery)
	send(t, tab, acme, wire.OpQuery)
	if ps.br.current() != BreakerOpen {
		t.Fatalf("breaker %s after 2 counted rate limits", ps.br.current())
	}
	if calls, _ := fp.counts(); calls != 2 {
		t.Fatalf("the peer saw %d messages, want 2", calls)
	}
}

func TestRuleWait(t *testing.T) {
	r := Rule{Backoff: 100 * time.Millisecond, MaxBackoff: time.Second}
	for n, want := range []time.Duration{100, 200, 400, 800, 1000, 1000} {
		if got, ok := r.wait(n, 0); !ok || got != want*time.Millisecond {
			t.Fatalf("retry %d waits %v, want %v", n, got, want*time.Millisecond)
		}
	}
	if got, ok := r.wait(0, 300*time.Millisecond); !ok || got != 300*time.Millisecond {
		t.Fatalf("retry_after 300ms: %v %v", got, ok)
	}
	if _, ok := r.wait(0, 2*time.Second); ok {
		t.Fatal("a retry_after beyond max_backoff is waited")
	}
	if got, ok := (Rule{}).wait(3, 0); !ok || got != 0 {
		t.Fatalf("no backoff: %v %v", got, ok)
	}
}
