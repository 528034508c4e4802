package localbridge_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/moltgate/moltgate/localbridge"
	"github.com/moltgate/moltgate/localbridge/agent/echo"
	"github.com/moltgate/moltgate/localbridge/osp"
)

func TestTasks(t *testing.T) {
	b := newBridge(t, localbridge.Config{})
	b.runAgent(t, "echo", echo.New())
	ctx := context.Background()

	task, err := b.core.Start(localbridge.CallRequest{Agent: "echo", Tool: "echo", Input: json.RawMessage(`{"text":"t","repeat":2}`)}, localbridge.TaskOptions{ID: "task-1"})
	if err != nil {
		t.Fatal(err)
	}
	res, err := task.Wait(ctx)
	if err != nil || string(res.Output) != `{"text":"t"}` {
		t.Fatalf("%s %v", res.Output, err)
	}
	st := task.Status()
	if st.State != localbridge.TaskSucceeded || st.Chunks != 2 || st.Finished.IsZero() || st.ID != "task-1" {
		t.Fatalf("status %+v", st)
	}
	if got, ok := b.core.Task("task-1"); !ok || got != task {
		t.Fatal("task not found by id")
	}
	if _, err := b.core.Start(localbridge.CallRequest{Agent: "echo", Tool: "echo", Input: json.RawMessage(`{"text":"t"}`)}, localbridge.TaskOptions{ID: "task-1"}); codeOf(err) != localbridge.CodeTaskExists {
		t.Fatalf("duplicate id: %v", err)
	}
	// Checks that need no waiting fail Start itself.
	if _, err := b.core.Start(localbridge.CallRequest{Agent: "echo", Tool: "echo", Input: json.RawMessage(`{}`)}, localbridge.TaskOptions{}); codeOf(err) != osp.CodeInvalidInput {
		t.Fatalf("invalid input: %v", err)
	}

	// Cancel a running task.
	task, err = b.core.Start(localbridge.CallRequest{Agent: "echo", Tool: "sleep", Input: json.RawMessage(`{"ms":3600000}`)}, localbridge.TaskOptions{})
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, "running with progress", func() bool { s := task.Status(); return s.State == localbridge.TaskRunning && s.Progress == "sleeping" })
	task.Cancel()
	<-task.Done()
	if st := task.Status(); st.State != localbridge.TaskCanceled || localbridge.OutcomeOf(st.Err).Status != localbridge.OutcomeCancelled {
		t.Fatalf("status %+v", st)
	}
	waitFor(t, "agent idle", func() bool { a, _ := b.core.Agent("echo"); return a.InFlight == 0 })

	// A task's deadline becomes the call's timeout.
	task, err = b.core.Start(localbridge.CallRequest{Agent: "echo", Tool: "sleep", Input: json.RawMessage(`{"ms":3600000}`)}, localbridge.TaskOptions{Deadline: time.Now().Add(50 * time.Millisecond)})
	if err != nil {
		t.Fatal(err)
	}
	<-task.Done()
	if st := task.Status(); st.State != localbridge.TaskFailed || localbridge.MoltSpeakCode(st.Err) != "E_TIMEOUT" || st.Deadline.IsZero() {
		t.Fatalf("status %+v", st)
	}
}

func TestShutdown(t *testing.T) {
	b := newBridge(t, localbridge.Config{})
	b.runAgent(t, "echo", echo.New())
	done := callAsync(context.Background(), b.core, localbridge.CallRequest{Agent: "echo", Tool: "sleep", Input: json.RawMessage(`{"ms":200}`)})
	waitFor(t, "call in flight", func() bool { a, _ := b.core.Agent("echo"); return a.InFlight == 1 })
	shut := make(chan error, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		shut <- b.core.Shutdown(ctx)
	}()
	waitFor(t, "refusing calls", func() bool {
		_, err := b.core.Call(context.Background(), localbridge.CallRequest{Agent: "echo", Tool: "echo", Input: json.RawMessage(`{"text":"x"}`)}, nil)
		return codeOf(err) == localbridge.CodeShuttingDown
	})
	if o := <-done; o.err != nil {
		t.Fatalf("the call in flight was cut short: %v", o.err)
	}
	if err := <-shut; err != nil {
		t.Fatal(err)
	}
	if _, err := b.core.ProvisionToken("echo", 0); err != localbridge.ErrServerClosed {
		t.Fatalf("provision after shutdown: %v", err)
	}
}

func TestCloseFailsCallsInFlight(t *testing.T) {
	b := newBridge(t, localbridge.Config{})
	b.runAgent(t, "echo", echo.New())
	done := callAsync(context.Background(), b.core, localbridge.CallRequest{Agent: "echo", Tool: "sleep", Input: json.RawMessage(`{"ms":3600000}`)})
	waitFor(t, "call in flight", func() bool { a, _ := b.core.Agent("echo"); return a.InFlight == 1 })
	b.core.Close()
	if o := <-done; codeOf(o.err) != localbridge.CodeShuttingDown || !localbridge.OutcomeOf(o.err).Recoverable {
		t.Fatalf("got %v", o.err)
	}
}
