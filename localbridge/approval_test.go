package localbridge_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/moltgate/moltgate/localbridge"
	"github.com/moltgate/moltgate/localbridge/agent/echo"
)

// approvalEvents subscribes to approvals for the rest of the test and
// returns a function that waits for the next event.
func approvalEvents(t *testing.T, approvals *localbridge.Approvals) func() localbridge.ApprovalEvent {
	events := make(chan localbridge.ApprovalEvent, 10)
	t.Cleanup(approvals.Subscribe(func(e localbridge.ApprovalEvent) { events <- e }))
	return func() localbridge.ApprovalEvent {
		t.Helper()
		select {
		case e := <-events:
			return e
		case <-time.After(20 * time.Second):
			t.Fatal("no approval event")
		}
		panic("unreachable")
	}
}

func TestApprovals(t *testing.T) {
	approvals := &localbridge.Approvals{}
	b := newBridge(t, localbridge.Config{Approver: approvals})
	b.runAgent(t, "echo", echo.New())
	b.runAgent(t, "careful", echo.New(), localbridge.AgentSpec{RequireApproval: true})
	next := approvalEvents(t, approvals)

	// A tool with side effects waits for a human; the arguments shown are masked by class.
	done := callAsync(context.Background(), b.core, localbridge.CallRequest{
		Agent: "echo", Tool: "count", Input: json.RawMessage(`{"by":2}`), Class: "pii",
		Caller: localbridge.Caller{Type: "agent", ID: "alice@acme"}, CorrelationID: "q-1",
	})
	e := next()
	req := e.Request
	if e.Decision != "" || req.Agent != "echo" || req.Tool != "count" || string(req.Arguments) != `{"by":"[masked]"}` ||
		req.Risk.Level != localbridge.RiskCritical || req.Risk.Reversible || req.Caller.ID != "alice@acme" || req.CorrelationID != "q-1" ||
		req.Expires.Before(req.RequestedAt) || req.Description == "" {
		t.Fatalf("request %+v", req)
	}
	if p := approvals.Pending(); len(p) != 1 || p[0].ID != req.ID {
		t.Fatalf("pending %+v", p)
	}
	if err := approvals.Decide(req.ID, true); err != nil {
		t.Fatal(err)
	}
	if o := <-done; o.err != nil || string(o.res.Output) != `{"count":2}` {
		t.Fatalf("%s %v", o.res.Output, o.err)
	}
	if e := next(); e.Decision != localbridge.DecisionApproved || e.Request.ID != req.ID {
		t.Fatalf("resolution %+v", e)
	}
	if err := approvals.Decide(req.ID, true); !errors.Is(err, localbridge.ErrNoSuchApproval) {
		t.Fatalf("second decision: %v", err)
	}

	// Denied: E_CAPABILITY, and the tool never ran.
	done = callAsync(context.Background(), b.core, localbridge.CallRequest{Agent: "echo", Tool: "count", Input: json.RawMessage(`{"by":5}`)})
	req = next().Request
	if req.Risk.Level != localbridge.RiskHigh || string(req.Arguments) != `{"by":5}` {
		t.Fatalf("request %+v", req)
	}
	approvals.Decide(req.ID, false)
	o := <-done
	if codeOf(o.err) != localbridge.CodeApprovalDenied || localbridge.MoltSpeakCode(o.err) != "E_CAPABILITY" {
		t.Fatalf("denied call: %v", o.err)
	}
	if e := next(); e.Decision != localbridge.DecisionDenied {
		t.Fatalf("resolution %+v", e)
	}

	// An agent configured for approval holds even its harmless tools.
	done = callAsync(context.Background(), b.core, localbridge.CallRequest{Agent: "careful", Tool: "echo", Input: json.RawMessage(`{"text":"x"}`), Class: "sec"})
	req = next().Request
	if req.Risk.Level != localbridge.RiskCritical || string(req.Arguments) != `{"text":"[redacted]"}` || !strings.Contains(strings.Join(req.Risk.Reasons, ";"), "configuration") {
		t.Fatalf("request %+v", req)
	}
	approvals.Decide(req.ID, true)
	if o := <-done; o.err != nil {
		t.Fatal(o.err)
	}
	next()

	// The caller giving up withdraws the request.
	ctx, cancel := context.WithCancel(context.Background())
	done = callAsync(ctx, b.core, localbridge.CallRequest{Agent: "echo", Tool: "count"})
	next()
	cancel()
	if o := <-done; !localbridge.IsCanceled(o.err) {
		t.Fatalf("got %v", o.err)
	}
	if e := next(); e.Decision != localbridge.DecisionExpired || len(approvals.Pending()) != 0 {
		t.Fatalf("resolution %+v", e)
	}
	if n := len(b.audit.find(localbridge.AuditApprovalGranted)); n != 2 {
		t.Fatalf("%d grants audited", n)
	}
}

// TestApprovalAgentRemoved: removing an agent ends the wait of its calls
// held for approval at once, as an unknown agent, and withdraws their
// requests; a new configuration of the agent does not.
func TestApprovalAgentRemoved(t *testing.T) {
	approvals := &localbridge.Approvals{}
	b := newBridge(t, localbridge.Config{Approver: approvals, ApprovalTimeout: time.Hour})
	b.runAgent(t, "echo", echo.New())
	next := approvalEvents(t, approvals)

	done := callAsync(context.Background(), b.core, localbridge.CallRequest{Agent: "echo", Tool: "count"})
	next()
	// A policy change keeps the request waiting.
	if _, err := b.core.UpdateAgent(localbridge.AgentSpec{ID: "echo", RequireApproval: true}); err != nil {
		t.Fatal(err)
	}
	select {
	case o := <-done:
		t.Fatalf("the call ended on a policy change: %v", o.err)
	case <-time.After(100 * time.Millisecond):
	}
	if err := b.core.RemoveAgent("echo"); err != nil {
		t.Fatal(err)
	}
	select {
	case o := <-done:
		if codeOf(o.err) != localbridge.CodeUnknownAgent || localbridge.MoltSpeakCode(o.err) != "E_AGENT_NOT_FOUND" || !strings.Contains(o.err.Error(), "removed") {
			t.Fatalf("got %v", o.err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the call still waits for approval after its agent was removed")
	}
	if e := next(); e.Decision != localbridge.DecisionExpired || len(approvals.Pending()) != 0 {
		t.Fatalf("resolution %+v, pending %d", e, len(approvals.Pending()))
	}
}

func TestApprovalTimeoutAndNoApprover(t *testing.T) {
	b := newBridge(t, localbridge.Config{Approver: &localbridge.Approvals{}, ApprovalTimeout: 30 * time.Millisecond})
	b.runAgent(t, "echo", echo.New())
	_, err := b.core.Call(context.Background(), localbridge.CallRequest{Agent: "echo", Tool: "count"}, nil)
	if codeOf(err) != localbridge.CodeApprovalDenied || localbridge.MoltSpeakCode(err) != "E_CAPABILITY" || !strings.Contains(err.Error(), "in time") {
		t.Fatalf("got %v", err)
	}
	if ev := b.audit.find(localbridge.AuditApprovalRefused); len(ev) != 1 || ev[0].Tool != "count" {
		t.Fatalf("audit %+v", ev)
	}

	nb := newBridge(t, localbridge.Config{})
	nb.runAgent(t, "echo", echo.New())
	_, err = nb.core.Call(context.Background(), localbridge.CallRequest{Agent: "echo", Tool: "count"}, nil)
	if codeOf(err) != localbridge.CodeApprovalDenied {
		t.Fatalf("without an approver: %v", err)
	}
	if _, err := nb.core.Call(context.Background(), localbridge.CallRequest{Agent: "echo", Tool: "echo", Input: json.RawMessage(`{"text":"free"}`)}, nil); err != nil {
		t.Fatalf("a tool without side effects: %v", err)
	}
}

func TestMaskArguments(t *testing.T) {
	args := json.RawMessage(`{"email":"jane@example.com","n":5,"ok":true,"list":["a",{"b":null}]}`)
	for class, want := range map[string]string{
		"pub":  string(args),
		"int":  string(args),
		"conf": string(args),
		"pii":  `{"email":"[masked]","list":["[masked]",{"b":null}],"n":"[masked]","ok":true}`,
		"sec":  `{"email":"[redacted]","list":["[redacted]",{"b":"[redacted]"}],"n":"[redacted]","ok":"[redacted]"}`,
		"odd":  `{"email":"[redacted]","list":["[redacted]",{"b":"[redacted]"}],"n":"[redacted]","ok":"[redacted]"}`,
	} {
		if got := string(localbridge.MaskArguments(class, args)); got != want {
			t.Errorf("%s: got %s", class, got)
		}
	}
	if got := string(localbridge.MaskArguments("pii", json.RawMessage(`{bad`))); got != `"[redacted]"` {
		t.Errorf("malformed: %s", got)
	}
}
