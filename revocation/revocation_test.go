package revocation

import (
	"bytes"
	"encoding/base64"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/moltgate/moltgate/keys"
)

func key(t testing.TB, b byte) keys.Ed25519Private {
	t.Helper()
	k, err := keys.Ed25519FromSeed(bytes.Repeat([]byte{b}, 32))
	if err != nil {
		t.Fatal(err)
	}
	return k
}

var t0 = time.UnixMilli(1800000000000)

func revoked(t *testing.T) (*List, keys.Ed25519Private, keys.Ed25519Public) {
	t.Helper()
	org, agent := key(t, 7), key(t, 8)
	l, err := New("globex").Revoke(org, t0, Entry{Kind: KindAgentKey, Value: agent.Public().String(), Agent: "echo", Reason: "key leaked"})
	if err != nil {
		t.Fatal(err)
	}
	return l, org, agent.Public()
}

func TestRevokeRoundTrip(t *testing.T) {
	l, org, agentKey := revoked(t)
	if l.Serial != 1 || len(l.Entries) != 1 || l.Entries[0].Effective != t0.UnixMilli() {
		t.Fatalf("list = %+v", l)
	}
	b, err := l.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	got, err := Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	if err := got.Verify(org.Public()); err != nil {
		t.Fatal(err)
	}
	if _, ok := got.Find(KindAgentKey, agentKey.String()); !ok {
		t.Fatal("the revoked key is not found in the parsed list")
	}
	if _, ok := got.Find(KindAgentKey, org.Public().String()); ok {
		t.Fatal("a key never revoked is found")
	}
	again, _ := got.Marshal()
	if !bytes.Equal(again, b) {
		t.Fatal("Parse then Marshal does not round-trip")
	}
}

// TestEveryByte alters each byte of a signed list in turn: no altered list
// both parses and verifies, unless it says the same thing.
func TestEveryByte(t *testing.T) {
	l, org, _ := revoked(t)
	b, _ := l.Marshal()
	for i := range b {
		c := bytes.Clone(b)
		c[i] ^= 0x01
		got, err := Parse(c)
		if err != nil {
			continue
		}
		if got.Verify(org.Public()) == nil {
			if m, _ := got.Marshal(); !bytes.Equal(m, b) {
				t.Fatalf("byte %d altered, still verifies: %s", i, c)
			}
		}
	}
}

func TestForgedList(t *testing.T) {
	l, _, _ := revoked(t)
	mallory := key(t, 9)
	forged, err := New("globex").Revoke(mallory, t0, l.Entries...)
	if err != nil {
		t.Fatal(err)
	}
	var e *Error
	if err := forged.Verify(key(t, 7).Public()); !errors.As(err, &e) || e.Field != "sig" {
		t.Fatalf("a list signed by another key: Verify = %v; want a sig error", err)
	}
}

func TestReplaces(t *testing.T) {
	l1, org, _ := revoked(t)
	l2, err := l1.Revoke(org, t0.Add(time.Minute), Entry{Kind: KindTLSPin, Value: "sha256:" + base64.StdEncoding.EncodeToString(bytes.Repeat([]byte{0xab}, 32))})
	if err != nil {
		t.Fatal(err)
	}
	if l2.Serial != 2 || len(l2.Entries) != 2 || len(l1.Entries) != 1 {
		t.Fatalf("Revoke changed the list it extends, or serials are wrong: %d/%d entries", len(l1.Entries), len(l2.Entries))
	}
	if ok, err := Replaces(nil, l1); !ok || err != nil {
		t.Fatalf("first list: %v %v", ok, err)
	}
	if ok, err := Replaces(l1, l2); !ok || err != nil {
		t.Fatalf("newer list: %v %v", ok, err)
	}
	if ok, err := Replaces(l2, l1); ok || !errors.Is(err, ErrStale) {
		t.Fatalf("older list replayed: %v %v; want ErrStale", ok, err)
	}
	if ok, err := Replaces(l2, l2); ok || err != nil {
		t.Fatalf("the list held: %v %v; want false, nil", ok, err)
	}
	// Two different lists under one serial: the organisation equivocated.
	other, err := l1.Revoke(org, t0.Add(time.Minute), Entry{Kind: KindIdentityCert, Value: "sha256:" + strings.Repeat("cd", 32)})
	if err != nil {
		t.Fatal(err)
	}
	if ok, err := Replaces(l2, other); ok || err == nil {
		t.Fatal("a second list of the same serial replaced the first")
	}
	acme, _ := New("acme").Revoke(key(t, 1), t0)
	if ok, err := Replaces(l2, acme); ok || err == nil {
		t.Fatal("another organisation's list replaced globex's")
	}
}

func TestRevokeTwiceKeepsOneEntry(t *testing.T) {
	l1, org, agentKey := revoked(t)
	l2, err := l1.Revoke(org, t0.Add(time.Hour), Entry{Kind: KindAgentKey, Value: agentKey.String(), Agent: "echo"})
	if err != nil {
		t.Fatal(err)
	}
	if len(l2.Entries) != 1 || l2.Entries[0].Effective != t0.UnixMilli() {
		t.Fatalf("revoking again: %+v; want the first entry kept as it was", l2.Entries)
	}
}

func TestBadEntries(t *testing.T) {
	org := key(t, 7)
	for _, tc := range []struct {
		e     Entry
		field string
	}{
		{Entry{Kind: "password", Value: "x"}, "entries[0].kind"},
		{Entry{Kind: KindAgentKey, Value: "ed25519:short"}, "entries[0].value"},
		{Entry{Kind: KindTLSPin, Value: "sha1:00"}, "entries[0].value"},
		{Entry{Kind: KindTLSPin, Value: "sha256:" + strings.Repeat("ab", 32)}, "entries[0].value"},
		{Entry{Kind: KindAgentKey, Value: org.Public().String(), Agent: "no spaces"}, "entries[0].agent"},
	} {
		_, err := New("globex").Revoke(org, t0, tc.e)
		var e *Error
		if !errors.As(err, &e) || e.Field != tc.field {
			t.Errorf("%+v: Revoke = %v; want an error naming %s", tc.e, err, tc.field)
		}
	}
	if _, err := Parse([]byte(`{"type":"moltgate.revocations.v1","org":"globex","serial":1,"issued_at":1,"sig":"` + keys.Signature{}.String() + `"}`)); err == nil {
		t.Fatal("a list without entries parsed")
	}
}
