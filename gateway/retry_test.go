package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/moltgate/moltgate/gateway/pipeline"
	"github.com/moltgate/moltgate/localbridge"
	"github.com/moltgate/moltgate/wire"
)

// TestRetriesOnlyIdempotent: against a peer whose address takes
// connections and drops them (TOOL_ERROR in OSSA's terms: 3 retries), an
// idempotent call (ping) is tried four times, a tool call once, since it
// may have been acted on; after five failures in a row the peer's circuit
// opens and calls fail at once, with the time to wait, without a
// connection. gateway/peers tests each row of the policy.
func TestRetriesOnlyIdempotent(t *testing.T) {
	da, la := newTestDir(t, "acme", AddAgentOptions{ID: "client"})
	db, lb := newTestDir(t, "globex")
	trustEachOther(t, da, db, "pii")
	lb.GRPC.Close()
	var accepted atomic.Int32
	go func() {
		for {
			c, err := lb.HTTP.Accept()
			if err != nil {
				return
			}
			accepted.Add(1)
			c.Close()
		}
	}()
	t.Cleanup(func() { lb.HTTP.Close() })
	acme := start(t, da, la, TransportWebSocket)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	unavailable := func(what string, err error) {
		t.Helper()
		if pipeline.Code(err) != wire.ErrPeerUnavailable {
			t.Fatalf("%s: %v, want E_PEER_UNAVAILABLE", what, err)
		}
	}
	call := func() error {
		_, err := acme.s.local.Query(ctx, localbridge.QueryRequest{From: "client", To: "echo@globex", Tool: "echo", Input: json.RawMessage(`{"text":"x"}`)}, nil)
		return err
	}

	_, err := acme.s.local.Ping(ctx, localbridge.PingRequest{Agent: "echo@globex"})
	unavailable("ping", err)
	if n := accepted.Swap(0); n != 4 {
		t.Fatalf("ping connected %d times, want 4", n)
	}
	unavailable("tool call, the fifth failure", call())
	if n := accepted.Swap(0); n != 1 {
		t.Fatalf("tool call connected %d times, want 1", n)
	}
	err = call()
	unavailable("with the circuit open", err)
	if n := accepted.Load(); n != 0 {
		t.Fatalf("a call with the circuit open connected %d times", n)
	}
	if we := pipeline.AsWire(err); we.Suggestion == nil || we.Suggestion.Action != wire.ActionRetryAfter || we.Suggestion.DelayMS <= 0 {
		t.Fatalf("no time to wait: %+v", we)
	}
}

// TestInFlightCeiling: limits.max_in_flight bounds the calls a gateway
// works on at once; one more is refused at once with E_RATE_LIMIT and the
// time to wait, and taken again once a call ends.
func TestInFlightCeiling(t *testing.T) {
	da, la := newTestDir(t, "acme", AddAgentOptions{ID: "client", MaxCls: "pii"})
	db, lb := newTestDir(t, "globex", AddAgentOptions{ID: "echo", Capabilities: []string{"echo.text"}, MaxCls: "pii"})
	trustEachOther(t, da, db, "pii")
	setConfig(t, db, "max_in_flight = 1024", "max_in_flight = 1")
	// acme would wait and retry a call globex refuses so (RATE_LIMITED:
	// 3 retries); here the refusal itself is what is looked at.
	setConfig(t, da, "reply_wait = \"10s\"\n", "reply_wait = \"10s\"\n[peers.policy.retry.RATE_LIMITED]\nretries = 0\n")
	acme, globex := start(t, da, la, TransportWebSocket), start(t, db, lb, TransportWebSocket)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	call := func(tool, input string) error {
		_, err := acme.s.local.Query(ctx, localbridge.QueryRequest{From: "client", To: "echo@globex", Tool: tool, Input: json.RawMessage(input)}, nil)
		return err
	}
	if err := call("echo", `{"text":"warm"}`); err != nil {
		t.Fatal(err)
	}
	slow := make(chan error, 1)
	go func() { slow <- call("sleep", `{"ms":500}`) }()
	for end := time.Now().Add(10 * time.Second); globex.s.flight.Count() == 0; time.Sleep(2 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatal("the slow call never reached globex")
		}
	}
	err := call("echo", `{"text":"one too many"}`)
	if pipeline.Code(err) != wire.ErrRateLimit {
		t.Fatalf("a call over the ceiling: %v, want E_RATE_LIMIT", err)
	}
	if we := pipeline.AsWire(err); we.Suggestion == nil || we.Suggestion.Action != wire.ActionRetryAfter {
		t.Fatalf("no time to wait: %+v", we)
	}
	if err := <-slow; err != nil {
		t.Fatal(err)
	}
	if err := call("echo", `{"text":"after"}`); err != nil {
		t.Fatalf("once the slot is free: %v", err)
	}
}

// TestSessionForgottenByThePeer: when the peer no longer knows the session
// of a stream connection (it evicted or ended it), it refuses what comes
// on it without naming the message; no call on it was acted on, so each,
// a tool call included, goes again in a new session rather than failing.
func TestSessionForgottenByThePeer(t *testing.T) {
	for _, tr := range []string{TransportWebSocket, TransportGRPC, TransportHTTP} {
		t.Run(tr, func(t *testing.T) {
			acme, globex := twoGateways(t, tr)
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			call := func(text string) error {
				out, err := acme.s.local.Query(ctx, localbridge.QueryRequest{From: "client", To: "echo@globex", Tool: "echo",
					Input: json.RawMessage(`{"text":"` + text + `"}`)}, nil)
				if err == nil && !strings.Contains(string(out), text) {
					err = errors.New("unexpected answer " + string(out))
				}
				return err
			}
			if err := call("first"); err != nil {
				t.Fatal(err)
			}
			if n := globex.s.sessions.RemoveOrg("acme"); n == 0 {
				t.Fatal("globex held no session of acme's")
			}
			// Several at once, so that a resend on the new connection is
			// not undone by another call's.
			errs := make(chan error, 4)
			for i := range 4 {
				go func() { errs <- call(fmt.Sprintf("after%d", i)) }()
			}
			for range 4 {
				if err := <-errs; err != nil {
					t.Fatalf("a call after the peer forgot the session: %v\nACME\n%s\nGLOBEX\n%s", err, acme.logs(), globex.logs())
				}
			}
		})
	}
}

// TestRefusalInSessionNamesItsCall: a message that opens in its session but
// is then refused (here: its exp had passed when it arrived, as when the
// peer's clock runs ahead of the caller's by more than the call's deadline)
// is refused by itself. The refusal names the message, so the other calls
// on the same WebSocket or gRPC stream go on; one that named no message
// would end the connection and every call on it.
func TestRefusalInSessionNamesItsCall(t *testing.T) {
	for _, tr := range []string{TransportWebSocket, TransportGRPC} {
		t.Run(tr, func(t *testing.T) {
			da, la := newTestDir(t, "acme", AddAgentOptions{ID: "client", MaxCls: "pii"})
			db, lb := newTestDir(t, "globex", AddAgentOptions{ID: "echo", Capabilities: []string{"echo.text"}, QueryTool: "echo", MaxCls: "pii"})
			trustEachOther(t, da, db, "pii")
			// acme's clock is three seconds behind globex's: well within
			// the accepted skew, but more than a one-second deadline.
			behind := func() time.Time { return time.Now().Add(-3 * time.Second) }
			acme := startWith(t, da, la, tr, Options{Now: behind})
			globex := start(t, db, lb, tr)
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			query := func(ctx context.Context, tool, input string) error {
				_, err := acme.s.local.Query(ctx, localbridge.QueryRequest{From: "client", To: "echo@globex", Tool: tool, Input: json.RawMessage(input)}, nil)
				return err
			}
			if err := query(ctx, "echo", `{"text":"warm"}`); err != nil {
				t.Fatal(err)
			}
			slow := make(chan error, 1)
			go func() { slow <- query(ctx, "sleep", `{"ms":1500}`) }()
			for wait := time.Now().Add(5 * time.Second); globex.s.flight.Count() == 0; time.Sleep(2 * time.Millisecond) {
				if time.Now().After(wait) {
					t.Fatal("the slow call never reached the peer")
				}
			}
			short, c2 := context.WithTimeout(ctx, time.Second)
			defer c2()
			if err := query(short, "echo", `{"text":"late"}`); pipeline.Code(err) != wire.ErrExpired {
				t.Fatalf("a call that expired on its way: %v, want E_EXPIRED", err)
			}
			if err := <-slow; err != nil {
				t.Fatalf("the other call on the connection: %v", err)
			}
		})
	}
}
