package localbridge_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/moltgate/moltgate/localbridge"
	"github.com/moltgate/moltgate/localbridge/osp"
)

type launchReport struct {
	PID   int      `json:"pid"`
	Env   []string `json:"env"`
	Token string   `json:"token"`
	Args  []string `json:"args"`
	Agent string   `json:"agent"`
}

func readReports(t *testing.T, path string) []launchReport {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	var out []launchReport
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var r launchReport
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		out = append(out, r)
	}
	return out
}

// TestSupervisedAgent launches a real agent process, checks what it is given, kills it in the
// middle of a call and watches it come back. Throughout, the tokens must stay out of the log.
func TestSupervisedAgent(t *testing.T) {
	t.Setenv("MOLTGATE_TEST_CANARY", "gateway-secret")
	b := newBridge(t, localbridge.Config{RestartMin: 10 * time.Millisecond, RestartMax: 50 * time.Millisecond})
	report := filepath.Join(b.dir, "report.jsonl")
	if err := b.core.AddAgent(localbridge.AgentSpec{ID: "sup", Command: []string{os.Args[0], helperFlag, report}}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "agent up", func() bool { a, _ := b.core.Agent("sup"); return a.Connected && len(a.Tools) == 4 })
	first, _ := b.core.Agent("sup")
	if !first.Supervised || first.PID == 0 || first.Restarts != 0 {
		t.Fatalf("info %+v", first)
	}
	reps := readReports(t, report)
	if len(reps) != 1 || reps[0].PID != first.PID || reps[0].Agent != "sup" || !strings.HasPrefix(reps[0].Token, "ostok_") {
		t.Fatalf("report %+v (pid %d)", reps, first.PID)
	}
	allowed := []string{"HOME", "LANG", "OPENSENTIENCE_AGENT_ID", "OPENSENTIENCE_SOCKET", "OPENSENTIENCE_TOKEN", "PATH", "TZ"}
	for _, name := range reps[0].Env {
		if !slices.Contains(allowed, name) {
			t.Errorf("the agent inherited %s", name)
		}
	}
	for _, name := range []string{"OPENSENTIENCE_AGENT_ID", "OPENSENTIENCE_SOCKET", "OPENSENTIENCE_TOKEN", "PATH"} {
		if !slices.Contains(reps[0].Env, name) {
			t.Errorf("the agent lacks %s", name)
		}
	}
	if strings.Contains(strings.Join(reps[0].Args, " "), reps[0].Token) {
		t.Fatal("the token is on the command line")
	}

	if _, err := b.core.Call(context.Background(), localbridge.CallRequest{Agent: "sup", Tool: "echo", Input: json.RawMessage(`{"text":"before"}`)}, nil); err != nil {
		t.Fatal(err)
	}

	// Kill it in the middle of a call.
	done := callAsync(context.Background(), b.core, localbridge.CallRequest{Agent: "sup", Tool: "sleep", Input: json.RawMessage(`{"ms":3600000}`)})
	waitFor(t, "call in flight", func() bool { a, _ := b.core.Agent("sup"); return a.InFlight == 1 })
	if err := syscall.Kill(first.PID, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	o := <-done
	if codeOf(o.err) != localbridge.CodeDisconnected || localbridge.MoltSpeakCode(o.err) != "E_TASK_FAILED" || !localbridge.OutcomeOf(o.err).Recoverable {
		t.Fatalf("in-flight call: %v", o.err)
	}
	waitFor(t, "agent restarted", func() bool {
		a, _ := b.core.Agent("sup")
		return a.Connected && a.SessionID != first.SessionID && len(a.Tools) == 4
	})
	second, _ := b.core.Agent("sup")
	if second.Restarts != 1 || second.PID == first.PID {
		t.Fatalf("after restart %+v", second)
	}
	if _, err := b.core.Call(context.Background(), localbridge.CallRequest{Agent: "sup", Tool: "echo", Input: json.RawMessage(`{"text":"after"}`)}, nil); err != nil {
		t.Fatal(err)
	}
	reps = readReports(t, report)
	if len(reps) != 2 || reps[0].Token == reps[1].Token {
		t.Fatal("the restart did not get a fresh token")
	}

	// A launch token is single-use: replaying the first one fails.
	r := dialRaw(t, b.path)
	r.send(osp.TypeHello, hello(reps[0].Token, "sup"))
	if got := r.expectClosed(); len(got) != 1 || got[0].Error == nil || got[0].Error.Code != osp.CodeUnauthorized {
		t.Fatalf("replayed token: %+v", got)
	}

	// Removing the agent stops its process.
	if err := b.core.RemoveAgent("sup"); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "process gone", func() bool { return syscall.Kill(second.PID, 0) == syscall.ESRCH })

	logs := b.logs.String()
	for _, rep := range reps {
		if strings.Contains(logs, rep.Token) {
			t.Fatal("a launch token reached the log")
		}
	}
	if !strings.Contains(logs, "starting; token is [redacted]") || !strings.Contains(logs, "stderr line with token [redacted]") {
		t.Fatalf("agent output not logged as expected:\n%s", logs)
	}
	if strings.Contains(logs, "gateway-secret") {
		t.Fatal("the gateway's environment leaked")
	}
	if n := len(b.audit.find(localbridge.AuditAgentStarted)); n != 2 {
		t.Fatalf("%d start events", n)
	}
}

// TestLaunchFailure keeps restarting a command that cannot start or exits at once, with
// growing delays, without disturbing the Core.
func TestLaunchFailure(t *testing.T) {
	b := newBridge(t, localbridge.Config{RestartMin: 5 * time.Millisecond, RestartMax: 20 * time.Millisecond})
	b.core.AddAgent(localbridge.AgentSpec{ID: "missing", Command: []string{filepath.Join(b.dir, "no-such-program")}})
	b.core.AddAgent(localbridge.AgentSpec{ID: "quitter", Command: []string{"/bin/sh", "-c", "echo bye; exit 3"}})
	waitFor(t, "restarts", func() bool { a, _ := b.core.Agent("quitter"); return a.Restarts >= 3 })
	waitFor(t, "failed starts logged", func() bool { return strings.Count(b.logs.String(), "cannot launch agent") >= 3 })
	if ev := b.audit.find(localbridge.AuditAgentExited); len(ev) == 0 || ev[0].Reason != "exit status 3" {
		t.Fatalf("exit audit %+v", ev)
	}
}

// TestTokensNeverLogged provisions tokens, uses them rightly and wrongly with the most verbose
// log, and greps the log for them.
func TestTokensNeverLogged(t *testing.T) {
	b := newBridge(t, localbridge.Config{})
	b.core.AddAgent(localbridge.AgentSpec{ID: "a"})
	b.core.AddAgent(localbridge.AgentSpec{ID: "b"})
	var tokens []string
	for range 4 {
		tok, err := b.core.ProvisionToken("a", 0)
		if err != nil {
			t.Fatal(err)
		}
		b.core.Config().Logger.Info("provisioned", "token", tok, "formatted", fmt.Sprint(tok))
		tokens = append(tokens, tok.Reveal())
	}
	use := func(tok, id string) {
		r := dialRaw(t, b.path)
		r.send(osp.TypeHello, hello(tok, id))
		r.next()
		r.conn.Close()
	}
	use(tokens[0], "a")
	use(tokens[0], "a") // replay
	use(tokens[1], "b") // wrong agent
	use(tokens[2], "a")
	waitFor(t, "audit", func() bool { return len(b.audit.find(localbridge.AuditUnauthorized)) == 2 })
	logs := b.logs.String()
	for _, tok := range tokens {
		if strings.Contains(logs, tok) {
			t.Fatalf("token in log:\n%s", logs)
		}
		if strings.Contains(logs, tok[len(tok)-20:]) {
			t.Fatal("part of a token in the log")
		}
	}
	if !strings.Contains(logs, "ostok_[redacted]") {
		t.Fatal("redacted form missing")
	}
}
