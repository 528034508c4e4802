package gateway

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/moltgate/moltgate/internal/sockio"
	"github.com/moltgate/moltgate/localbridge"
)

// A peer's WebSocket connection reads and writes its socket with direct
// system calls (internal/sockio): the cost it saves is not visible in any
// answer, so this is what keeps it from being lost.
func TestPeerConnectionReadsDirectly(t *testing.T) {
	acme, _ := twoGateways(t, TransportWebSocket)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if _, err := acme.s.local.Query(ctx, localbridge.QueryRequest{From: "client", To: "echo@globex", Tool: "echo",
		Input: json.RawMessage(`{"text":"x"}`), Class: "conf"}, nil); err != nil {
		t.Fatalf("call: %v", err)
	}
	c := acme.s.peers.Get("globex").WebSocketConn()
	if c == nil {
		t.Fatal("no WebSocket connection to globex after a call over it")
	}
	if _, ok := c.(*sockio.Conn); !ok {
		t.Fatalf("the connection to globex is a %T, not a *sockio.Conn", c)
	}
}
