package e2e

import (
	"context"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/moltgate/moltgate/gateway"
)

// TestKeyRotateThenSIGHUP: an operator rotates globex's org key and sends
// the serving gateway SIGHUP. The process lives on, reads its files again
// on the signal (it says so of the moltgate.toml edited along with the
// key), switches to the new key, and acme's calls go on under it. The
// gateway's own look at its key files every 2 s may make the switch
// before the signal does; what the test holds is that the signal reloads
// and does not end the process, and that the switch is made.
func TestKeyRotateThenSIGHUP(t *testing.T) {
	needProcesses(t)
	acme, globex := pair(t, "websocket", nil)
	c := acme.client()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if _, _, err := call(ctx, c, "client", "echo@globex", "echo", `{"text":"before"}`); err != nil {
		t.Fatal(err)
	}
	pid := globex.cmd.Process.Pid

	mg(t, "key", "rotate", "--dir", globex.dir, "--overlap", "10m")
	nw, err := gateway.LoadOrg(gateway.Dir(globex.dir), nil)
	if err != nil {
		t.Fatal(err)
	}
	// An edit the running gateway cannot apply, which only the signal's
	// reload reports: the evidence that the signal was handled.
	f, err := os.OpenFile(gateway.Dir(globex.dir).ConfigPath(), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString("# edited while serving\n"); err != nil {
		t.Fatal(err)
	}
	f.Close()
	globex.signal(syscall.SIGHUP)

	waitFor(t, 60*time.Second, "globex did not report the reload of SIGHUP and switch to its new key", func() bool {
		l := globex.log.String()
		return strings.Contains(l, `moltgate.toml changed; restart the gateway to apply it`) && strings.Contains(l, `"msg":"org key switched"`)
	})
	select {
	case <-globex.exited:
		t.Fatalf("globex exited on SIGHUP: %v", globex.err)
	default:
	}
	if globex.cmd.Process.Pid != pid || strings.Count(globex.log.String(), `"msg":"gateway serving"`) != 1 {
		t.Fatal("globex restarted")
	}
	if strings.Contains(globex.log.String(), `"msg":"reload failed"`) {
		t.Fatalf("the reload failed:\n%s", globex.log.String())
	}
	if err := presentedKey(t, acme, globex, nw.Signing.Public()); err != nil {
		t.Fatalf("a new handshake with globex under its new key: %v", err)
	}
	if _, _, err := call(ctx, c, "client", "echo@globex", "echo", `{"text":"after"}`); err != nil {
		t.Fatalf("a call after the switch: %v", err)
	}
}
