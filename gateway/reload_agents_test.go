package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/moltgate/moltgate/directory"
	"github.com/moltgate/moltgate/gateway/pipeline"
	"github.com/moltgate/moltgate/localbridge"
	"github.com/moltgate/moltgate/localbridge/agent/echo"
	"github.com/moltgate/moltgate/wire"
)

// echoAgentFlag makes the test binary run as the echo agent, so that a
// gateway under test launches a real agent process.
const echoAgentFlag = "-run-echo-agent"

func TestMain(m *testing.M) {
	if len(os.Args) > 2 && os.Args[1] == echoAgentFlag {
		os.Exit(echoAgent(os.Args[2]))
	}
	os.Exit(m.Run())
}

// echoAgent appends its pid and token to report, then serves as the echo
// agent until it is told goodbye or SIGTERM.
func echoAgent(report string) int {
	f, err := os.OpenFile(report, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		return 2
	}
	fmt.Fprintf(f, "%d %s\n", os.Getpid(), os.Getenv(localbridge.EnvToken))
	f.Close()
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
	defer stop()
	if err := echo.New().Run(ctx); err != nil && ctx.Err() == nil {
		return 1
	}
	return 0
}

// launches reads an echo agent's report: the token of each launch.
func launches(t *testing.T, report string) []string {
	t.Helper()
	b, err := os.ReadFile(report)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		t.Fatal(err)
	}
	var toks []string
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if _, tok, ok := strings.Cut(line, " "); ok {
			toks = append(toks, tok)
		}
	}
	return toks
}

// eventually retries f until it returns nil.
func eventually(t *testing.T, what string, f func() error) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		err := f()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: %v", what, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// writeAgent writes a local agent record as an operator editing it would.
func writeAgent(t *testing.T, d Dir, a any) {
	t.Helper()
	b, err := json.Marshal(a)
	if err != nil {
		t.Fatal(err)
	}
	var id struct{ ID string }
	json.Unmarshal(b, &id)
	if err := writeFileAtomic(filepath.Join(d.AgentsDir(), id.ID+".json"), b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestReloadAgents adds an agent to a serving gateway, changes it, breaks
// its record and removes it: each change takes effect without a restart,
// for callers at a peer and in the directory.
func TestReloadAgents(t *testing.T) {
	da, la := newTestDir(t, "acme", AddAgentOptions{ID: "client", MaxCls: "pii"})
	db, lb := newTestDir(t, "globex", AddAgentOptions{ID: "echo", Capabilities: []string{"echo.text"}, MaxCls: "pii"})
	trustEachOther(t, da, db, "pii")
	acme, globex := start(t, da, la, TransportWebSocket), start(t, db, lb, TransportWebSocket)
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	call := func(tool, input, cls string) error {
		_, err := acme.s.local.Query(ctx, localbridge.QueryRequest{From: "client", To: "calc@globex", Tool: tool,
			Input: json.RawMessage(input), Class: cls}, nil)
		return err
	}
	hello := func() error { return call("echo", `{"text":"hi"}`, "int") }
	discover := func(capability string) ([]string, error) {
		out, err := acme.s.local.Discover(ctx, localbridge.DiscoverRequest{Capability: capability, Org: "globex"})
		if err != nil {
			return nil, err
		}
		return resultIDs(t, out), nil
	}
	calcPID := func() int { a, _ := globex.s.core.Agent("calc"); return a.PID }
	if err := hello(); pipeline.Code(err) != wire.ErrAgentNotFound {
		t.Fatalf("call before the agent was added: %v, want E_AGENT_NOT_FOUND", err)
	}

	// Added while serving: the watch loop launches it with a token of its
	// own, and it is callable from the peer and discoverable there.
	root, err := os.MkdirTemp("", "mgr")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(root)
	first, second := filepath.Join(root, "first"), filepath.Join(root, "second")
	exec1 := []string{os.Args[0], echoAgentFlag, first}
	if _, err := AddAgent(db, AddAgentOptions{ID: "calc", Exec: fmt.Sprintf("'%s' %s '%s'", exec1[0], exec1[1], exec1[2]),
		Capabilities: []string{"calc.add"}, MaxCls: "int"}); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the added agent answers the peer", hello)
	if toks := launches(t, first); len(toks) != 1 || !strings.HasPrefix(toks[0], "ostok_") {
		t.Fatalf("launch tokens %q", toks)
	}
	if info, _ := globex.s.core.Agent("calc"); !info.Supervised || info.PID == 0 {
		t.Fatalf("the added agent is not supervised: %+v", info)
	}
	eventually(t, "the added agent discoverable at the peer", func() error {
		got, err := discover("calc.add")
		if err == nil && !slices.Equal(got, []string{"calc@globex"}) {
			err = fmt.Errorf("found %v", got)
		}
		return err
	})
	if err := call("echo", `{"text":"hi"}`, "conf"); pipeline.Code(err) != wire.ErrClassification {
		t.Fatalf("conf above the new agent's ceiling of int: %v", err)
	}
	if _, err := acme.s.local.Query(ctx, localbridge.QueryRequest{From: "client", To: "calc@globex", Message: "hi", Class: "int"}, nil); pipeline.Code(err) != wire.ErrCapability {
		t.Fatalf("query to an agent without a query tool: %v", err)
	}
	if !strings.Contains(globex.logs(), `"msg":"agent added","agent":"calc"`) {
		t.Fatal("no log line for the added agent")
	}

	// Policy changed (ceiling, capabilities, query tool): applied at once,
	// same process.
	pid := calcPID()
	writeAgent(t, db, LocalAgent{ID: "calc", Exec: exec1, Capabilities: []string{"calc.add", "calc.sub"},
		MaxCls: wire.Conf, QueryTool: "echo", Visibility: "public"})
	if err := globex.s.ReloadAgents(ctx); err != nil {
		t.Fatal(err)
	}
	if err := call("echo", `{"text":"hi"}`, "conf"); err != nil {
		t.Fatalf("conf after raising the ceiling: %v", err)
	}
	// The query now reaches the echo tool, whose schema wants a text the
	// query does not have.
	if _, err := acme.s.local.Query(ctx, localbridge.QueryRequest{From: "client", To: "calc@globex", Message: "hi", Class: "int"}, nil); pipeline.Code(err) != wire.ErrInvalidParam || !strings.Contains(err.Error(), "p.input.text") {
		t.Fatalf("query after setting a query tool: %v", err)
	}
	if got, err := discover("calc.sub"); err != nil || !slices.Equal(got, []string{"calc@globex"}) {
		t.Fatalf("new capability: %v, %v", got, err)
	}
	if calcPID() != pid {
		t.Fatal("a policy change restarted the agent")
	}

	// Approval required: the next call waits for a local human.
	writeAgent(t, db, LocalAgent{ID: "calc", Exec: exec1, Capabilities: []string{"calc.add", "calc.sub"},
		MaxCls: wire.Conf, QueryTool: "echo", Approval: true, Visibility: "public"})
	if err := globex.s.ReloadAgents(ctx); err != nil {
		t.Fatal(err)
	}
	held := make(chan error, 1)
	go func() { held <- hello() }()
	eventually(t, "the call held for approval", func() error {
		for _, p := range globex.s.approvals.Pending() {
			if p.Agent == "calc" {
				return globex.s.approvals.Decide(p.ID, false)
			}
		}
		return errors.New("none pending")
	})
	if err := <-held; pipeline.Code(err) != wire.ErrCapability {
		t.Fatalf("denied call: %v", err)
	}
	writeAgent(t, db, LocalAgent{ID: "calc", Exec: exec1, Capabilities: []string{"calc.add", "calc.sub"},
		MaxCls: wire.Conf, QueryTool: "echo", Visibility: "public"})
	if err := globex.s.ReloadAgents(ctx); err != nil {
		t.Fatal(err)
	}
	if err := hello(); err != nil {
		t.Fatalf("call once approval is no longer required: %v", err)
	}
	if calcPID() != pid {
		t.Fatal("changing approval restarted the agent")
	}

	// The command changed: the call in flight ends at once with an error,
	// the old process goes and the new one comes with a fresh token.
	inFlight := make(chan error, 1)
	go func() { inFlight <- call("sleep", `{"ms":600000}`, "int") }()
	eventually(t, "the call in flight", func() error {
		if a, _ := globex.s.core.Agent("calc"); a.InFlight == 0 {
			return errors.New("not yet")
		}
		return nil
	})
	writeAgent(t, db, LocalAgent{ID: "calc", Exec: []string{os.Args[0], echoAgentFlag, second}, Capabilities: []string{"calc.add", "calc.sub"},
		MaxCls: wire.Conf, QueryTool: "echo", Visibility: "public"})
	if err := globex.s.ReloadAgents(ctx); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-inFlight:
		if pipeline.Code(err) != wire.ErrTaskFailed || !strings.Contains(err.Error(), "disconnected") {
			t.Fatalf("the call in flight during the relaunch: %v", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the call in flight hangs after the relaunch")
	}
	eventually(t, "the old process gone", func() error {
		if syscall.Kill(pid, 0) != syscall.ESRCH {
			return errors.New("still running")
		}
		return nil
	})
	eventually(t, "the relaunched agent answers", hello)
	if calcPID() == pid {
		t.Fatal("not relaunched")
	}
	if t1, t2 := launches(t, first), launches(t, second); len(t1) != 1 || len(t2) != 1 || t1[0] == t2[0] {
		t.Fatalf("launch tokens %q then %q", t1, t2)
	}

	// A record that does not check changes nothing, and says which key;
	// nor does a new agent come in with it.
	before := globex.s.roster.Agent("calc")
	writeAgent(t, db, map[string]any{"id": "calc", "exec": []string{"/bin/false"}, "max_cls": "conf", "visibility": "everyone"})
	if _, err := AddAgent(db, AddAgentOptions{ID: "other", Exec: "/bin/true"}); err != nil {
		t.Fatal(err)
	}
	err = globex.s.ReloadAgents(ctx)
	var ce *ConfigError
	if !errors.As(err, &ce) || ce.Key != "agents/calc.json: visibility" {
		t.Fatalf("invalid record: %v", err)
	}
	if globex.s.roster.Agent("calc") != before || globex.s.roster.Agent("other") != nil {
		t.Fatal("a failed reload changed the agents")
	}
	if err := hello(); err != nil {
		t.Fatalf("call after a failed reload: %v", err)
	}
	// The watch loop says so too, naming the key.
	eventually(t, "the watch loop's log line", func() error {
		if !strings.Contains(globex.logs(), `"msg":"agents not reloaded","err":"reload agents: config: agents/calc.json: visibility: must be public, unlisted or private"`) {
			return errors.New("not logged")
		}
		return nil
	})
	writeAgent(t, db, map[string]any{"id": "calc", "exec": []string{"/bin/false"}, "max_cls": "conf", "approvl": true})
	if err := globex.s.ReloadAgents(ctx); !errors.As(err, &ce) || ce.Key != "agents/calc.json: approvl" || ce.Msg != "unknown setting" {
		t.Fatalf("misspelt setting: %v", err)
	}
	if _, err := RemoveAgent(db, "other"); err != nil {
		t.Fatal(err)
	}

	// Removed: stopped, refused as unknown, gone from the directory.
	pid = calcPID()
	if _, err := RemoveAgent(db, "calc"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(db.AgentKeyPath("calc")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the removed agent's key is still there: %v", err)
	}
	if err := globex.s.ReloadAgents(ctx); err != nil {
		t.Fatal(err)
	}
	if err := hello(); pipeline.Code(err) != wire.ErrAgentNotFound {
		t.Fatalf("call after removal: %v", err)
	}
	if syscall.Kill(pid, 0) != syscall.ESRCH {
		t.Fatal("the removed agent's process still runs")
	}
	if _, ok := globex.s.core.Agent("calc"); ok {
		t.Fatal("the local bridge still holds the removed agent")
	}
	if _, err := globex.s.Registry().Lookup(ctx, directory.ID{Agent: "calc", Org: "globex"}, directory.Viewer{Local: true}); pipeline.Code(err) != wire.ErrAgentNotFound {
		t.Fatalf("the removed agent is still in the directory: %v", err)
	}
	// The other agent was never disturbed.
	if _, err := acme.s.local.Query(ctx, localbridge.QueryRequest{From: "client", To: "echo@globex", Tool: "echo", Input: json.RawMessage(`{"text":"hi"}`)}, nil); err != nil {
		t.Fatal(err)
	}
}
