package e2e

import (
	"context"
	"encoding/json"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/moltgate/moltgate/localbridge"
)

// TestPeerDiesMidStream: the peer gateway process is killed while it
// streams a long reply. Over each transport the caller gets E_PEER_UNAVAILABLE
// (or E_TIMEOUT) well before its deadline, its own gateway keeps serving,
// new calls to the dead peer fail at once, and once the peer is back calls
// reach it again.
func TestPeerDiesMidStream(t *testing.T) {
	needProcesses(t)
	for _, tr := range []string{"websocket", "grpc", "http"} {
		t.Run(tr, func(t *testing.T) {
			acme, globex := pair(t, tr, nil)
			c := acme.client()
			// The deadline the call asks for; the test's own is a guard
			// against a hang, twice as long.
			const callTimeout = 20 * time.Second
			ctx, cancel := context.WithTimeout(context.Background(), 2*callTimeout)
			defer cancel()

			chunks := 0
			killed := false
			_, err := c.Query(ctx, localbridge.QueryRequest{From: "client", To: "echo@globex", Tool: "echo",
				Input: json.RawMessage(`{"text":"` + strings.Repeat("z", 200) + `","repeat":100000}`), TimeoutMS: callTimeout.Milliseconds()},
				func(localbridge.StreamEvent) error {
					if chunks++; chunks == 100 && !killed {
						killed = true
						globex.signal(syscall.SIGKILL)
					}
					return nil
				})
			if ctx.Err() != nil {
				t.Fatal("the call hung after its peer died")
			}
			if !killed {
				t.Fatalf("the stream ended after %d chunks, before the peer was killed (%v)", chunks, err)
			}
			if code := codeOf(err); code != "E_PEER_UNAVAILABLE" && code != "E_TIMEOUT" {
				t.Fatalf("after %d chunks the call ended with %v, want E_PEER_UNAVAILABLE or E_TIMEOUT", chunks, err)
			}
			globex.wait(10 * time.Second)

			// acme itself is fine, and does not wait on the dead peer.
			pong, err := c.Ping(ctx, "client")
			if err != nil || !strings.Contains(string(pong), `"status":"alive"`) {
				t.Fatalf("acme's own agent: %s %v", pong, err)
			}
			qctx, qcancel := context.WithTimeout(ctx, callTimeout)
			_, _, err = call(qctx, c, "client", "echo@globex", "echo", `{"text":"anyone there?"}`)
			hung := qctx.Err() != nil
			qcancel()
			if hung || codeOf(err) != "E_PEER_UNAVAILABLE" {
				t.Fatalf("a call to the dead peer: %v (want E_PEER_UNAVAILABLE, at once)", err)
			}

			// The peer comes back on the same address: calls flow again,
			// once the circuit breaker lets one through.
			globex.start()
			for {
				qctx, qcancel := context.WithTimeout(ctx, callTimeout)
				out, _, err := call(qctx, c, "client", "echo@globex", "echo", `{"text":"welcome back"}`)
				qcancel()
				if err == nil {
					if !strings.Contains(string(out), "welcome back") {
						t.Fatalf("after the restart: %s", out)
					}
					break
				}
				if codeOf(err) != "E_PEER_UNAVAILABLE" || ctx.Err() != nil {
					t.Fatalf("after the restart: %v", err)
				}
				time.Sleep(200 * time.Millisecond)
			}
		})
	}
}

// TestGracefulShutdownInFlight: SIGTERM reaches a gateway while a slow call
// runs in it. The call completes and its caller gets the result, new calls
// are refused, and the process exits with status 0 once it is done.
func TestGracefulShutdownInFlight(t *testing.T) {
	needProcesses(t)
	for _, tr := range []string{"websocket", "grpc", "http"} {
		t.Run(tr, func(t *testing.T) {
			acme, globex := pair(t, tr, nil)
			c := acme.client()
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			if _, _, err := call(ctx, c, "client", "echo@globex", "echo", `{"text":"warm up"}`); err != nil {
				t.Fatal(err)
			}

			type result struct {
				out json.RawMessage
				err error
			}
			done := make(chan result, 1)
			running := make(chan struct{})
			go func() {
				var once bool
				out, err := c.Query(ctx, localbridge.QueryRequest{From: "client", To: "echo@globex", Tool: "sleep", Input: json.RawMessage(`{"ms":2000}`)},
					func(ev localbridge.StreamEvent) error {
						// The sleep tool says "sleeping" when it starts.
						if !once {
							once = true
							close(running)
						}
						return nil
					})
				done <- result{out, err}
			}()
			select {
			case <-running:
			case r := <-done:
				t.Fatalf("the slow call ended before it ran: %s %v", r.out, r.err)
			}
			globex.signal(syscall.SIGTERM)
			// The next call is sent once the shutdown has begun (the signal
			// is asynchronous), so that it meets the draining gateway.
			for !strings.Contains(globex.log.String(), `"msg":"gateway shutting down"`) {
				select {
				case <-ctx.Done():
					t.Fatal("no shutdown after SIGTERM")
				case <-time.After(5 * time.Millisecond):
				}
			}

			// New work is refused while the slow call drains. (It may be
			// answered only once the drain ends, by the connection
			// closing; either way it must not be served.)
			c2 := acme.client()
			if out, _, err := call(ctx, c2, "client", "echo@globex", "echo", `{"text":"too late"}`); err == nil {
				t.Fatalf("a call after SIGTERM was served: %s", out)
			} else if code := codeOf(err); code != "E_PEER_UNAVAILABLE" {
				t.Fatalf("a call after SIGTERM: %v, want E_PEER_UNAVAILABLE", err)
			}

			r := <-done
			if r.err != nil || !strings.Contains(string(r.out), `"slept_ms":2000`) {
				t.Fatalf("the call in flight: %s %v", r.out, r.err)
			}
			if err := globex.wait(30 * time.Second); err != nil {
				t.Fatalf("gateway exited with %v\n%s", err, globex.log.String())
			}
		})
	}
}

// TestFrozenPeerTimesOut: the peer gateway stops (SIGSTOP) in the middle of
// a stream; its connections stay open but nothing comes. The call ends with
// E_TIMEOUT at its deadline instead of waiting for ever, and once the peer
// runs again calls go through.
func TestFrozenPeerTimesOut(t *testing.T) {
	needProcesses(t)
	acme, globex := pair(t, "websocket", nil)
	c := acme.client()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	frozen := false
	_, err := c.Query(ctx, localbridge.QueryRequest{From: "client", To: "echo@globex", Tool: "sleep",
		Input: json.RawMessage(`{"ms":60000}`), TimeoutMS: 2000},
		func(localbridge.StreamEvent) error {
			if !frozen {
				frozen = true
				globex.signal(syscall.SIGSTOP)
			}
			return nil
		})
	if ctx.Err() != nil {
		t.Fatal("the call hung on a frozen peer")
	}
	if !frozen || codeOf(err) != "E_TIMEOUT" {
		t.Fatalf("frozen %v, call ended with %v, want E_TIMEOUT", frozen, err)
	}
	globex.signal(syscall.SIGCONT)
	if _, _, err := call(ctx, c, "client", "echo@globex", "echo", `{"text":"thawed"}`); err != nil {
		t.Fatalf("after the peer resumed: %v", err)
	}
}
