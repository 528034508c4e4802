package revocation

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/moltgate/moltgate/wire"
)

func TestBookAcceptsNewerSignedLists(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "revocations")
	b, err := OpenBook(dir)
	if err != nil {
		t.Fatal(err)
	}
	l1, org, agent := revoked(t)
	if b.Serial("globex") != -1 {
		t.Fatal("a serial held before any list")
	}
	// A list signed by another key than the one trusted for globex is
	// refused, and nothing is held.
	if ok, err := b.Accept(l1, key(t, 9).Public()); ok || err == nil {
		t.Fatalf("forged list accepted: %v %v", ok, err)
	}
	if _, ok := b.AgentKey("globex", agent); ok {
		t.Fatal("a forged list revoked a key")
	}
	if ok, err := b.Accept(l1, org.Public()); !ok || err != nil {
		t.Fatalf("accept: %v %v", ok, err)
	}
	if e, ok := b.AgentKey("globex", agent); !ok || e.Agent != "echo" {
		t.Fatalf("revoked key not found: %+v %v", e, ok)
	}
	if _, ok := b.AgentKey("acme", agent); ok {
		t.Fatal("globex's list revokes a key of acme")
	}
	// The same list again changes nothing; a newer one replaces it; the
	// older one is then stale.
	if ok, err := b.Accept(l1, org.Public()); ok || err != nil {
		t.Fatalf("same list: %v %v", ok, err)
	}
	other := key(t, 10).Public()
	l2, err := l1.Revoke(org, t0, Entry{Kind: KindAgentKey, Value: other.String(), Agent: "other"})
	if err != nil {
		t.Fatal(err)
	}
	if ok, err := b.Accept(l2, org.Public()); !ok || err != nil {
		t.Fatalf("newer list: %v %v", ok, err)
	}
	if _, err := b.Accept(l1, org.Public()); !errors.Is(err, ErrStale) {
		t.Fatalf("older list: %v", err)
	}
	// What was accepted survives a reopen.
	b2, err := OpenBook(dir)
	if err != nil {
		t.Fatal(err)
	}
	if b2.Serial("globex") != 2 {
		t.Fatalf("serial after reopen %d", b2.Serial("globex"))
	}
	if _, ok := b2.AgentKey("globex", other); !ok {
		t.Fatal("revocation lost on reopen")
	}
	if err := b2.Forget("globex"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "globex.json")); !os.IsNotExist(err) {
		t.Fatalf("file kept: %v", err)
	}
	if b2.Serial("globex") != -1 {
		t.Fatal("forgotten list still held")
	}
}

func TestOwnListFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "revocations.json")
	org := key(t, 7)
	l, err := LoadFile(path, "globex", org.Public())
	if err != nil || l.Serial != 0 || len(l.Entries) != 0 {
		t.Fatalf("missing file: %+v %v", l, err)
	}
	l1, _, _ := revoked(t)
	if err := l1.WriteFile(path); err != nil {
		t.Fatal(err)
	}
	got, err := LoadFile(path, "globex", org.Public())
	if err != nil || got.Serial != 1 {
		t.Fatalf("%+v %v", got, err)
	}
	if _, err := LoadFile(path, "globex", key(t, 9).Public()); err == nil {
		t.Fatal("a list under another key loaded")
	}
	if _, err := LoadFile(path, "acme", org.Public()); err == nil {
		t.Fatal("another org's list loaded")
	}
	v, err := wire.ValueOf(l1)
	if err != nil {
		t.Fatal(err)
	}
	fv, err := FromValue(v)
	if err != nil || fv.Verify(org.Public()) != nil {
		t.Fatalf("from value: %v", err)
	}
	if _, err := FromValue(wire.Value{}); err == nil {
		t.Fatal("an absent list read")
	}
}

// BenchmarkBookAgentKey is the revocation check every message of a peer
// pays, against a list of 1000 revoked keys, beside the Ed25519
// verification the same message pays anyway.
func BenchmarkBookAgentKey(b *testing.B) {
	book, err := OpenBook(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	org := key(b, 7)
	l := New("globex")
	es := make([]Entry, 1000)
	for i := range es {
		k := key(b, byte(i%200+20))
		k2 := k.Public()
		k2[31] ^= byte(i / 200)
		es[i] = Entry{Kind: KindAgentKey, Value: k2.String(), Agent: "a"}
	}
	if l, err = l.Revoke(org, t0, es...); err != nil {
		b.Fatal(err)
	}
	if _, err := book.Accept(l, org.Public()); err != nil {
		b.Fatal(err)
	}
	probe := key(b, 3)
	msg := []byte("a message of a peer's agent")
	sig := probe.Sign(msg)
	b.Run("check", func(b *testing.B) {
		for b.Loop() {
			if _, ok := book.AgentKey("globex", probe.Public()); ok {
				b.Fatal("revoked")
			}
		}
	})
	b.Run("ed25519_verify", func(b *testing.B) {
		pub := probe.Public()
		for b.Loop() {
			if !pub.Verify(msg, sig) {
				b.Fatal("bad signature")
			}
		}
	})
}

// The book answers for certificates and TLS pins by kind and value, and
// asks for the value only of an organisation that revoked some.
func TestBookMaterial(t *testing.T) {
	b, err := OpenBook(filepath.Join(t.TempDir(), "revocations"))
	if err != nil {
		t.Fatal(err)
	}
	l1, org, _ := revoked(t)
	if _, err := b.Accept(l1, org.Public()); err != nil {
		t.Fatal(err)
	}
	asked := 0
	value := func(v string) func() string { return func() string { asked++; return v } }
	digest := "sha256:" + strings.Repeat("ab", 32)
	if _, ok := b.Material("globex", KindIdentityCert, value(digest)); ok || asked != 0 {
		t.Fatalf("a list of agent keys only: revoked %v, asked %d", ok, asked)
	}
	l2, err := l1.Revoke(org, t0, Entry{Kind: KindIdentityCert, Value: digest})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.Accept(l2, org.Public()); err != nil {
		t.Fatal(err)
	}
	if e, ok := b.Material("globex", KindIdentityCert, value(digest)); !ok || e.Value != digest {
		t.Fatalf("revoked certificate: %+v %v", e, ok)
	}
	if _, ok := b.Material("globex", KindCapabilityCert, value(digest)); ok {
		t.Fatal("an identity certificate's digest revokes a capability certificate")
	}
	if _, ok := b.Material("acme", KindIdentityCert, value(digest)); ok {
		t.Fatal("globex's list revokes a certificate of acme")
	}
	if err := b.Forget("globex"); err != nil {
		t.Fatal(err)
	}
	if _, ok := b.Material("globex", KindIdentityCert, value(digest)); ok {
		t.Fatal("a forgotten list still revokes")
	}
}
