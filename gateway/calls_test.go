package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/moltgate/moltgate/gateway/local"
	"github.com/moltgate/moltgate/localbridge"
	"github.com/moltgate/moltgate/wire"
)

// hopsSeen waits until globex is handling a call whose message made hops
// hops, and fails the test if none comes.
func hopsSeen(t *testing.T, g *testGateway, hops int64) {
	t.Helper()
	for end := time.Now().Add(10 * time.Second); time.Now().Before(end); time.Sleep(2 * time.Millisecond) {
		for _, e := range g.s.local.Calls().Held() {
			if e.Hops == hops {
				return
			}
		}
	}
	t.Fatalf("no call with %d hops reached %s", hops, g.s.cfg.Org)
}

// TestLoopGuard: a call a local agent makes for a call it is handling
// (named by its correlation id) goes out one hop further along the chain;
// a chain longer than limits.max_hops (4) is refused before it leaves.
// Calls that name no chain start one. When the call it was made for ends,
// its correlation id no longer counts.
func TestLoopGuard(t *testing.T) {
	acme, globex := twoGateways(t, TransportWebSocket)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	sleep := func(corr string) error {
		_, err := acme.s.local.Query(ctx, localbridge.QueryRequest{From: "client", To: "echo@globex", Tool: "sleep",
			Input: json.RawMessage(`{"ms":300}`), CorrelationID: corr}, nil)
		return err
	}
	for _, c := range []struct {
		corr string
		in   int64 // hops of the call acme is handling under corr; 0 for none
		want int64 // hops globex sees
	}{
		{"", 0, 1},
		{"unknown-call", 0, 1},
		{"call-at-hop-1", 1, 2},
		{"call-at-hop-3", 3, 4},
	} {
		if c.in > 0 {
			acme.s.local.Calls().Enter(c.corr, local.Call{Hops: c.in, Org: "globex"})
		}
		done := make(chan error, 1)
		go func() { done <- sleep(c.corr) }()
		hopsSeen(t, globex, c.want)
		if err := <-done; err != nil {
			t.Fatalf("%s: %v", c.corr, err)
		}
		acme.s.local.Calls().Leave(c.corr)
	}

	acme.s.local.Calls().Enter("call-at-hop-4", local.Call{Hops: 4, Org: "globex"})
	err := sleep("call-at-hop-4")
	var we *wire.Error
	if !errors.As(err, &we) || we.Code != wire.ErrInvalidParam || we.Field != "correlation_id" {
		t.Fatalf("a fifth hop: %v", err)
	}
	acme.s.local.Calls().Leave("call-at-hop-4")
	// The call it named has ended: the id starts no chain now.
	if _, ok := acme.s.local.Calls().Hops("call-at-hop-4"); ok {
		t.Fatal("an ended call's hops are still held")
	}
	if err := sleep("call-at-hop-4"); err != nil {
		t.Fatalf("after the call ended: %v", err)
	}
}

// TestCallerCancelReachesThePeer: when the caller of a call across
// organisations gives up on it, the peer's agent is told to stop, rather
// than working on until the call's deadline. Another organisation cannot
// cancel it with the same id.
func TestCallerCancelReachesThePeer(t *testing.T) {
	for _, tr := range []string{TransportWebSocket, TransportGRPC, TransportHTTP} {
		t.Run(tr, func(t *testing.T) {
			acme, globex := twoGateways(t, tr)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			done := make(chan error, 1)
			go func() {
				_, err := acme.s.local.Query(ctx, localbridge.QueryRequest{From: "client", To: "echo@globex", Tool: "sleep",
					Input: json.RawMessage(`{"ms":20000}`), TimeoutMS: 30000}, nil)
				done <- err
			}()
			var id string
			for end := time.Now().Add(10 * time.Second); id == ""; time.Sleep(2 * time.Millisecond) {
				if time.Now().After(end) {
					t.Fatal("the call never reached globex")
				}
				for k, e := range globex.s.local.Calls().Held() {
					if e.Org == "acme" && e.Cancel != nil {
						id = k
					}
				}
			}
			if globex.s.local.Calls().Cancel("initech", id) {
				t.Fatal("another organisation cancelled acme's call")
			}
			start := time.Now()
			cancel()
			if err := <-done; err == nil {
				t.Fatal("the cancelled call succeeded")
			}
			for globex.s.flight.Count() > 0 {
				if time.Since(start) > 5*time.Second {
					t.Fatal("globex still works on a call its caller gave up on")
				}
				time.Sleep(5 * time.Millisecond)
			}
			if _, ok := globex.s.local.Calls().Hops(id); ok {
				t.Fatal("the call is still held at globex")
			}
		})
	}
}
