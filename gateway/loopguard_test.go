package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/moltgate/moltgate/localbridge"
	"github.com/moltgate/moltgate/localbridge/agent"
	"github.com/moltgate/moltgate/wire"
)

// TestLoopGuardAcrossOrganisations: acme's client calls globex's bouncer,
// whose tool calls acme's bouncer back while it handles the call, naming
// the call's correlation id, and so on: a ping-pong between two
// organisations. Each crossing counts one hop of the chain; the fifth
// (limits.max_hops is 4) is refused at acme before it leaves, and the
// refusal comes back up the chain as each bouncer's answer. A reply is never
// a call: the answers travel back to the calls that wait for them, and
// start nothing.
func TestLoopGuardAcrossOrganisations(t *testing.T) {
	bouncer := AddAgentOptions{ID: "bouncer", Capabilities: []string{"bounce"}, MaxCls: "pii"}
	da, la := newTestDir(t, "acme", AddAgentOptions{ID: "client", MaxCls: "pii"}, bouncer)
	db, lb := newTestDir(t, "globex", bouncer)
	trustEachOther(t, da, db, "pii")
	var servers [2]atomic.Pointer[Server] // acme's, globex's
	var maxSeen atomic.Int64
	bounce := func(self int, org, other string) agent.Tool {
		return agent.Tool{Name: "bounce", Handler: func(ctx context.Context, c *agent.Call) (any, error) {
			s := servers[self].Load()
			if h, ok := s.local.Calls().Hops(c.CorrelationID); ok && h > maxSeen.Load() {
				maxSeen.Store(h)
			}
			out, err := s.local.Query(ctx, localbridge.QueryRequest{From: "bouncer", To: "bouncer@" + other, Tool: "bounce",
				Input: json.RawMessage(`{}`), Class: "int", CorrelationID: c.CorrelationID}, nil)
			var we *wire.Error
			switch {
			case errors.As(err, &we):
				return map[string]any{"org": org, "stopped": string(we.Code), "field": we.Field}, nil
			case err != nil:
				return nil, err
			}
			return map[string]any{"org": org, "next": json.RawMessage(out)}, nil
		}}
	}
	acme := startAgents(t, da, la, TransportWebSocket, Options{}, map[string][]agent.Tool{"bouncer": {bounce(0, "acme", "globex")}})
	globex := startAgents(t, db, lb, TransportWebSocket, Options{}, map[string][]agent.Tool{"bouncer": {bounce(1, "globex", "acme")}})
	servers[0].Store(acme.s)
	servers[1].Store(globex.s)

	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	out, err := acme.s.local.Query(ctx, localbridge.QueryRequest{From: "client", To: "bouncer@globex", Tool: "bounce",
		Input: json.RawMessage(`{}`), Class: "int"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	// globex at hop 1, acme at 2, globex at 3, acme at 4; acme's fifth is refused.
	want := `{"org":"globex","next":{"org":"acme","next":{"org":"globex","next":{"org":"acme","stopped":"E_INVALID_PARAM","field":"correlation_id"}}}}`
	if !sameJSONText(t, out, want) {
		t.Fatalf("the chain answered\n%s\nwant\n%s", out, want)
	}
	if maxSeen.Load() != 4 {
		t.Fatalf("the deepest call was handled at hop %d, want 4 (limits.max_hops)", maxSeen.Load())
	}
}

func sameJSONText(t *testing.T, a json.RawMessage, b string) bool {
	t.Helper()
	var x, y any
	if err := json.Unmarshal(a, &x); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(b), &y); err != nil {
		t.Fatal(err)
	}
	xa, _ := json.Marshal(x)
	ya, _ := json.Marshal(y)
	return string(xa) == string(ya)
}
