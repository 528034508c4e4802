package gateway

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/moltgate/moltgate/classify"
	"github.com/moltgate/moltgate/gateway/pipeline"
	"github.com/moltgate/moltgate/localbridge"
	"github.com/moltgate/moltgate/localbridge/agent"
	"github.com/moltgate/moltgate/wire"
)

// TestDiscoveryPassesTheGate: a discovery query goes to a peer in the
// gateway's own name, but its requirements are a local caller's text: the
// gate stops personal data and secrets in them as in any other message.
func TestDiscoveryPassesTheGate(t *testing.T) {
	acme, _ := twoGateways(t, TransportWebSocket)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if _, err := acme.s.local.Discover(ctx, localbridge.DiscoverRequest{Org: "globex", Capability: "echo.text"}); err != nil {
		t.Fatalf("a plain query: %v", err)
	}
	for q, want := range map[string]struct {
		code   wire.Code
		reason classify.Reason
	}{
		`{"capability":"echo.text","requirements":{"note":"mail jane.doe@example.com"}}`: {wire.ErrConsent, classify.ReasonNoConsent},
		`{"capability":"echo.text","requirements":{"note":"key AKIAZ3MSJV4WWNKWW5V2"}}`:  {wire.ErrClassification, classify.ReasonSecret},
	} {
		before := acme.s.blocks.Get(want.reason, classify.Outbound)
		_, err := acme.s.local.Discover(ctx, localbridge.DiscoverRequest{Org: "globex", Query: json.RawMessage(q)})
		if pipeline.Code(err) != want.code {
			t.Errorf("%s: %v, want %s", q, err, want.code)
		}
		// Stopped on the way out, not by the peer once it had it.
		if acme.s.blocks.Get(want.reason, classify.Outbound) != before+1 {
			t.Errorf("%s: acme's gate did not stop it", q)
		}
	}
}

// TestPartialResultsStreamedWholeToTheGate: an agent that streams its
// answer as partial results a few characters at a time, {"delta": "jane"},
// {"delta": ".doe@"}..., gets an e-mail address or a card number it writes
// stopped before any part of it reaches the peer, as with streamed text.
func TestPartialResultsStreamedWholeToTheGate(t *testing.T) {
	da, la := newTestDir(t, "acme", AddAgentOptions{ID: "client", MaxCls: "pii"})
	db, lb := newTestDir(t, "globex", AddAgentOptions{ID: "writer", Capabilities: []string{"text.write"}, MaxCls: "pii"})
	trustEachOther(t, da, db, "pii")
	write := agent.Tool{Name: "write", Description: "Writes its text as partial results of n bytes.",
		InputSchema: `{"type":"object","properties":{"text":{"type":"string"},"n":{"type":"integer","minimum":1}},"required":["text","n"]}`,
		Handler: func(ctx context.Context, c *agent.Call) (any, error) {
			var in struct {
				Text string `json:"text"`
				N    int    `json:"n"`
			}
			if err := c.Bind(&in); err != nil {
				return nil, err
			}
			// The agent's own output: what it was asked for, with a
			// customer's data in place of the marker.
			text := strings.ReplaceAll(in.Text, "CUSTOMER", "jane.doe@example.com, card 4111 1111 1111 1111")
			for len(text) > 0 {
				k := min(in.N, len(text))
				if err := c.Partial(map[string]string{"delta": text[:k]}); err != nil {
					return nil, err
				}
				text = text[k:]
			}
			return map[string]bool{"done": true}, nil
		}}
	acme := start(t, da, la, TransportWebSocket)
	startAgents(t, db, lb, TransportWebSocket, Options{}, map[string][]agent.Tool{"writer": {write}})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	call := func(text string, n int) (string, error) {
		var got strings.Builder
		input, _ := json.Marshal(map[string]any{"text": text, "n": n})
		_, err := acme.s.local.Query(ctx, localbridge.QueryRequest{From: "client", To: "writer@globex", Tool: "write", Input: input, Class: "conf"},
			func(ev localbridge.StreamEvent) error {
				var p struct{ Delta string }
				json.Unmarshal(ev.Block, &p)
				got.WriteString(p.Delta)
				return nil
			})
		return got.String(), err
	}
	clean := "the plan for the quarter is ready for review"
	if got, err := call(clean, 3); err != nil || got != clean {
		t.Fatalf("a clean answer: %q, %v", got, err)
	}
	for _, n := range []int{1, 3, 7} {
		got, err := call("the customer is CUSTOMER as agreed", n)
		if pipeline.Code(err) != wire.ErrConsent {
			t.Errorf("pieces of %d: %v, want E_CONSENT", n, err)
		}
		for _, leak := range []string{"jane", ".doe", "example", "4111"} {
			if strings.Contains(got, leak) {
				t.Errorf("pieces of %d: %q reached the caller: %q", n, leak, got)
			}
		}
	}
}
