package e2e

import (
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/moltgate/moltgate/internal/logbuf"
)

// debianPython is the interpreter the Python SDK is held to: the one a fresh
// Debian machine has, not whatever a developer's PATH finds first.
const debianPython = "/usr/bin/python3"

// TestPythonAgentAndCaller runs the Python SDK through two real gateways:
// globex launches two Python agents (the README's example, and a probe that
// reports what reached it), and a Python caller on acme's JSON-RPC socket
// calls them as acme's agent client, streams, cancels, and approves a held
// call on globex's socket.
func TestPythonAgentAndCaller(t *testing.T) {
	needProcesses(t)
	if _, err := os.Stat(debianPython); err != nil {
		t.Skipf("the Python SDK's test needs %s (Debian's python3 package)", debianPython)
	}
	sdk, err := filepath.Abs(filepath.Join("..", "sdk", "python"))
	if err != nil {
		t.Fatal(err)
	}
	// The go command caches this test's result against the files it looked at:
	// the SDK's files are among its inputs.
	if err := statTree(sdk); err != nil {
		t.Fatal(err)
	}

	acme, globex := newOrg(t, "acme", "client"), newOrg(t, "globex")
	for _, a := range []struct{ id, script, capability string }{
		{"greeter", "examples/agent.py", "greet"},
		{"probe", "tests/e2e_agent.py", "wait"},
	} {
		// The gateway hands an agent PATH, HOME, LANG and TZ only: env sets the
		// module path of the SDK, as an installed package would not need.
		cmd := shellQuote("/usr/bin/env", "PYTHONPATH="+sdk, debianPython, filepath.Join(sdk, a.script))
		mg(t, "agent", "add", "--dir", globex.dir, "--id", a.id, "--exec", cmd, "--capability", a.capability, "--max-cls", "pii")
		globex.agents = append(globex.agents, a.id)
	}
	trust(t, acme, globex, "pii")
	trust(t, globex, acme, "pii")
	globex.start()
	acme.start()

	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	caller := exec.CommandContext(ctx, debianPython, filepath.Join(sdk, "tests", "e2e_caller.py"), acme.dir, globex.dir)
	caller.Env = append(os.Environ(), "PYTHONPATH="+sdk)
	stderr := &logbuf.Buffer{}
	caller.Stderr = stderr
	out, err := caller.Output()
	if err != nil {
		t.Fatalf("python caller: %v\n%s", err, stderr.String())
	}
	var seen struct {
		ServerVersion  string          `json:"server_version"`
		SDKVersion     string          `json:"sdk_version"`
		Greet          json.RawMessage `json:"greet"`
		Count          json.RawMessage `json:"count"`
		CountStream    string          `json:"count_stream"`
		CountChannels  []string        `json:"count_channels"`
		CountCancelled struct {
			First  []string
			Status string
		} `json:"count_cancelled"`
		WaitCancelled  cancelSeen `json:"wait_cancelled"`
		AwaitCancelled cancelSeen `json:"await_cancelled"`
		Fail           struct {
			Code          int
			MoltSpeakCode string `json:"moltspeak_code"`
		}
		Partial       json.RawMessage `json:"partial"`
		PartialEvents []struct {
			Block   json.RawMessage
			Text    string
			Channel string
		} `json:"partial_events"`
		About struct {
			Caller       map[string]string
			HasRequestID bool   `json:"has_request_id"`
			HasDeadline  bool   `json:"has_deadline"`
			AgentID      string `json:"agent_id"`
			TokenInEnv   bool   `json:"token_in_env"`
			Context      map[string]string
		}
		CompletedEvent map[string]any `json:"completed_event"`
		BadInput       struct {
			Code          int
			MoltSpeakCode string `json:"moltspeak_code"`
			Field         string
		} `json:"bad_input"`
		Ping struct {
			Status             string
			CapabilitiesActive []string `json:"capabilities_active"`
		}
		ConsentTokenIssued bool            `json:"consent_token_issued"`
		ApprovalArgs       json.RawMessage `json:"approval_args"`
		Delete             struct {
			Out json.RawMessage
			Err string
		}
		ApprovalNotices []string `json:"approval_notices"`
	}
	if err := json.Unmarshal(out, &seen); err != nil {
		t.Fatalf("python caller printed %q: %v\n%s", out, err, stderr.String())
	}

	// The README's caller example, as a user would run it.
	example := exec.CommandContext(ctx, debianPython, filepath.Join(sdk, "examples", "caller.py"), acme.dir, "greeter@globex", "client")
	example.Env = caller.Env
	stderr = &logbuf.Buffer{}
	example.Stderr = stderr
	exOut, err := example.Output()
	if err != nil {
		t.Fatalf("examples/caller.py: %v\n%s", err, stderr.String())
	}
	if want := "{'greeting': 'Hello, Ada!'}\n1\n2\n3\n4\n5\n{'counted': 5}\n"; string(exOut) != want {
		t.Errorf("examples/caller.py printed %q, want %q", exOut, want)
	}

	version := mg(t, "version")
	if !strings.HasPrefix(version, "moltgate "+seen.SDKVersion+" ") || seen.ServerVersion != "moltgate "+seen.SDKVersion {
		t.Errorf("SDK version %s, binary %q, gateway reports %q", seen.SDKVersion, version, seen.ServerVersion)
	}
	jsonEq(t, "greet", seen.Greet, `{"greeting":"Hello, Ada!"}`)
	jsonEq(t, "count", seen.Count, `{"counted":5}`)
	if seen.CountStream != "1\n2\n3\n4\n5\n" || !reflect.DeepEqual(seen.CountChannels, []string{"stdout"}) {
		t.Errorf("count streamed %q on %v", seen.CountStream, seen.CountChannels)
	}
	if !reflect.DeepEqual(seen.CountCancelled.First, []string{"1\n", "2\n", "3\n"}) || seen.CountCancelled.Status != "cancelled" {
		t.Errorf("count cancelled after %q with status %q", seen.CountCancelled.First, seen.CountCancelled.Status)
	}
	// globex's gateway turns acme's cancel into core.tool.cancel, reason canceled.
	seen.WaitCancelled.check(t, "wait", "Cancelled:canceled")
	seen.AwaitCancelled.check(t, "await_cancel", "CancelledError:canceled")
	if seen.Fail.Code != -32002 || seen.Fail.MoltSpeakCode != "E_TASK_FAILED" {
		t.Errorf("a tool's own failure came as %+v, want -32002 E_TASK_FAILED", seen.Fail)
	}
	jsonEq(t, "partial", seen.Partial, `{"steps":2}`)
	if n := len(seen.PartialEvents); n != 3 {
		t.Fatalf("partial sent %d events, want 3: %+v", n, seen.PartialEvents)
	}
	for i, want := range []string{`{"step":1}`, `{"step":2}`} {
		ev := seen.PartialEvents[i]
		jsonEq(t, "partial block", ev.Block, want)
		if ev.Channel != "partial_result" {
			t.Errorf("partial block %d on channel %q", i, ev.Channel)
		}
	}
	if ev := seen.PartialEvents[2]; ev.Text != "almost done" || ev.Channel != "status" {
		t.Errorf("status note came as %+v", ev)
	}
	if a := seen.About; a.Caller["id"] != "client@acme" || !a.HasRequestID || !a.HasDeadline || a.AgentID != "probe" || a.TokenInEnv {
		t.Errorf("the agent was told %+v", a)
	}
	if c := seen.About.Context; len(c) != 2 || c["cwd"] != "/srv/app" || c["git_branch"] != "main" {
		t.Errorf("the agent at globex was given the context %v, want the caller's context.update", c)
	}
	if e := seen.CompletedEvent; e["direction"] != "outbound" || e["from"] != "client@acme" || e["tool"] != "about" || e["status"] != "success" {
		t.Errorf("acme's event stream said %v", e)
	}
	if b := seen.BadInput; b.Code != -32602 || b.MoltSpeakCode != "E_INVALID_PARAM" || b.Field != "p.input.name" {
		t.Errorf("an input against the schema came back as %+v", b)
	}
	if seen.Ping.Status != "alive" || !reflect.DeepEqual(seen.Ping.CapabilitiesActive, []string{"about", "await_cancel", "delete", "ended", "fail", "partial", "wait"}) {
		t.Errorf("ping answered %+v", seen.Ping)
	}
	if !seen.ConsentTokenIssued {
		t.Error("consent.issue gave no token")
	}
	jsonEq(t, "approval arguments", seen.ApprovalArgs, `{"widget":"w1"}`)
	if seen.Delete.Err != "" {
		t.Errorf("the approved call failed: %s", seen.Delete.Err)
	}
	jsonEq(t, "delete", seen.Delete.Out, `{"deleted":"w1"}`)
	if !reflect.DeepEqual(seen.ApprovalNotices, []string{"tool.request_approval", "tool.approval_resolved"}) {
		t.Errorf("the approver was notified of %v", seen.ApprovalNotices)
	}
}

// cancelSeen is how a cancelled call looked from both ends.
type cancelSeen struct {
	Texts    []string
	Status   string
	AgentSaw string `json:"agent_saw"`
}

func (c cancelSeen) check(t *testing.T, tool, agentSaw string) {
	t.Helper()
	if !reflect.DeepEqual(c.Texts, []string{"waiting"}) || c.Status != "cancelled" || c.AgentSaw != agentSaw {
		t.Errorf("%s cancelled: caller saw %q and status %q, the agent %q (want %q)", tool, c.Texts, c.Status, c.AgentSaw, agentSaw)
	}
}

// jsonEq fails the test unless got and want are the same JSON value.
func jsonEq(t *testing.T, what string, got json.RawMessage, want string) {
	t.Helper()
	var g, w any
	if err := json.Unmarshal(got, &g); err != nil {
		t.Errorf("%s: %q is not JSON: %v", what, got, err)
		return
	}
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(g, w) {
		t.Errorf("%s: got %s, want %s", what, got, want)
	}
}

// shellQuote joins args into one command line that the gateway's command
// splitting reads back as args.
func shellQuote(args ...string) string {
	q := make([]string, len(args))
	for i, a := range args {
		q[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	return strings.Join(q, " ")
}

// statTree looks at every file under root, so that a change to one of them
// invalidates the cached result of the test that reads them.
func statTree(root string) error {
	return filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case d.IsDir() && d.Name() == "__pycache__":
			return filepath.SkipDir
		case d.IsDir():
			return nil
		}
		_, err = os.Stat(path)
		return err
	})
}
