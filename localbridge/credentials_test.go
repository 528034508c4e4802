package localbridge_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/moltgate/moltgate/localbridge"
	"github.com/moltgate/moltgate/localbridge/credential"
	"github.com/moltgate/moltgate/localbridge/osp"
)

func welcomeOf(t *testing.T, r *rawAgent) (osp.Welcome, *osp.Error) {
	t.Helper()
	e := r.expect(osp.TypeWelcome)
	var w osp.Welcome
	if e.Error == nil {
		if err := e.DecodePayload(&w); err != nil {
			t.Fatal(err)
		}
	}
	return w, e.Error
}

// TestCredentialTokenThenKey holds the life of an agent started elsewhere: its operator's
// token admits it once and hands it a key; the key admits it again, any number of times; the
// token does not; a revocation ends the live connection and refuses the key.
func TestCredentialTokenThenKey(t *testing.T) {
	store := &credential.Store{Dir: filepath.Join(shortDir(t), "credentials")}
	b := newBridge(t, localbridge.Config{Credentials: store, HeartbeatInterval: 40 * time.Millisecond, MissedHeartbeats: 1000})
	if err := b.core.AddAgent(localbridge.AgentSpec{ID: "remote"}); err != nil {
		t.Fatal(err)
	}
	if err := b.core.AddAgent(localbridge.AgentSpec{ID: "launched", Command: []string{"/bin/false"}}); err != nil {
		t.Fatal(err)
	}
	tok, err := store.Issue("remote", time.Hour)
	if err != nil {
		t.Fatal(err)
	}

	r := dialRaw(t, b.path)
	r.send(osp.TypeHello, hello(tok, "remote"))
	w, werr := welcomeOf(t, r)
	if werr != nil {
		t.Fatalf("first connection with the token: %v", werr)
	}
	if !strings.HasPrefix(w.AgentKey, credential.KeyPrefix) {
		t.Fatalf("welcome agent_key %q, want a key", w.AgentKey)
	}
	r.conn.Close()

	r = dialRaw(t, b.path)
	r.send(osp.TypeHello, hello(tok, "remote"))
	if _, werr := welcomeOf(t, r); werr == nil || werr.Code != osp.CodeUnauthorized {
		t.Fatalf("the token again: %v, want protocol.unauthorized", werr)
	}
	if ev := b.audit.find(localbridge.AuditUnauthorized); len(ev) != 1 || ev[0].Reason != "unknown or used token" {
		t.Fatalf("audit %+v", ev)
	}

	for i := 0; i < 2; i++ {
		r = dialRaw(t, b.path)
		r.send(osp.TypeHello, hello(w.AgentKey, "remote"))
		w2, werr := welcomeOf(t, r)
		if werr != nil {
			t.Fatalf("reconnect %d with the key: %v", i, werr)
		}
		if w2.AgentKey != "" {
			t.Fatal("a reconnection was handed another key")
		}
		if i == 0 {
			r.conn.Close()
		}
	}
	// The key is the agent's own: another agent id cannot use it, nor can a launched agent
	// use a credential at all.
	for _, id := range []string{"launched"} {
		r2 := dialRaw(t, b.path)
		r2.send(osp.TypeHello, hello(w.AgentKey, id))
		if _, werr := welcomeOf(t, r2); werr == nil {
			t.Fatalf("agent %s admitted with remote's key", id)
		}
	}

	if _, err := store.Revoke("remote"); err != nil {
		t.Fatal(err)
	}
	var bye osp.Goodbye
	for _, e := range r.expectClosed() {
		if e.Type == osp.TypeGoodbye {
			e.DecodePayload(&bye)
		}
	}
	if bye.Reason != "revoked" {
		t.Fatalf("goodbye %+v, want reason revoked", bye)
	}
	r = dialRaw(t, b.path)
	r.send(osp.TypeHello, hello(w.AgentKey, "remote"))
	if _, werr := welcomeOf(t, r); werr == nil || werr.Code != osp.CodeUnauthorized {
		t.Fatalf("a revoked key: %v, want protocol.unauthorized", werr)
	}
}

// TestListenShared holds the rules of a socket directory shared with agents of other users:
// writable by others, refused; reachable by them, the socket is 0666 in it.
func TestListenShared(t *testing.T) {
	dir := shortDir(t)
	shared := filepath.Join(dir, "agents")
	if err := os.Mkdir(shared, 0o777); err != nil {
		t.Fatal(err)
	}
	os.Chmod(shared, 0o777)
	if _, err := localbridge.ListenShared(filepath.Join(shared, "core.sock")); err == nil || !strings.Contains(err.Error(), "writable by others") {
		t.Fatalf("a directory others may write: %v", err)
	}
	if _, err := localbridge.ListenShared(filepath.Join(dir, "missing", "core.sock")); err == nil {
		t.Fatal("a missing directory was taken")
	}
	os.Chmod(shared, 0o711)
	l, err := localbridge.ListenShared(filepath.Join(shared, "core.sock"))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	fi, err := os.Stat(filepath.Join(shared, "core.sock"))
	if err != nil || fi.Mode().Perm() != 0o666 {
		t.Fatalf("socket %v, %v: want mode 0666", fi, err)
	}
}
