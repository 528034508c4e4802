package localbridge_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/moltgate/moltgate/localbridge"
	"github.com/moltgate/moltgate/localbridge/agent/echo"
	"github.com/moltgate/moltgate/localbridge/osp"
)

func TestCallEcho(t *testing.T) {
	b := newBridge(t, localbridge.Config{})
	b.runAgent(t, "echo", echo.New())
	var chunks []localbridge.Chunk
	res, err := b.core.Call(context.Background(), localbridge.CallRequest{
		Agent: "echo", Tool: "echo", Input: json.RawMessage(`{"text":"hi","repeat":3,"meta":true}`),
		RequestID: "req-1", CorrelationID: "corr-1", IdempotencyKey: "idem-1",
		Caller: localbridge.Caller{Type: "agent", ID: "alice@acme"},
	}, func(c localbridge.Chunk) error { chunks = append(chunks, c); return nil })
	if err != nil {
		t.Fatal(err)
	}
	var out struct {
		Text           string `json:"text"`
		RequestID      string `json:"request_id"`
		CorrelationID  string `json:"correlation_id"`
		IdempotencyKey string `json:"idempotency_key"`
		Caller         struct{ Type, ID string }
		HasDeadline    bool `json:"has_deadline"`
	}
	if err := json.Unmarshal(res.Output, &out); err != nil {
		t.Fatal(err)
	}
	if out.Text != "hi" || out.RequestID != "req-1" || out.CorrelationID != "corr-1" || out.IdempotencyKey != "idem-1" || out.Caller.ID != "alice@acme" || out.HasDeadline {
		t.Fatalf("output %s", res.Output)
	}
	if len(chunks) != 3 || res.Chunks != 3 {
		t.Fatalf("got %d chunks (result says %d)", len(chunks), res.Chunks)
	}
	for i, c := range chunks {
		if c.Seq != int64(i+1) || c.Channel != "stdout" || c.Text != "hi" {
			t.Fatalf("chunk %d: %+v", i, c)
		}
	}
	if res.CallID == "" || res.StartedAt.IsZero() || res.FinishedAt.IsZero() {
		t.Fatalf("result %+v", res)
	}
	// Full tool ids work too.
	if _, err := b.core.Call(context.Background(), localbridge.CallRequest{Agent: "echo", Tool: "echo/echo", Input: json.RawMessage(`{"text":"x"}`)}, nil); err != nil {
		t.Fatal(err)
	}
	_ = strings.TrimSpace
	_ = osp.Version
}
