package localbridge_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/moltgate/moltgate/localbridge"
)

// TestUpdateAgent changes a running supervised agent's policy, which keeps its process and
// session, then its command, which relaunches it, then removes it; calls keep coming all along.
func TestUpdateAgent(t *testing.T) {
	b := newBridge(t, localbridge.Config{RestartMin: 10 * time.Millisecond, RestartMax: 50 * time.Millisecond})
	first, second := filepath.Join(b.dir, "first.jsonl"), filepath.Join(b.dir, "second.jsonl")
	spec := localbridge.AgentSpec{ID: "up", Command: []string{os.Args[0], helperFlag, first}}
	if err := b.core.AddAgent(spec); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "agent up", func() bool { a, _ := b.core.Agent("up"); return a.Connected && len(a.Tools) == 4 })
	before, _ := b.core.Agent("up")
	echo := func() error {
		_, err := b.core.Call(context.Background(), localbridge.CallRequest{Agent: "up", Tool: "echo", Input: json.RawMessage(`{"text":"x"}`)}, nil)
		return err
	}

	// Calls run throughout; under -race this shows the swaps are safe.
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			default:
				echo()
				time.Sleep(time.Millisecond)
			}
		}
	}()
	stopCalls := sync.OnceFunc(func() { close(stop); wg.Wait() })
	defer stopCalls()

	// Policy only: the same process and session, the new rules for new calls.
	spec.RequireApproval, spec.QueryTool = true, "echo"
	if relaunched, err := b.core.UpdateAgent(spec); err != nil || relaunched {
		t.Fatalf("policy update: relaunched %v, %v", relaunched, err)
	}
	after, _ := b.core.Agent("up")
	if after.PID != before.PID || after.SessionID != before.SessionID || !after.Connected || !after.RequireApproval || after.QueryTool != "echo" {
		t.Fatalf("after a policy update %+v, before %+v", after, before)
	}
	if err := echo(); codeOf(err) != localbridge.CodeApprovalDenied {
		t.Fatalf("call after approval was required (no approver): %v", err)
	}
	spec.RequireApproval = false
	if _, err := b.core.UpdateAgent(spec); err != nil {
		t.Fatal(err)
	}
	if err := echo(); err != nil {
		t.Fatalf("call after approval was dropped: %v", err)
	}

	// A new command: the call in flight fails at once, the old process goes, the new one
	// comes with a token of its own. (The other calls stop, so that the one in flight is
	// known to be the sleep.)
	stopCalls()
	inFlight := callAsync(context.Background(), b.core, localbridge.CallRequest{Agent: "up", Tool: "sleep", Input: json.RawMessage(`{"ms":3600000}`)})
	waitFor(t, "call in flight", func() bool { a, _ := b.core.Agent("up"); return a.InFlight >= 1 })
	spec.Command = []string{os.Args[0], helperFlag, second}
	if relaunched, err := b.core.UpdateAgent(spec); err != nil || !relaunched {
		t.Fatalf("command update: relaunched %v, %v", relaunched, err)
	}
	if o := <-inFlight; codeOf(o.err) != localbridge.CodeDisconnected {
		t.Fatalf("call in flight during the relaunch: %v", o.err)
	}
	waitFor(t, "old process gone", func() bool { return syscall.Kill(before.PID, 0) == syscall.ESRCH })
	waitFor(t, "relaunched", func() bool {
		a, _ := b.core.Agent("up")
		return a.Connected && a.SessionID != before.SessionID && a.PID != before.PID && len(a.Tools) == 4
	})
	if err := echo(); err != nil {
		t.Fatalf("call after the relaunch: %v", err)
	}
	r1, r2 := readReports(t, first), readReports(t, second)
	if len(r1) != 1 || len(r2) != 1 || r1[0].Token == r2[0].Token {
		t.Fatalf("launches %+v then %+v: want one each, with fresh tokens", r1, r2)
	}
	relaunched, _ := b.core.Agent("up")

	// Removed: the process goes and calls are refused as for an unknown agent.
	if err := b.core.RemoveAgent("up"); err != nil {
		t.Fatal(err)
	}
	if syscall.Kill(relaunched.PID, 0) != syscall.ESRCH {
		t.Fatal("RemoveAgent returned with the process still running")
	}
	if err := echo(); codeOf(err) != localbridge.CodeUnknownAgent {
		t.Fatalf("call after removal: %v", err)
	}
	if _, err := b.core.UpdateAgent(spec); err == nil {
		t.Fatal("updated an agent that is not configured")
	}
	if n := len(b.audit.find(localbridge.AuditAgentStarted)); n != 2 {
		t.Fatalf("%d start events, want 2", n)
	}
	// Shutdown waits for every supervisor and session: none is left over
	// from the relaunch or the removal.
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := b.core.Shutdown(ctx); err != nil {
		t.Fatalf("shutdown: %v", err)
	}
}
