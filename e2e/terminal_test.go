package e2e

import (
	"context"
	"encoding/json"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/moltgate/moltgate/localbridge"
)

// TestTerminalSocket: with listen.terminal_socket, `moltgate serve` also
// serves its JSON-RPC face at the OpenAgent-Terminal spec's path,
// $XDG_RUNTIME_DIR/openagent-terminal-PID.sock, and removes it on
// shutdown.
func TestTerminalSocket(t *testing.T) {
	needProcesses(t)
	runtime, err := os.MkdirTemp("", "xdg") // short, and 0700 as XDG makes it
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(runtime) })
	t.Setenv("XDG_RUNTIME_DIR", runtime) // the gateway process inherits it

	o := newOrg(t, "acme", "echo")
	o.set("terminal_socket = false", "terminal_socket = true")
	o.start()
	path := localbridge.TerminalSocketPath(func(string) string { return runtime }, o.cmd.Process.Pid)
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatalf("no terminal socket: %v", err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Fatalf("terminal socket mode %v, want 0600", fi.Mode().Perm())
	}

	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	c, err := localbridge.Dial(ctx, path, localbridge.ClientOptions{})
	if err != nil {
		t.Fatal(err)
	}
	pong, err := c.Ping(ctx, "echo")
	c.Close()
	var p struct{ Status string }
	if err != nil || json.Unmarshal(pong, &p) != nil || p.Status != "alive" {
		t.Fatalf("ping over the terminal socket: %s %v", pong, err)
	}

	o.signal(syscall.SIGTERM)
	if err := o.wait(60 * time.Second); err != nil {
		t.Fatalf("gateway did not stop cleanly: %v", err)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatalf("terminal socket left behind after shutdown: %v", err)
	}
}
