package gateway

import (
	"context"
	"encoding/json"
	"sync"
	"testing"
	"time"

	"github.com/moltgate/moltgate/gateway/pipeline"
	"github.com/moltgate/moltgate/localbridge"
	"github.com/moltgate/moltgate/wire"
)

// TestHungAgentLeavesRoomForOthers: calls to an agent that does not answer
// hold the gateway's places for calls in flight while they wait. They may
// take half of them, no more: a call to another agent is still answered,
// and the calls past the hung agent's share are refused at once, as
// retryable, rather than wait for it.
func TestHungAgentLeavesRoomForOthers(t *testing.T) {
	da, la := newTestDir(t, "acme", AddAgentOptions{ID: "client", MaxCls: "pii"})
	db, lb := newTestDir(t, "globex",
		AddAgentOptions{ID: "slow", Capabilities: []string{"slow.work"}, MaxCls: "pii"},
		AddAgentOptions{ID: "echo", Capabilities: []string{"echo.text"}, QueryTool: "echo", MaxCls: "pii"})
	trustEachOther(t, da, db, "pii")
	setConfig(t, db, "max_in_flight = 1024", "max_in_flight = 16")
	acme, globex := start(t, da, la, TransportWebSocket), start(t, db, lb, TransportWebSocket)

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	// The first call makes the session, so that the others do not race to.
	if _, err := acme.s.local.Query(ctx, localbridge.QueryRequest{From: "client", To: "echo@globex", Tool: "echo",
		Input: json.RawMessage(`{"text":"hello"}`)}, nil); err != nil {
		t.Fatal(err)
	}
	hung, stop := context.WithCancel(ctx)
	var wg sync.WaitGroup
	codes := make(chan wire.Code, 16)
	for range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := acme.s.local.Query(hung, localbridge.QueryRequest{From: "client", To: "slow@globex", Tool: "sleep",
				Input: json.RawMessage(`{"ms":60000}`)}, nil)
			codes <- pipeline.Code(err)
		}()
	}
	defer func() { stop(); wg.Wait() }()
	// Half the gateway's 16 places: 4 calls running at the agent, 4
	// waiting for it; the other 8 are refused.
	for range 8 {
		select {
		case c := <-codes:
			if c != wire.ErrRateLimit {
				t.Fatalf("a call past the hung agent's share: %q, want %s", c, wire.ErrRateLimit)
			}
		case <-ctx.Done():
			t.Fatalf("the calls past the hung agent's share were not refused; %d in flight", globex.s.flight.Count())
		}
	}
	within(t, 5*time.Second, "the hung agent's share in flight", func() bool { return globex.s.flight.Count() == 8 })
	if _, err := acme.s.local.Query(ctx, localbridge.QueryRequest{From: "client", To: "echo@globex", Tool: "echo",
		Input: json.RawMessage(`{"text":"still here"}`)}, nil); err != nil {
		t.Fatalf("a call to another agent beside the hung one: %v", err)
	}
}
