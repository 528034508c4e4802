package localbridge_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

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
	// The full tool id works too, and a deadline reaches the agent.
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err = b.core.Call(ctx, localbridge.CallRequest{Agent: "echo", Tool: "echo/echo", Input: json.RawMessage(`{"text":"x","meta":true}`)}, nil)
	if err != nil || !strings.Contains(string(res.Output), `"has_deadline":true`) {
		t.Fatalf("%s %v", res.Output, err)
	}
}

// TestCallStreamingOrder sends many chunks to a consumer that is slower than the agent: none
// is lost or reordered, and the agent is held back rather than buffered without bound.
func TestCallStreamingOrder(t *testing.T) {
	b := newBridge(t, localbridge.Config{})
	b.runAgent(t, "echo", echo.New())
	const n = 3000
	next := int64(1)
	res, err := b.core.Call(context.Background(), localbridge.CallRequest{Agent: "echo", Tool: "echo", Input: json.RawMessage(fmt.Sprintf(`{"text":"%s","repeat":%d}`, strings.Repeat("z", 512), n))},
		func(c localbridge.Chunk) error {
			if c.Seq != next {
				return fmt.Errorf("chunk %d arrived when %d was due", c.Seq, next)
			}
			next++
			if c.Seq%500 == 0 {
				time.Sleep(5 * time.Millisecond)
			}
			return nil
		})
	if err != nil {
		t.Fatal(err)
	}
	if res.Chunks != n || next != n+1 {
		t.Fatalf("got %d chunks", res.Chunks)
	}
}

// TestCallProtocol checks the messages of one call on the wire.
func TestCallProtocol(t *testing.T) {
	b := newBridge(t, localbridge.Config{})
	r, _ := b.connectRaw(t, "r", osp.Tool{ToolID: "r/t", Name: "t", InputSchema: json.RawMessage(`{"type":"object","required":["q"]}`)})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	done := callAsync(ctx, b.core, localbridge.CallRequest{
		Agent: "r", Tool: "t", Input: json.RawMessage(`{"q":"x","extra":[1,2]}`), CorrelationID: "task-9", CausationID: "msg-3",
		Caller: localbridge.Caller{Type: "agent", ID: "bob@beta"}, IdempotencyKey: "k", Context: json.RawMessage(`{"project_root":"/p"}`),
	})
	e := r.expect(osp.TypeToolCall)
	var call osp.ToolCall
	e.DecodePayload(&call)
	if e.RequestID == "" || e.CorrelationID != "task-9" || e.CausationID != "msg-3" || e.Actor == nil || e.Actor.ID != "bob@beta" {
		t.Fatalf("call header %+v", e.Header)
	}
	if call.CallID == "" || call.ToolID != "r/t" || string(call.Input) != `{"q":"x","extra":[1,2]}` || call.TimeoutMS <= 0 || call.TimeoutMS > 10000 ||
		call.IdempotencyKey != "k" || call.Caller == nil || call.Caller.Type != "agent" || string(call.Context) != `{"project_root":"/p"}` {
		t.Fatalf("call payload %+v", call)
	}
	echoIDs := func(h *osp.Header) { h.RequestID, h.CorrelationID = e.RequestID, e.CorrelationID }
	r.send(osp.TypeToolStream, osp.ToolStream{CallID: call.CallID, Seq: 1, Channel: "stdout", Data: osp.StreamData{Text: "a"}}, echoIDs)
	r.send(osp.TypeToolStream, osp.ToolStream{CallID: call.CallID, Seq: 2, Channel: "status", Data: osp.StreamData{Text: "half"}}, echoIDs)
	r.send(osp.TypeToolStream, osp.ToolStream{CallID: call.CallID, Seq: 5, Channel: "partial_result", Data: osp.StreamData{JSON: json.RawMessage(`{"n":1}`)}, Done: true}, echoIDs)
	r.send(osp.TypeToolResult, osp.ToolResult{CallID: call.CallID, Status: "succeeded", Output: json.RawMessage(`{"ok":true}`), StartedAt: "2026-01-16T12:00:01Z", Metrics: json.RawMessage(`{"ms":3}`)}, echoIDs)
	o := <-done
	if o.err != nil {
		t.Fatal(o.err)
	}
	if string(o.res.Output) != `{"ok":true}` || string(o.res.Metrics) != `{"ms":3}` || o.res.StartedAt.Year() != 2026 || o.res.CallID != call.CallID {
		t.Fatalf("result %+v", o.res)
	}
	if len(o.chunks) != 3 || o.chunks[0].Text != "a" || o.chunks[1].Channel != "status" || string(o.chunks[2].JSON) != `{"n":1}` || !o.chunks[2].Done || o.chunks[2].Seq != 5 {
		t.Fatalf("chunks %+v", o.chunks)
	}
	// A second result for the same call is a protocol error; the call is long answered.
	id := r.send(osp.TypeToolResult, osp.ToolResult{CallID: call.CallID, Status: "succeeded"})
	if e := r.expect(osp.TypeError); e.Error.Code != osp.CodeDuplicateResult || e.InReplyTo != id {
		t.Fatalf("got %+v", e.Error)
	}
}

func TestCallInvalidInput(t *testing.T) {
	b := newBridge(t, localbridge.Config{})
	r, _ := b.connectRaw(t, "r", osp.Tool{ToolID: "r/t", Name: "t", InputSchema: json.RawMessage(`{"type":"object",
		"properties":{"items":{"type":"array","items":{"type":"object","properties":{"name":{"type":"string","pattern":"^[a-z]+$"}},"required":["name"]}},
		"n":{"type":"integer"},"mode":{"enum":["a","b"]}},"additionalProperties":false}`)})
	cases := []struct{ input, field string }{
		{`{"items":[{"name":"ok"},{}]}`, "items.1.name"},
		{`{"items":[{"name":"SECRETVALUE"}]}`, "items.0.name"},
		{`{"n":"SECRETVALUE"}`, "n"},
		{`{"mode":"SECRETVALUE"}`, "mode"},
		{`{"SECRETVALUE":1}`, "SECRETVALUE"},
		{`[1,2]`, ""},
		{`"SECRETVALUE"`, ""},
		{`{"n":1`, ""},
	}
	for _, c := range cases {
		_, err := b.core.Call(context.Background(), localbridge.CallRequest{Agent: "r", Tool: "t", Input: json.RawMessage(c.input)}, nil)
		var e *localbridge.Error
		if !errors.As(err, &e) || e.Code != osp.CodeInvalidInput || e.Field != c.field {
			t.Errorf("%s: got %v, want tool.invalid_input on %q", c.input, err, c.field)
			continue
		}
		if strings.Contains(e.Message, "SECRETVALUE") {
			t.Errorf("%s: message echoes the input: %q", c.input, e.Message)
		}
		if o := localbridge.OutcomeOf(err); o.Code != "E_INVALID_PARAM" || o.Field != c.field {
			t.Errorf("%s: outcome %+v", c.input, o)
		}
	}
	// Nothing reached the agent.
	r.send(osp.TypeHeartbeat, osp.Heartbeat{SessionID: "wrong", Status: "ok"})
	if e := r.next(); e.Type != osp.TypeError {
		t.Fatalf("the agent received %s", e.Type)
	}
}

func TestCallCancel(t *testing.T) {
	b := newBridge(t, localbridge.Config{CancelGrace: time.Hour})
	r, _ := b.connectRaw(t, "r")
	ctx, cancel := context.WithCancel(context.Background())
	done := callAsync(ctx, b.core, localbridge.CallRequest{Agent: "r", Tool: "t"})
	var call osp.ToolCall
	r.expect(osp.TypeToolCall).DecodePayload(&call)
	cancel()
	o := <-done
	if codeOf(o.err) != osp.CodeToolCanceled || !localbridge.IsCanceled(o.err) || !errors.Is(o.err, context.Canceled) {
		t.Fatalf("got %v", o.err)
	}
	var c osp.ToolCancel
	r.expect(osp.TypeToolCancel).DecodePayload(&c)
	if c.CallID != call.CallID || c.Reason != "canceled" {
		t.Fatalf("cancel %+v", c)
	}
	// The slot stays taken until the agent answers.
	if a, _ := b.core.Agent("r"); a.InFlight != 1 {
		t.Fatalf("in flight %d", a.InFlight)
	}
	r.send(osp.TypeCancelAck, osp.CancelAck{CallID: call.CallID, Accepted: true})
	r.send(osp.TypeToolResult, osp.ToolResult{CallID: call.CallID, Status: "canceled", Error: &osp.Error{Code: "tool.canceled"}})
	waitFor(t, "slot released", func() bool { a, _ := b.core.Agent("r"); return a.InFlight == 0 })
}

func TestCallCancelGrace(t *testing.T) {
	b := newBridge(t, localbridge.Config{CancelGrace: 20 * time.Millisecond})
	r, _ := b.connectRaw(t, "r")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
	defer cancel()
	done := callAsync(ctx, b.core, localbridge.CallRequest{Agent: "r", Tool: "t"})
	var call osp.ToolCall
	r.expect(osp.TypeToolCall).DecodePayload(&call)
	o := <-done
	if codeOf(o.err) != localbridge.CodeTimeout || localbridge.MoltSpeakCode(o.err) != "E_TIMEOUT" {
		t.Fatalf("got %v", o.err)
	}
	var c osp.ToolCancel
	r.expect(osp.TypeToolCancel).DecodePayload(&c)
	if c.Reason != "deadline" {
		t.Fatalf("cancel reason %q", c.Reason)
	}
	waitFor(t, "slot released after the grace", func() bool { a, _ := b.core.Agent("r"); return a.InFlight == 0 })
	// A late result is dropped without complaint: the next core.error answers the message after it.
	r.send(osp.TypeToolResult, osp.ToolResult{CallID: call.CallID, Status: "succeeded"})
	id := r.send("agent.nonsense", nil)
	if e := r.expect(osp.TypeError); e.InReplyTo != id {
		t.Fatalf("core.error for %q, want %q", e.InReplyTo, id)
	}
}

func TestCallCancelSDK(t *testing.T) {
	b := newBridge(t, localbridge.Config{})
	b.runAgent(t, "echo", echo.New())
	ctx, cancel := context.WithCancel(context.Background())
	done := callAsync(ctx, b.core, localbridge.CallRequest{Agent: "echo", Tool: "sleep", Input: json.RawMessage(`{"ms":3600000}`)})
	waitFor(t, "call running", func() bool { a, _ := b.core.Agent("echo"); return a.InFlight == 1 })
	cancel()
	if o := <-done; !localbridge.IsCanceled(o.err) {
		t.Fatalf("got %v", o.err)
	}
	// The agent's handler saw its context end and answered, which frees the slot.
	waitFor(t, "agent finished the call", func() bool { a, _ := b.core.Agent("echo"); return a.InFlight == 0 })
}

func TestCallErrorShaping(t *testing.T) {
	b := newBridge(t, localbridge.Config{})
	b.runAgent(t, "echo", echo.New())
	r, _ := b.connectRaw(t, "r")
	b.core.AddAgent(localbridge.AgentSpec{ID: "offline"})

	call := func(agent, tool, input string) error {
		_, err := b.core.Call(context.Background(), localbridge.CallRequest{Agent: agent, Tool: tool, Input: json.RawMessage(input)}, nil)
		return err
	}
	check := func(name string, err error, code, ms string, where string) {
		t.Helper()
		var e *localbridge.Error
		if !errors.As(err, &e) || e.Code != code || localbridge.MoltSpeakCode(err) != ms || (where != "" && e.Where != where) {
			t.Errorf("%s: got %v (where %q), want %s → %s", name, err, e.Where, code, ms)
		}
	}
	err := call("echo", "fail", `{"code":"tool.no_funds","message":"the account is empty","retryable":true}`)
	check("tool failure", err, "tool.no_funds", "E_TASK_FAILED", "agent")
	if e := err.(*localbridge.Error); e.Message != "the account is empty" || !e.Retryable || !localbridge.OutcomeOf(err).Recoverable {
		t.Errorf("tool failure detail %+v", e)
	}
	check("agent says invalid input", call("echo", "fail", `{"code":"tool.invalid_input"}`), osp.CodeInvalidInput, "E_INVALID_PARAM", "agent")
	check("agent says timeout", call("echo", "fail", `{"code":"tool.timeout"}`), osp.CodeToolTimeout, "E_TIMEOUT", "agent")
	check("unknown agent", call("ghost", "echo", `{}`), localbridge.CodeUnknownAgent, "E_AGENT_NOT_FOUND", "core")
	check("unknown tool", call("echo", "nope", `{}`), localbridge.CodeUnknownTool, "E_INVALID_PARAM", "core")
	check("offline agent", call("offline", "echo", `{}`), localbridge.CodeAgentUnavailable, "E_TASK_FAILED", "core")
	if o := localbridge.OutcomeOf(call("echo", "nope", `{}`)); o.Field != "tool" {
		t.Errorf("unknown tool field %q", o.Field)
	}

	// What a raw agent can get wrong in its result.
	results := []struct {
		name   string
		result osp.ToolResult
		code   string
	}{
		{"failed without error", osp.ToolResult{Status: "failed"}, osp.CodeToolFailed},
		{"failed with top-level error only", osp.ToolResult{Status: "failed"}, "tool.disk_full"},
		{"canceled with a specific code", osp.ToolResult{Status: "canceled", Error: &osp.Error{Code: "tool.canceled.by_user"}}, osp.CodeToolCanceled},
		{"output not an object", osp.ToolResult{Status: "succeeded", Output: json.RawMessage(`[1]`)}, osp.CodeOutputMalformed},
		{"unknown status", osp.ToolResult{Status: "exploded"}, osp.CodeInvalidMessage},
	}
	for _, c := range results {
		done := callAsync(context.Background(), b.core, localbridge.CallRequest{Agent: "r", Tool: "t"})
		var p osp.ToolCall
		r.expect(osp.TypeToolCall).DecodePayload(&p)
		c.result.CallID = p.CallID
		r.send(osp.TypeToolResult, c.result, func(h *osp.Header) {
			if c.name == "failed with top-level error only" {
				h.Error = &osp.Error{Code: "tool.disk_full", Message: "no space"}
			}
		})
		o := <-done
		if codeOf(o.err) != c.code {
			t.Errorf("%s: got %v, want %s", c.name, o.err, c.code)
		}
		if c.name == "unknown status" {
			if e := r.expect(osp.TypeError); e.Error.Code != osp.CodeInvalidMessage {
				t.Errorf("unknown status answered with %v", e.Error)
			}
		}
	}
	// A succeeded result without output is an empty object.
	done := callAsync(context.Background(), b.core, localbridge.CallRequest{Agent: "r", Tool: "t"})
	var p osp.ToolCall
	r.expect(osp.TypeToolCall).DecodePayload(&p)
	r.send(osp.TypeToolResult, osp.ToolResult{CallID: p.CallID, Status: "succeeded"})
	if o := <-done; o.err != nil || string(o.res.Output) != "{}" {
		t.Fatalf("%s %v", o.res.Output, o.err)
	}
}

func TestCallOutputLimit(t *testing.T) {
	b := newBridge(t, localbridge.Config{MaxOutputBytes: 10 << 10})
	b.runAgent(t, "echo", echo.New())
	_, err := b.core.Call(context.Background(), localbridge.CallRequest{Agent: "echo", Tool: "echo", Input: json.RawMessage(`{"text":"` + strings.Repeat("y", 1024) + `","repeat":100}`)}, nil)
	if codeOf(err) != osp.CodeOutputTooLarge {
		t.Fatalf("got %v", err)
	}
	waitFor(t, "agent idle", func() bool { a, _ := b.core.Agent("echo"); return a.InFlight == 0 })
	if _, err := b.core.Call(context.Background(), localbridge.CallRequest{Agent: "echo", Tool: "echo", Input: json.RawMessage(`{"text":"ok"}`)}, nil); err != nil {
		t.Fatal(err)
	}
}

func TestCallOnChunkError(t *testing.T) {
	b := newBridge(t, localbridge.Config{})
	b.runAgent(t, "echo", echo.New())
	stop := errors.New("enough")
	_, err := b.core.Call(context.Background(), localbridge.CallRequest{Agent: "echo", Tool: "echo", Input: json.RawMessage(`{"text":"a","repeat":100000}`)},
		func(c localbridge.Chunk) error {
			if c.Seq == 10 {
				return stop
			}
			return nil
		})
	if err != stop {
		t.Fatalf("got %v", err)
	}
	waitFor(t, "agent stopped the call", func() bool { a, _ := b.core.Agent("echo"); return a.InFlight == 0 })
}

// TestInFlightLimit holds calls at a raw agent: 256 reach it, the rest wait, and beyond the
// queue calls are refused at once.
func TestInFlightLimit(t *testing.T) {
	b := newBridge(t, localbridge.Config{MaxQueued: 10})
	r, _ := b.connectRaw(t, "r")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	const n = 266
	outcomes := make(chan callOutcome, n)
	for range n {
		go func() { outcomes <- <-callAsync(ctx, b.core, localbridge.CallRequest{Agent: "r", Tool: "t"}) }()
	}
	var ids []string
	for range 256 {
		var p osp.ToolCall
		r.expect(osp.TypeToolCall).DecodePayload(&p)
		ids = append(ids, p.CallID)
	}
	waitFor(t, "10 queued", func() bool { a, _ := b.core.Agent("r"); return a.InFlight == 256 && a.Queued == 10 })
	a, _ := b.core.Agent("r")
	if a.Load != 1 || a.MaxInFlight != 256 {
		t.Fatalf("info %+v", a)
	}
	_, err := b.core.Call(ctx, localbridge.CallRequest{Agent: "r", Tool: "t"}, nil)
	if codeOf(err) != localbridge.CodeOverloaded || localbridge.MoltSpeakCode(err) != "E_RATE_LIMIT" {
		t.Fatalf("got %v", err)
	}
	// Answering calls lets the queued ones through, never more than 256 at a time.
	answered := 0
	for len(ids) > 0 {
		r.send(osp.TypeToolResult, osp.ToolResult{CallID: ids[0], Status: "succeeded"})
		ids = ids[1:]
		answered++
		if answered <= 10 {
			var p osp.ToolCall
			r.expect(osp.TypeToolCall).DecodePayload(&p)
			ids = append(ids, p.CallID)
		}
	}
	for range n {
		if o := <-outcomes; o.err != nil {
			t.Fatal(o.err)
		}
	}
}
