package gateway

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/moltgate/moltgate/localbridge"
)

// TestCallAfterPeerSwitchedBeforePinMoved: globex rotates its org key,
// acme takes the handover, and globex switches to the new key; acme has
// not yet seen the new key in a handshake, so its pin and peer file still
// name the old. globex then forgets its sessions with acme (a restart, a
// replica that never knew them), and answers acme's next call outside any
// session, under the new key. acme takes that answer under the key it was
// handed, or renews its session under the new key first, and the call
// goes through: it never fails as not signed by globex.
func TestCallAfterPeerSwitchedBeforePinMoved(t *testing.T) {
	da, la := newTestDir(t, "acme", AddAgentOptions{ID: "client"})
	db, lb := newTestDir(t, "globex", AddAgentOptions{ID: "echo", QueryTool: "echo"})
	trustEachOther(t, da, db, "conf")
	acme := start(t, da, la, TransportHTTP)
	globex := start(t, db, lb, TransportHTTP)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	echo := func(text string) error {
		_, err := acme.s.local.Query(ctx, localbridge.QueryRequest{From: "client", To: "echo@globex", Tool: "echo", Input: json.RawMessage(`{"text":"` + text + `"}`)}, nil)
		return err
	}
	if err := echo("before"); err != nil {
		t.Fatal(err)
	}
	old := globex.s.self().Signing.Public()
	if _, err := RotateOrgKey(db, RotateOptions{Overlap: time.Hour}); err != nil {
		t.Fatal(err)
	}
	globex.s.rotation.PushChanged(ctx)
	for globex.s.self().Signing.Public().Equal(old) {
		if ctx.Err() != nil {
			t.Fatalf("globex did not switch to its new key:\n%s", globex.logs())
		}
		if err := globex.s.ReloadKeys(ctx); err != nil {
			t.Fatal(err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	nw := globex.s.self().Signing.Public()
	p, ok := acme.s.pins.Lookup("globex")
	if !ok || !p.Key.Equal(old) || p.Next == nil || !p.Next.Key.Equal(nw) {
		t.Fatalf("acme's pin of globex is %+v, want the old key with the new one handed over to", p)
	}
	if !acme.s.peers.Get("globex").Peer().OrgKey.Equal(old) {
		t.Fatal("acme's peer file of globex moved to the new key before any handshake showed it")
	}
	globex.s.sessions.RemoveOrg("acme")
	if err := echo("after"); err != nil {
		t.Fatalf("a call after globex switched and forgot acme's session: %v\n%s", err, acme.logs())
	}
}
