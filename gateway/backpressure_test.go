package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/moltgate/moltgate/gateway/peers"
	"github.com/moltgate/moltgate/localbridge"
	"github.com/moltgate/moltgate/wire"
)

// TestSlowCallerGetsWholeStream: a caller that takes each streamed chunk a
// little slower than the agent makes them still gets every one, and the
// reply. The stream is held back to the caller's pace; nothing is dropped.
func TestSlowCallerGetsWholeStream(t *testing.T) {
	for _, tr := range []string{TransportWebSocket, TransportGRPC, TransportHTTP} {
		t.Run(tr, func(t *testing.T) {
			acme, _ := twoGateways(t, tr)
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			const chunks = 4 * peers.ReplyBuffer
			n := 0
			out, err := acme.s.local.Query(ctx, localbridge.QueryRequest{From: "client", To: "echo@globex", Tool: "echo",
				Input: json.RawMessage(`{"text":"slow ","repeat":256}`)},
				func(ev localbridge.StreamEvent) error {
					n++
					time.Sleep(200 * time.Microsecond)
					return nil
				})
			if err != nil {
				t.Fatalf("call: %v (after %d chunks)", err, n)
			}
			if n != chunks {
				t.Fatalf("got %d chunks, want %d", n, chunks)
			}
			if !json.Valid(out) || len(out) == 0 {
				t.Fatalf("result %q", out)
			}
		})
	}
}

// TestStuckCallerIsAbandoned: a caller that stops taking its stream fails
// with E_TIMEOUT once delivery has waited its stall limit for it (half the
// write timeout, 4 s here), and a call on the same connection is held up at
// most that long, not until its deadline.
func TestStuckCallerIsAbandoned(t *testing.T) {
	// Mostly waiting (on the stall limit), so it runs beside the others that wait.
	t.Parallel()
	for _, tr := range []string{TransportWebSocket, TransportGRPC} {
		t.Run(tr, func(t *testing.T) {
			da, la := newTestDir(t, "acme", AddAgentOptions{ID: "client", MaxCls: "pii"})
			db, lb := newTestDir(t, "globex", AddAgentOptions{ID: "echo", Capabilities: []string{"echo.text"}, QueryTool: "echo", MaxCls: "pii"})
			trustEachOther(t, da, db, "pii")
			writeTimeout := func(s *Server) { s.writeTimeout = 4 * time.Second }
			acme := start(t, da, la, tr, writeTimeout)
			start(t, db, lb, tr, writeTimeout)
			// A bound against a hang, not a measure: the stuck call is held
			// until the other has been answered, so this deadline is what
			// the other call would run into if the stuck one held it up.
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			release := make(chan struct{})
			defer close(release)
			stuck := make(chan error, 1)
			holding := make(chan struct{})
			go func() {
				first := true
				_, err := acme.s.local.Query(ctx, localbridge.QueryRequest{From: "client", To: "echo@globex", Tool: "echo",
					Input: json.RawMessage(`{"text":"stuck ","repeat":1000}`)},
					func(localbridge.StreamEvent) error {
						if first {
							first = false
							close(holding)
							select {
							case <-release:
							case <-ctx.Done():
							}
						}
						return nil
					})
				stuck <- err
			}()
			// The stuck caller holds its first chunk; give the rest a moment
			// to fill its buffer and hold up the reader.
			select {
			case <-holding:
			case err := <-stuck:
				t.Fatalf("the stuck call ended before its first chunk: %v", err)
			}
			time.Sleep(300 * time.Millisecond)
			if _, err := acme.s.local.Query(ctx, localbridge.QueryRequest{From: "client", To: "echo@globex", Tool: "echo",
				Input: json.RawMessage(`{"text":"other"}`)}, nil); err != nil {
				t.Fatalf("a call beside the stuck one: %v", err)
			}
			// On a loaded machine the other call may be answered before the
			// stuck one's replies have filled its buffer: it is let go only
			// once delivery has given up on it.
			for !strings.Contains(acme.logs(), "reply abandoned: the caller stopped taking its stream") {
				if ctx.Err() != nil {
					t.Fatal("the stuck call was never abandoned")
				}
				time.Sleep(20 * time.Millisecond)
			}
			// The stuck caller sees why once it looks again.
			release <- struct{}{}
			select {
			case err := <-stuck:
				var we *wire.Error
				if !errors.As(err, &we) || we.Code != wire.ErrTimeout {
					t.Fatalf("stuck call: got %v, want E_TIMEOUT", err)
				}
			case <-ctx.Done():
				t.Fatal("the stuck call never ended")
			}
		})
	}
}
