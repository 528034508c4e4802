package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/moltgate/moltgate/localbridge"
)

// nobody is the uid the hand-started agent runs as when the test may
// choose: another user than the gateway's, as an agent in a container is.
const nobody = 65534

// TestAgentStartedByHand runs an agent the gateway does not launch, as an
// operator would run one in a container: globex adds it without --exec,
// shares its agent socket in a directory of its own and issues a token with
// moltgate agent token; the agent, started by hand (as another user when
// the test runs as root), registers, is called from acme, streams, is
// cancelled, is killed, and connects again from a new process with the key
// its first connection was handed, with no new token.
func TestAgentStartedByHand(t *testing.T) {
	needProcesses(t)
	if _, err := os.Stat(debianPython); err != nil {
		t.Skipf("the hand-started agent is the Python SDK's probe, which needs %s", debianPython)
	}
	sdk, err := filepath.Abs(filepath.Join("..", "sdk", "python"))
	if err != nil {
		t.Fatal(err)
	}
	if err := statTree(sdk); err != nil {
		t.Fatal(err)
	}
	asRoot := os.Getuid() == 0
	if !asRoot {
		t.Logf("not root: the agent runs as the gateway's own user (uid %d), not as another", os.Getuid())
	}

	// The shared socket directory, as a volume mounted into a container would
	// be: the gateway's, closed to writing by others, open to reaching.
	shared, err := os.MkdirTemp("", "mgs")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(shared) })
	if err := os.Chmod(shared, 0o711); err != nil {
		t.Fatal(err)
	}
	// The agent's own directory, where it keeps its key.
	home, err := os.MkdirTemp("", "mga")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(home) })
	if asRoot {
		if err := os.Chown(home, nobody, nobody); err != nil {
			t.Fatal(err)
		}
	}
	keyFile := filepath.Join(home, "agent.key")

	acme, globex := newOrg(t, "acme", "client"), newOrg(t, "globex")
	mg(t, "agent", "add", "--dir", globex.dir, "--id", "handy", "--capability", "wait", "--max-cls", "pii")
	globex.set(`agent_socket_dir = ""`, fmt.Sprintf("agent_socket_dir = %q", shared))
	if asRoot {
		globex.set(`agent_uids = []`, fmt.Sprintf("agent_uids = [%d]", nobody))
	}
	trust(t, acme, globex, "pii")
	trust(t, globex, acme, "pii")
	globex.start()
	acme.start()
	sock := filepath.Join(shared, "core.sock")
	if fi, err := os.Stat(sock); err != nil || fi.Mode().Perm() != 0o666 {
		t.Fatalf("shared agent socket: %v, %v", fi, err)
	}

	out, errOut, err := mgRun(nil, "agent", "token", "--dir", globex.dir, "--id", "handy", "--ttl", "10m")
	if err != nil {
		t.Fatalf("agent token: %v\n%s", err, errOut)
	}
	token := strings.TrimSpace(out)
	if !strings.HasPrefix(token, "ostok_") || !strings.Contains(errOut, "OPENSENTIENCE_SOCKET="+sock) {
		t.Fatalf("agent token printed %q, and %q", out, errOut)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	start := func(env ...string) *exec.Cmd {
		cmd := exec.CommandContext(ctx, debianPython, "-B", filepath.Join(sdk, "tests", "e2e_agent.py"))
		cmd.Env = append([]string{"PATH=/usr/bin:/bin", "PYTHONPATH=" + sdk, "HOME=" + home,
			"OPENSENTIENCE_SOCKET=" + sock, "OPENSENTIENCE_AGENT_ID=handy", "OPENSENTIENCE_KEY_FILE=" + keyFile}, env...)
		cmd.Stdout, cmd.Stderr = globex.log, globex.log
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		if asRoot {
			cmd.SysProcAttr.Credential = &syscall.Credential{Uid: nobody, Gid: nobody}
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); cmd.Wait() })
		return cmd
	}
	gc, ac := globex.client(), acme.client()
	// registered reports that the agent's latest connection has
	// registered its tools: alive comes with the connection, the tools a
	// moment later, and a call between the two finds no tool.
	registered := func() bool {
		log := globex.log.String()
		i := strings.LastIndex(log, `"event":"agent_connected","agent":"handy"`)
		if i < 0 {
			return false
		}
		const changed = `"agent":"handy","connected":true,"healthy":true,"tools":`
		for rest := log[i:]; ; {
			j := strings.Index(rest, changed)
			if j < 0 {
				return false
			}
			rest = rest[j+len(changed):]
			if rest != "" && rest[0] >= '1' && rest[0] <= '9' {
				return true
			}
		}
	}
	alive := func(what string) {
		t.Helper()
		deadline := time.Now().Add(30 * time.Second)
		for {
			pong, err := gc.Ping(ctx, "handy")
			var p struct{ Status string }
			if err == nil && json.Unmarshal(pong, &p) == nil && p.Status == "alive" && registered() {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: the agent is not alive: %s, %v", what, pong, err)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	callAndCancel := func(tag string) {
		t.Helper()
		qctx, stop := context.WithCancel(ctx)
		var texts []string
		_, err := ac.Query(qctx, localbridge.QueryRequest{From: "client", To: "handy@globex", Tool: "wait",
			Input: json.RawMessage(fmt.Sprintf(`{"tag":%q}`, tag))}, func(ev localbridge.StreamEvent) error {
			texts = append(texts, ev.Text)
			stop() // the first chunk came from the agent, through both gateways: cancel
			return nil
		})
		stop()
		if err == nil || len(texts) != 1 || texts[0] != "waiting" {
			t.Fatalf("call %s: streamed %q, ended with %v; want one chunk and a cancelled call", tag, texts, err)
		}
		deadline := time.Now().Add(30 * time.Second)
		for {
			out, _, err := call(ctx, ac, "client", "handy@globex", "ended", fmt.Sprintf(`{"tag":%q}`, tag))
			if err != nil {
				t.Fatalf("ended %s: %v", tag, err)
			}
			if strings.Contains(string(out), `"Cancelled:canceled"`) {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("call %s: the agent saw %s, want it cancelled", tag, out)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}

	first := start("OPENSENTIENCE_TOKEN=" + token)
	alive("with the token")
	// The agent writes its key file once core.welcome hands it the key, which
	// may be a moment after the gateway counts it alive.
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		b, err := os.ReadFile(keyFile)
		if err == nil && strings.HasPrefix(string(b), "oskey_") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the agent's key file: %q, %v", b, err)
		}
	}
	if asRoot && !strings.Contains(globex.log.String(), fmt.Sprintf(`"event":"agent_connected","agent":"handy"`)) {
		t.Fatal("no audit event of the agent's connection")
	}
	if asRoot && !strings.Contains(globex.log.String(), fmt.Sprintf(`"peer_uid":%d`, nobody)) {
		t.Fatalf("the agent did not connect as uid %d", nobody)
	}
	callAndCancel("first")

	// Killed: no goodbye, no new token. A new process finds the key in its file.
	syscall.Kill(-first.Process.Pid, syscall.SIGKILL)
	first.Wait()
	second := start()
	alive("after a kill, with the key")
	callAndCancel("second")

	// The token was spent by the first connection: presented again, refused.
	syscall.Kill(-second.Process.Pid, syscall.SIGKILL)
	second.Wait()
	os.Remove(keyFile)
	third := start("OPENSENTIENCE_TOKEN=" + token)
	if err := third.Wait(); err == nil {
		t.Fatal("an agent presenting a spent token ran")
	}
	if !strings.Contains(globex.log.String(), `"reason":"unknown or used token"`) {
		t.Fatal("no audit event of the spent token")
	}
}
