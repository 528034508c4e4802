package localbridge_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/moltgate/moltgate/localbridge"
	"github.com/moltgate/moltgate/localbridge/osp"
)

// reconnectUnregistered drops r's connection and admits the agent again, stopping short
// of agent.tools.register: the gap in which a call finds a known agent without its tools.
func (b *bridge) reconnectUnregistered(t *testing.T, r *rawAgent, id string) (*rawAgent, osp.Welcome) {
	t.Helper()
	r.conn.Close()
	waitFor(t, "the old connection gone", func() bool { a, _ := b.core.Agent(id); return !a.Connected })
	tok, err := b.core.ProvisionToken(id, 0)
	if err != nil {
		t.Fatal(err)
	}
	r2 := dialRaw(t, b.path)
	r2.send(osp.TypeHello, hello(tok.Reveal(), id))
	var w osp.Welcome
	if err := r2.expect(osp.TypeWelcome).DecodePayload(&w); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the new connection live", func() bool { a, _ := b.core.Agent(id); return a.Connected && a.SessionID == w.SessionID })
	return r2, w
}

// awaitHeld waits until the agent has n calls queued, failing at once if the call ends
// first: it was not held.
func awaitHeld(t *testing.T, b *bridge, id string, n int, done <-chan callOutcome) {
	t.Helper()
	waitFor(t, "calls held", func() bool {
		select {
		case o := <-done:
			t.Fatalf("the call was answered in the gap, not held: %v", o.err)
		default:
		}
		a, _ := b.core.Agent(id)
		return a.Queued == n
	})
}

// A call that comes while a known agent is back but has not registered its tools yet is
// held until it has, then made; a task started in the gap likewise.
func TestCallWaitsForReregistration(t *testing.T) {
	b := newBridge(t, localbridge.Config{})
	tools := []osp.Tool{{ToolID: "r/t", Name: "t", InputSchema: json.RawMessage(`{"type":"object","required":["q"]}`)}}
	r, _ := b.connectRaw(t, "r", tools...)
	r2, _ := b.reconnectUnregistered(t, r, "r")

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // a guard against hanging
	defer cancel()
	done := callAsync(ctx, b.core, localbridge.CallRequest{Agent: "r", Tool: "t", Input: json.RawMessage(`{"q":"x"}`)})
	task, err := b.core.Start(localbridge.CallRequest{Agent: "r", Tool: "r/t", Input: json.RawMessage(`{"q":"y"}`)}, localbridge.TaskOptions{})
	if err != nil {
		t.Fatalf("a task started in the gap: %v", err)
	}
	awaitHeld(t, b, "r", 2, done)
	if st := task.Status(); st.State != localbridge.TaskPending {
		t.Fatalf("task in the gap: %+v", st)
	}

	r2.send(osp.TypeToolsRegister, osp.ToolsRegister{Tools: tools})
	r2.expect(osp.TypeToolsRegistered)
	inputs := map[string]bool{}
	for range 2 {
		e := r2.expect(osp.TypeToolCall)
		var call osp.ToolCall
		e.DecodePayload(&call)
		inputs[string(call.Input)] = true
		r2.send(osp.TypeToolResult, osp.ToolResult{CallID: call.CallID, Status: "succeeded", Output: call.Input},
			func(h *osp.Header) { h.RequestID, h.CorrelationID = e.RequestID, e.CorrelationID })
	}
	if !inputs[`{"q":"x"}`] || !inputs[`{"q":"y"}`] {
		t.Fatalf("the agent was called with %v", inputs)
	}
	if o := <-done; o.err != nil || string(o.res.Output) != `{"q":"x"}` {
		t.Fatalf("held call: %+v", o)
	}
	<-task.Done()
	if st := task.Status(); st.State != localbridge.TaskSucceeded || string(st.Result.Output) != `{"q":"y"}` {
		t.Fatalf("held task: %+v", st)
	}
	if a, _ := b.core.Agent("r"); a.Queued != 0 {
		t.Fatalf("%d calls still queued", a.Queued)
	}
}

// Once the agent has registered, a tool it did not register is core.unknown_tool at once;
// a held call is checked against the schema the agent registered again.
func TestCallHeldThenRefused(t *testing.T) {
	b := newBridge(t, localbridge.Config{})
	r, _ := b.connectRaw(t, "r")
	r2, _ := b.reconnectUnregistered(t, r, "r")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	gone := callAsync(ctx, b.core, localbridge.CallRequest{Agent: "r", Tool: "t"})
	strict := callAsync(ctx, b.core, localbridge.CallRequest{Agent: "r", Tool: "u", Input: json.RawMessage(`{}`)})
	awaitHeld(t, b, "r", 2, gone)
	r2.send(osp.TypeToolsRegister, osp.ToolsRegister{Tools: []osp.Tool{
		{ToolID: "r/u", Name: "u", InputSchema: json.RawMessage(`{"type":"object","required":["q"]}`)},
	}})
	r2.expect(osp.TypeToolsRegistered)
	if o := <-gone; codeOf(o.err) != localbridge.CodeUnknownTool {
		t.Fatalf("a tool the agent did not register again: %v", o.err)
	}
	if o := <-strict; codeOf(o.err) != osp.CodeInvalidInput {
		t.Fatalf("input the new schema refuses: %v", o.err)
	}
	if _, err := b.core.Call(ctx, localbridge.CallRequest{Agent: "r", Tool: "t"}, nil); codeOf(err) != localbridge.CodeUnknownTool {
		t.Fatalf("after the registration: %v", err)
	}
}

// The hold is bounded: by the call's own deadline, by the connection's end, and by
// Config.RegisterWait after the connection was admitted, past which an agent that has
// still registered nothing is told of no tool at once.
func TestCallHoldBounded(t *testing.T) {
	b := newBridge(t, localbridge.Config{})
	r, _ := b.connectRaw(t, "r")
	r2, _ := b.reconnectUnregistered(t, r, "r")

	ctx, cancel := context.WithCancel(context.Background())
	done := callAsync(ctx, b.core, localbridge.CallRequest{Agent: "r", Tool: "t"})
	awaitHeld(t, b, "r", 1, done)
	cancel()
	if o := <-done; !localbridge.IsCanceled(o.err) {
		t.Fatalf("a cancelled held call: %v", o.err)
	}

	guard, stop := context.WithTimeout(context.Background(), time.Minute)
	defer stop()
	done = callAsync(guard, b.core, localbridge.CallRequest{Agent: "r", Tool: "t"})
	awaitHeld(t, b, "r", 1, done)
	r2.conn.Close()
	if o := <-done; codeOf(o.err) != localbridge.CodeDisconnected && codeOf(o.err) != localbridge.CodeAgentUnavailable {
		t.Fatalf("a held call whose connection ended: %v", o.err)
	} else if !localbridge.OutcomeOf(o.err).Recoverable {
		t.Fatalf("not recoverable: %v", o.err)
	}

	nb := newBridge(t, localbridge.Config{RegisterWait: time.Nanosecond})
	r, _ = nb.connectRaw(t, "r")
	nb.reconnectUnregistered(t, r, "r")
	if _, err := nb.core.Call(guard, localbridge.CallRequest{Agent: "r", Tool: "t"}, nil); codeOf(err) != localbridge.CodeUnknownTool {
		t.Fatalf("past RegisterWait: %v", err)
	}
}

// Calls held for one agent count among its queued calls, under MaxQueued.
func TestCallHoldQueueLimit(t *testing.T) {
	b := newBridge(t, localbridge.Config{MaxQueued: 1})
	r, _ := b.connectRaw(t, "r")
	b.reconnectUnregistered(t, r, "r")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := callAsync(ctx, b.core, localbridge.CallRequest{Agent: "r", Tool: "t"})
	awaitHeld(t, b, "r", 1, done)
	_, err := b.core.Call(ctx, localbridge.CallRequest{Agent: "r", Tool: "t"}, nil)
	if codeOf(err) != localbridge.CodeOverloaded || !localbridge.OutcomeOf(err).Recoverable {
		t.Fatalf("beyond MaxQueued: %v", err)
	}
}
