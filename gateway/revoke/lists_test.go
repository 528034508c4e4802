package revoke

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"
	"time"

	"github.com/moltgate/moltgate/gateway/peers"
	"github.com/moltgate/moltgate/identity"
	"github.com/moltgate/moltgate/revocation"
	"github.com/moltgate/moltgate/wire"
)

// noPeers is a peer table without peers.
type noPeers struct{}

func (noPeers) Get(string) *peers.Remote { return nil }
func (noPeers) All() []*peers.Remote     { return nil }
func (noPeers) CallAsGateway(context.Context, *peers.Remote, *wire.Message, func(*wire.Message) (bool, error)) error {
	return errors.New("no peers")
}

type noSessions struct{}

func (noSessions) RemoveOrg(string) int       { return 0 }
func (noSessions) Len() int                   { return 0 }
func (noSessions) CountByOrg() map[string]int { return nil }

func agent(t *testing.T, seed byte, ref wire.Ref) *identity.Agent {
	t.Helper()
	a, err := identity.Generate(bytes.NewReader(bytes.Repeat([]byte{seed}, 256)), ref)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func open(t *testing.T, self *identity.Agent, dir string) *Lists {
	t.Helper()
	k, err := New(Config{
		Self: self, OwnPath: filepath.Join(dir, "revocations.json"), BookDir: filepath.Join(dir, "data", "revocations"),
		StatusPath: filepath.Join(dir, "data", "peers.json"), MessageBytes: 1 << 20,
		Peers: noPeers{}, Sessions: noSessions{}, Go: func(f func()) { go f() }, Base: context.Background(),
		Log: slog.New(slog.NewTextHandler(io.Discard, nil)),
	})
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// TestServesOwnList: with nothing revoked the empty list is served signed
// by the org key, and a list written to the file after New is served as
// soon as it is asked for.
func TestServesOwnList(t *testing.T) {
	self := agent(t, 1, wire.Ref{Agent: "gateway", Org: "acme"})
	dir := t.TempDir()
	k := open(t, self, dir)
	get := func() *revocation.List {
		t.Helper()
		rec := httptest.NewRecorder()
		k.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, Route, nil))
		if rec.Code != http.StatusOK || rec.Header().Get("Content-Type") != "application/json" {
			t.Fatalf("GET %s: %d %q", Route, rec.Code, rec.Header().Get("Content-Type"))
		}
		l, err := revocation.Parse(rec.Body.Bytes())
		if err != nil {
			t.Fatal(err)
		}
		if err := l.Verify(self.Signing.Public()); err != nil {
			t.Fatalf("the served list is not signed by the org key: %v", err)
		}
		return l
	}
	if l := get(); l.Org != "acme" || l.Serial != 0 || len(l.Entries) != 0 {
		t.Fatalf("empty list served as %+v", l)
	}
	victim := agent(t, 2, wire.Ref{Agent: "echo", Org: "acme"})
	next, err := revocation.New("acme").Revoke(self.Signing, time.Now(), revocation.Entry{Kind: revocation.KindAgentKey,
		Value: victim.Signing.Public().String(), Agent: "echo", Effective: time.Now().UnixMilli()})
	if err != nil {
		t.Fatal(err)
	}
	if err := next.WriteFile(filepath.Join(dir, "revocations.json")); err != nil {
		t.Fatal(err)
	}
	if l := get(); l.Serial != 1 || len(l.Entries) != 1 || l.Entries[0].Agent != "echo" {
		t.Fatalf("the list written after New is not served: %+v", l)
	}
}

// TestCheckPeerRefusesRevokedKey: a message signed with a key its peer's
// list revokes is refused naming from.key; the peer's other agents pass.
func TestCheckPeerRefusesRevokedKey(t *testing.T) {
	self := agent(t, 1, wire.Ref{Agent: "gateway", Org: "acme"})
	globex := agent(t, 3, wire.Ref{Agent: "gateway", Org: "globex"})
	stolen := agent(t, 4, wire.Ref{Agent: "echo", Org: "globex"})
	other := agent(t, 5, wire.Ref{Agent: "calc", Org: "globex"})
	dir := t.TempDir()
	book, err := revocation.OpenBook(filepath.Join(dir, "data", "revocations"))
	if err != nil {
		t.Fatal(err)
	}
	l, err := revocation.New("globex").Revoke(globex.Signing, time.Now(), revocation.Entry{Kind: revocation.KindAgentKey,
		Value: stolen.Signing.Public().String(), Agent: "echo", Effective: time.Now().UnixMilli()})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := book.Accept(l, globex.Signing.Public()); err != nil {
		t.Fatal(err)
	}
	k := open(t, self, dir)
	msg := func(a *identity.Agent) *wire.Message { return &wire.Message{From: a.Sender()} }
	var we *wire.Error
	if err := k.CheckPeer(context.Background(), msg(stolen), false); !errors.As(err, &we) || we.Code != wire.ErrAuthFailed || we.Field != "from.key" {
		t.Fatalf("a revoked key: %v, want %s on from.key", err, wire.ErrAuthFailed)
	}
	if err := k.CheckPeer(context.Background(), msg(stolen), true); !errors.As(err, &we) || we.Code != wire.ErrAuthFailed {
		t.Fatalf("a revoked key in a session: %v, want %s", err, wire.ErrAuthFailed)
	}
	if err := k.CheckPeer(context.Background(), msg(other), false); err != nil {
		t.Fatalf("a key not revoked: %v", err)
	}
	k.Forget("globex")
	if err := k.CheckPeer(context.Background(), msg(stolen), false); err != nil {
		t.Fatalf("after Forget the list is not held: %v", err)
	}
}
