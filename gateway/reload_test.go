package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/moltgate/moltgate/directory"
	"github.com/moltgate/moltgate/gateway/pipeline"
	"github.com/moltgate/moltgate/localbridge"
	"github.com/moltgate/moltgate/wire"
)

// TestReloadPeers imports, changes and removes a peer while both gateways
// serve: each change takes effect without a restart.
func TestReloadPeers(t *testing.T) {
	da, la := newTestDir(t, "acme", AddAgentOptions{ID: "client", MaxCls: "pii"})
	db, lb := newTestDir(t, "globex", AddAgentOptions{ID: "echo", Capabilities: []string{"echo.text"}, MaxCls: "pii"})
	// acme trusts globex; globex does not know acme yet.
	doc, err := ExportPeer(db, nil, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ImportPeer(da, doc, ImportOptions{MaxCls: "pii"}); err != nil {
		t.Fatal(err)
	}
	acme, globex := start(t, da, la, TransportWebSocket), start(t, db, lb, TransportWebSocket, withSync)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	call := func(cls string) error {
		_, err := acme.s.local.Query(ctx, localbridge.QueryRequest{From: "client", To: "echo@globex", Tool: "echo",
			Input: json.RawMessage(`{"text":"hi"}`), Class: cls}, nil)
		return err
	}
	importAcme := func(maxCls string) {
		t.Helper()
		doc, err := ExportPeer(da, nil, time.Now())
		if err != nil {
			t.Fatal(err)
		}
		if _, err := ImportPeer(db, doc, ImportOptions{MaxCls: maxCls}); err != nil {
			t.Fatal(err)
		}
	}

	if err := call("int"); pipeline.Code(err) != wire.ErrAuthFailed {
		t.Fatalf("call before globex imported acme: %v, want E_AUTH_FAILED", err)
	}

	// Imported: the serving gateway notices by itself.
	importAcme("int")
	for deadline := time.Now().Add(30 * time.Second); ; {
		if err := call("int"); err == nil {
			break
		} else if time.Now().After(deadline) {
			t.Fatalf("acme still refused after the import: %v", err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if err := call("conf"); pipeline.Code(err) != wire.ErrClassification {
		t.Fatalf("conf above the ceiling of int: %v", err)
	}
	// globex syncs the new peer's registry without waiting for the schedule.
	globex.waitListed("client@acme")

	// A higher ceiling, reloaded at once: the sessions are kept.
	sessions := globex.s.sessions.Len()
	importAcme("conf")
	if err := globex.s.ReloadPeers(ctx); err != nil {
		t.Fatal(err)
	}
	if err := call("conf"); err != nil {
		t.Fatalf("conf after raising the ceiling: %v", err)
	}
	if n := globex.s.sessions.Len(); n != sessions || n == 0 {
		t.Fatalf("globex holds %d sessions, want the %d it had", n, sessions)
	}

	// Edited in place (same file, same directory entry): the watch loop
	// notices by itself and lowers the ceiling back to int. First the loop
	// must have taken in the import above, or it would see that instead.
	time.Sleep(watchEvery + time.Second)
	path := filepath.Join(db.PeersDir(), "acme.json")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var rec map[string]any
	if err := json.Unmarshal(b, &rec); err != nil {
		t.Fatal(err)
	}
	rec["max_cls"] = "int"
	b, _ = json.MarshalIndent(rec, "", "  ")
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_TRUNC, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write(b); err != nil {
		t.Fatal(err)
	}
	f.Close()
	for deadline := time.Now().Add(30 * time.Second); ; {
		if err := call("conf"); pipeline.Code(err) == wire.ErrClassification {
			break
		} else if time.Now().After(deadline) {
			t.Fatalf("conf still allowed after the ceiling was edited down to int: %v", err)
		}
		time.Sleep(100 * time.Millisecond)
	}

	// Removed: trust and sessions end.
	if err := os.Remove(filepath.Join(db.PeersDir(), "acme.json")); err != nil {
		t.Fatal(err)
	}
	if err := globex.s.ReloadPeers(ctx); err != nil {
		t.Fatal(err)
	}
	if n := globex.s.sessions.Len(); n != 0 {
		t.Fatalf("globex holds %d sessions after removing acme", n)
	}
	if globex.s.trust.Known("acme") || globex.s.peers.Get("acme") != nil {
		t.Fatal("acme still trusted after its removal")
	}
	if _, err := globex.s.Registry().Lookup(ctx, directory.ID{Agent: "client", Org: "acme"}, directory.Viewer{Local: true}); pipeline.Code(err) != wire.ErrAgentNotFound {
		t.Fatalf("acme's agent still in globex's directory after the removal: %v", err)
	}
	if err := call("int"); err == nil {
		t.Fatal("call answered after globex removed acme")
	}

	// A broken peer file changes nothing, and says which.
	importAcme("int")
	if err := globex.s.ReloadPeers(ctx); err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(db.PeersDir(), "initech.json")
	if err := os.WriteFile(bad, []byte("{"), 0o600); err != nil {
		t.Fatal(err)
	}
	var ce *ConfigError
	if err := globex.s.ReloadPeers(ctx); !errors.As(err, &ce) || ce.Key != "peers/initech.json" {
		t.Fatalf("reload of a broken peer file: %v, want a ConfigError naming it", err)
	}
	if globex.s.peers.Get("acme") == nil {
		t.Fatal("a failed reload dropped a peer")
	}
	// A mistake in a field is named by it, on reload as at start; the
	// watch loop logs the same line, and the peer keeps what it had.
	if err := os.Remove(bad); err != nil {
		t.Fatal(err)
	}
	editJSON(t, path, map[string]any{"max_cls": "ultra"})
	if err := globex.s.ReloadPeers(ctx); !errors.As(err, &ce) || ce.Key != "peers/acme.json: max_cls" {
		t.Fatalf("reload of a bad ceiling: %v", err)
	}
	eventually(t, "the watch loop's log line", func() error {
		if !strings.Contains(globex.logs(), `"msg":"peers not reloaded","err":"reload peers: config: peers/acme.json: max_cls: must be one of pub, int, conf, pii, sec"`) {
			return errors.New("not logged")
		}
		return nil
	})
	if globex.s.peers.Get("acme") == nil || globex.s.policy.PeerCeiling("acme") != wire.Int {
		t.Fatal("a failed reload changed a peer")
	}
	writeFile(t, db.PinsPath(), "{")
	if err := globex.s.ReloadPeers(ctx); !errors.As(err, &ce) || ce.Key != "peers/pins.json" {
		t.Fatalf("reload of a broken pin file: %v", err)
	}
}
