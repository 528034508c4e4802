package echo_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/moltgate/moltgate/localbridge"
)

// TestEchoAgentProgram builds the echoagent command and lets a Core launch it, as the
// gateway, the demo and the benchmark do.
func TestEchoAgentProgram(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a program")
	}
	dir, err := os.MkdirTemp("", "echo")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	bin := filepath.Join(dir, "echoagent")
	if out, err := exec.Command("go", "build", "-o", bin, "./echoagent").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	l, err := localbridge.ListenUnix(filepath.Join(dir, "core.sock"))
	if err != nil {
		t.Fatal(err)
	}
	core := localbridge.NewCore(localbridge.Config{Logger: slog.New(slog.DiscardHandler)})
	go core.Serve(l)
	defer core.Close()
	if err := core.AddAgent(localbridge.AgentSpec{ID: "echo", Command: []string{bin}}); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for info, _ := core.Agent("echo"); len(info.Tools) != 4; info, _ = core.Agent("echo") {
		if time.Now().After(deadline) {
			t.Fatalf("agent not up: %+v", info)
		}
		time.Sleep(5 * time.Millisecond)
	}
	var chunks int
	res, err := core.Call(context.Background(), localbridge.CallRequest{Agent: "echo", Tool: "echo", Input: json.RawMessage(`{"text":"hey","repeat":2,"upper":true}`)},
		func(localbridge.Chunk) error { chunks++; return nil })
	if err != nil || string(res.Output) != `{"text":"HEY"}` || chunks != 2 {
		t.Fatalf("%s %d %v", res.Output, chunks, err)
	}
	_, err = core.Call(context.Background(), localbridge.CallRequest{Agent: "echo", Tool: "fail", Input: json.RawMessage(`{"code":"tool.nope","message":"asked to fail"}`)}, nil)
	if e, ok := err.(*localbridge.Error); !ok || e.Code != "tool.nope" || e.Message != "asked to fail" {
		t.Fatalf("fail: %v", err)
	}
	// Close stops the process before it returns.
	info, _ := core.Agent("echo")
	core.Close()
	if err := syscall.Kill(info.PID, 0); err != syscall.ESRCH {
		t.Fatalf("process %d still exists after Close: %v", info.PID, err)
	}
}
