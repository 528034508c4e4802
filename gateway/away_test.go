package gateway

import (
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/moltgate/moltgate/directory"
	"github.com/moltgate/moltgate/localbridge/agent"
	"github.com/moltgate/moltgate/localbridge/credential"
	"github.com/moltgate/moltgate/wire"
)

// TestAgentComesAndGoes holds the life of an agent the gateway does not
// launch in the directory: published when it registers, offline when its
// connection ends, withdrawn after local.withdraw_after, and published again
// when it connects with the key its first connection was handed.
func TestAgentComesAndGoes(t *testing.T) {
	// Mostly waiting (on withdraw_after), so it runs beside the others that wait.
	t.Parallel()
	d, ls := newTestDir(t, "globex")
	cfg, err := os.ReadFile(d.ConfigPath())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(d.ConfigPath(), []byte(strings.Replace(string(cfg), `withdraw_after = "2m"`, `withdraw_after = "1s"`, 1)), 0o600); err != nil {
		t.Fatal(err)
	}
	g := start(t, d, ls, TransportWebSocket)
	// Added while serving, so that no agent of the test harness takes its place.
	if _, err := AddAgent(d, AddAgentOptions{ID: "handy", MaxCls: "int"}); err != nil {
		t.Fatal(err)
	}
	if err := g.s.ReloadAgents(context.Background()); err != nil {
		t.Fatal(err)
	}
	tok, err := (&credential.Store{Dir: d.CredentialsDir()}).Issue("handy", time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	keyFile := filepath.Join(t.TempDir(), "key")
	a := &agent.Agent{ID: "handy", KeyFile: keyFile}
	a.Add(agent.Tool{Name: "greet", InputSchema: `{"type":"object"}`,
		Handler: func(ctx context.Context, c *agent.Call) (any, error) { return map[string]string{"hi": "there"}, nil }})
	run := func(secret string) context.CancelFunc {
		ctx, cancel := context.WithCancel(context.Background())
		conn, err := net.Dial("unix", d.CoreSocket())
		if err != nil {
			t.Fatal(err)
		}
		done := make(chan struct{})
		go func() { a.Serve(ctx, conn, secret); close(done) }()
		return func() { cancel(); <-done }
	}
	status := func() directory.Status {
		rec, err := g.s.Registry().Lookup(context.Background(), directory.ID{Agent: "handy", Org: "globex"}, directory.Viewer{Local: true})
		if err != nil {
			return ""
		}
		return rec.Status
	}
	want := func(what string, s directory.Status) {
		t.Helper()
		eventually(t, what, func() error {
			if got := status(); got != s {
				return &wire.Error{Code: wire.ErrAgentNotFound, Message: "status " + string(got)}
			}
			return nil
		})
	}

	stop := run(tok)
	want("published when it registers", directory.StatusAlive)
	stop()
	want("offline once disconnected", directory.StatusOffline)
	want("withdrawn after withdraw_after", "")
	// Logged once the entry is withdrawn, so maybe after the test saw it go.
	eventually(t, "the withdrawal logged", func() error {
		if !strings.Contains(g.logs(), `"msg":"agent withdrawn from the directory","agent":"handy"`) {
			return errors.New("no log line for the withdrawal")
		}
		return nil
	})
	key, err := os.ReadFile(keyFile)
	if err != nil {
		t.Fatal(err)
	}
	stop = run(strings.TrimSpace(string(key)))
	defer stop()
	want("published again when it comes back", directory.StatusAlive)
}
