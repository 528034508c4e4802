package handover

import (
	"bytes"
	"encoding/base64"
	"errors"
	"testing"
	"time"

	"github.com/moltgate/moltgate/keys"
)

func key(t *testing.T, b byte) keys.Ed25519Private {
	t.Helper()
	k, err := keys.Ed25519FromSeed(bytes.Repeat([]byte{b}, 32))
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func encKey(t *testing.T) keys.X25519Public {
	t.Helper()
	k, err := keys.GenerateX25519(bytes.NewReader(bytes.Repeat([]byte{3}, 64)))
	if err != nil {
		t.Fatal(err)
	}
	return k.Public()
}

var t0 = time.UnixMilli(1800000000000)

func rotation(t *testing.T) (*Statement, keys.Ed25519Private, keys.Ed25519Private) {
	t.Helper()
	old, nw := key(t, 1), key(t, 2)
	s, err := OrgKey("acme", old, nw, encKey(t), t0.Add(time.Minute), time.Hour, t0)
	if err != nil {
		t.Fatal(err)
	}
	return s, old, nw
}

func TestOrgKeyHandover(t *testing.T) {
	s, old, nw := rotation(t)
	b, err := s.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	got, err := Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	if err := got.Verify(old.Public()); err != nil {
		t.Fatalf("a peer holding the old key: %v", err)
	}
	var e *Error
	if err := got.Verify(nw.Public()); !errors.As(err, &e) || e.Field != "old" {
		t.Fatalf("verified against the new key: %v; want an error on old", err)
	}
	// The windows: the old key until the overlap ends, the new from
	// effective on.
	for _, tc := range []struct {
		at       time.Time
		old, new bool
	}{
		{t0, true, false},
		{t0.Add(time.Minute), true, true},
		{t0.Add(time.Minute + time.Hour - time.Millisecond), true, true},
		{t0.Add(time.Minute + time.Hour), false, true},
	} {
		if got.OldValidAt(tc.at) != tc.old || got.NewValidAt(tc.at) != tc.new {
			t.Errorf("at %v: old %v new %v; want %v %v", tc.at.Sub(t0), got.OldValidAt(tc.at), got.NewValidAt(tc.at), tc.old, tc.new)
		}
	}
}

// TestForgedHandover is a statement signed by a key that is not the
// current org key: an attacker naming their own key as the next one.
func TestForgedHandover(t *testing.T) {
	old, mallory := key(t, 1), key(t, 9)
	forged, err := OrgKey("acme", mallory, key(t, 10), encKey(t), t0, time.Hour, t0)
	if err != nil {
		t.Fatal(err)
	}
	if forged.Verify(old.Public()) == nil {
		t.Fatal("a handover signed by another key verified")
	}
	// The attacker claims old as the key it replaces, but cannot sign
	// with it.
	forged.Old = old.Public().String()
	var e *Error
	if err := forged.Verify(old.Public()); !errors.As(err, &e) || e.Field != "sig" {
		t.Fatalf("Verify = %v; want a sig error", err)
	}
}

// TestNewKeyMustSign: a handover to a key whose holder did not sign it
// (someone else's public key, copied) is refused.
func TestNewKeyMustSign(t *testing.T) {
	s, old, _ := rotation(t)
	s.NewSig = keys.Signature{}
	var e *Error
	if err := s.Verify(old.Public()); !errors.As(err, &e) || e.Field != "new_sig" {
		t.Fatalf("Verify = %v; want a new_sig error", err)
	}
}

func TestEveryByte(t *testing.T) {
	s, old, _ := rotation(t)
	b, _ := s.Marshal()
	for i := range b {
		c := bytes.Clone(b)
		c[i] ^= 0x01
		got, err := Parse(c)
		if err != nil {
			continue
		}
		if got.Verify(old.Public()) == nil {
			if m, _ := got.Marshal(); !bytes.Equal(m, b) {
				t.Fatalf("byte %d altered, still verifies: %s", i, c)
			}
		}
	}
}

func TestTLSPinHandover(t *testing.T) {
	org := key(t, 1)
	oldPin, newPin := "sha256:"+base64.StdEncoding.EncodeToString(bytes.Repeat([]byte{0xab}, 32)), "sha256:"+base64.StdEncoding.EncodeToString(bytes.Repeat([]byte{0xcd}, 32))
	s, err := TLSPin("acme", org, oldPin, newPin, t0, 24*time.Hour, t0)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Verify(org.Public()); err != nil {
		t.Fatal(err)
	}
	if s.Verify(key(t, 2).Public()) == nil {
		t.Fatal("a pin announcement verified under another org key")
	}
	if _, err := TLSPin("acme", org, oldPin, "sha256:nothex", t0, time.Hour, t0); err == nil {
		t.Fatal("a malformed pin was announced")
	}
}

func TestBadStatements(t *testing.T) {
	old, nw := key(t, 1), key(t, 2)
	if _, err := OrgKey("acme", old, old, encKey(t), t0, time.Hour, t0); err == nil {
		t.Error("a handover to the same key")
	}
	if _, err := OrgKey("acme", old, nw, encKey(t), t0, MaxOverlap+time.Hour, t0); err == nil {
		t.Error("an overlap above the bound")
	}
	if _, err := OrgKey("not valid", old, nw, encKey(t), t0, time.Hour, t0); err == nil {
		t.Error("an invalid organisation name")
	}
}
