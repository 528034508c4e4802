package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/moltgate/moltgate/localbridge"
)

// TestGoAgentExample runs the README's Go agent (examples/goagent) under a
// real gateway, called from another organisation: a plain call, a streamed
// one, and a stream the caller cancels, after which the agent still serves.
func TestGoAgentExample(t *testing.T) {
	needProcesses(t)
	dir := t.TempDir()
	build := exec.Command("go", "build", "-o", dir, "github.com/moltgate/moltgate/examples/goagent")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build examples/goagent: %v\n%s", err, out)
	}
	acme, globex := newOrg(t, "acme", "client"), newOrg(t, "globex")
	mg(t, "agent", "add", "--dir", globex.dir, "--id", "greeter", "--exec", filepath.Join(dir, "goagent"),
		"--capability", "greet", "--max-cls", "pii")
	globex.agents = append(globex.agents, "greeter")
	trust(t, acme, globex, "pii")
	trust(t, globex, acme, "pii")
	globex.start()
	acme.start()

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	c := acme.client()
	out, _, err := call(ctx, c, "client", "greeter@globex", "greet", `{"name":"Ada"}`)
	if err != nil {
		t.Fatal(err)
	}
	var g struct{ Greeting string }
	if json.Unmarshal(out, &g) != nil || g.Greeting != "Hello, Ada!" {
		t.Fatalf("greet: %s", out)
	}
	out, streamed, err := call(ctx, c, "client", "greeter@globex", "count", `{"n":3}`)
	if err != nil || streamed != "1\n2\n3\n" || string(out) != `{"counted":3}` {
		t.Fatalf("count 3: %s, streamed %q, %v", out, streamed, err)
	}
	// The schema the agent declared is the gateway's to enforce.
	if _, _, err := call(ctx, c, "client", "greeter@globex", "count", `{"n":0}`); codeOf(err) == "" {
		t.Fatalf("count 0 against minimum 1: %v; want a refusal with a code", err)
	}
	// A cancel from the caller, after the third number of a thousand.
	errStop := errors.New("enough")
	var got string
	_, err = c.Query(ctx, localbridge.QueryRequest{From: "client", To: "greeter@globex", Tool: "count", Input: json.RawMessage(`{"n":1000}`)},
		func(ev localbridge.StreamEvent) error {
			got += ev.Text
			if got == "1\n2\n3\n" {
				return errStop
			}
			return nil
		})
	if !errors.Is(err, errStop) {
		t.Fatalf("cancelled count: %v, streamed %q", err, got)
	}
	out, _, err = call(ctx, c, "client", "greeter@globex", "count", `{"n":2}`)
	if err != nil || string(out) != `{"counted":2}` {
		t.Fatalf("a call after the cancel: %s, %v", out, err)
	}
}
