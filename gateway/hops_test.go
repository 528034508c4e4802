package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/moltgate/moltgate/localbridge"
	"github.com/moltgate/moltgate/wire"
)

// hopsSeen waits until globex is handling a call whose message made hops
// hops, and fails the test if none comes.
func hopsSeen(t *testing.T, g *testGateway, hops int64) {
	t.Helper()
	for end := time.Now().Add(10 * time.Second); time.Now().Before(end); time.Sleep(2 * time.Millisecond) {
		g.s.hops.mu.Lock()
		for _, h := range g.s.hops.m {
			if h == hops {
				g.s.hops.mu.Unlock()
				return
			}
		}
		g.s.hops.mu.Unlock()
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
		_, err := acme.s.Query(ctx, localbridge.QueryRequest{From: "client", To: "echo@globex", Tool: "sleep",
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
			acme.s.hops.enter(c.corr, c.in)
		}
		done := make(chan error, 1)
		go func() { done <- sleep(c.corr) }()
		hopsSeen(t, globex, c.want)
		if err := <-done; err != nil {
			t.Fatalf("%s: %v", c.corr, err)
		}
		acme.s.hops.leave(c.corr)
	}

	acme.s.hops.enter("call-at-hop-4", 4)
	err := sleep("call-at-hop-4")
	var we *wire.Error
	if !errors.As(err, &we) || we.Code != wire.ErrInvalidParam || we.Field != "correlation_id" {
		t.Fatalf("a fifth hop: %v", err)
	}
	acme.s.hops.leave("call-at-hop-4")
	// The call it named has ended: the id starts no chain now.
	if _, ok := acme.s.hops.get("call-at-hop-4"); ok {
		t.Fatal("an ended call's hops are still held")
	}
	if err := sleep("call-at-hop-4"); err != nil {
		t.Fatalf("after the call ended: %v", err)
	}
}
