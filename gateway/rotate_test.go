package gateway

import (
	"errors"
	"log/slog"
	"os"
	"testing"
	"time"

	"github.com/moltgate/moltgate/handover"
	"github.com/moltgate/moltgate/keys"
	"github.com/moltgate/moltgate/revocation"
)

// key rotate: a new org key in keys/org.json, a handover the old key
// signed and the new one countersigned, the revocation list signed again
// under the new key a serial higher, and a gateway that opens with it all.
func TestRotateOrgKey(t *testing.T) {
	d := initDir(t, "globex", "127.0.0.1:9743")
	before, err := LoadOrg(d, nil)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	r, err := RotateOrgKey(d, RotateOptions{Overlap: time.Hour, Now: now})
	if err != nil {
		t.Fatal(err)
	}
	after, err := LoadOrg(d, nil)
	if err != nil {
		t.Fatal(err)
	}
	if after.Signing.Public().Equal(before.Signing.Public()) || r.New != after.Signing.Public().String() || r.Old != before.Signing.Public().String() {
		t.Fatalf("keys: before %s, after %s, rotated %s -> %s", before.Signing.Public(), after.Signing.Public(), r.Old, r.New)
	}
	if !after.Encryption.Public().Equal(before.Encryption.Public()) || after.Ref != before.Ref {
		t.Fatal("the encryption key or the name changed")
	}
	if !r.Until.Equal(time.UnixMilli(now.UnixMilli()).Add(time.Hour)) {
		t.Fatalf("until %v", r.Until)
	}
	set, err := handover.LoadFile(d.HandoversPath())
	if err != nil || len(set.Handovers) != 1 {
		t.Fatalf("handovers: %v %v", set, err)
	}
	if err := set.Handovers[0].Verify(before.Signing.Public()); err != nil {
		t.Fatalf("a peer holding the old key: %v", err)
	}
	if _, err := os.Stat(d.nextOrgKeyPath()); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the next key file stayed: %v", err)
	}
	list, err := revocation.LoadFile(d.RevocationsPath(), "globex", after.Signing.Public())
	if err != nil || list.Serial != 1 {
		t.Fatalf("revocation list under the new key: %v %v", list, err)
	}
	s, err := Open(Options{Dir: d, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatalf("open after the rotation: %v", err)
	}
	if !s.orgCert.Load().Issuer.Equal(after.Signing.Public()) {
		t.Fatal("the gateway's certificate is not issued under the new key")
	}
	s.Shutdown(t.Context())

	// A second rotation chains from the first.
	r2, err := RotateOrgKey(d, RotateOptions{Now: now.Add(time.Minute)})
	if err != nil {
		t.Fatal(err)
	}
	set, _ = handover.LoadFile(d.HandoversPath())
	if len(set.Handovers) != 2 || r2.Old != r.New || set.Handovers[1].Verify(after.Signing.Public()) != nil {
		t.Fatalf("second rotation: %+v", set.Handovers)
	}
	if r2.Until.Sub(r2.Effective) != DefaultOverlap {
		t.Fatalf("default overlap %v", r2.Until.Sub(r2.Effective))
	}
}

// A rotation that stopped after writing its statement is finished with
// the key the statement names when run again.
func TestRotateOrgKeyResumes(t *testing.T) {
	d := initDir(t, "globex", "127.0.0.1:9745")
	before, _ := LoadOrg(d, nil)
	r, err := RotateOrgKey(d, RotateOptions{Overlap: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	// As if it had stopped before the rename: the new key is back at
	// org.next.json and the old one at org.json.
	if err := os.Rename(d.OrgKeyPath(), d.nextOrgKeyPath()); err != nil {
		t.Fatal(err)
	}
	if err := before.Save(d.OrgKeyPath(), keys.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	again, err := RotateOrgKey(d, RotateOptions{Overlap: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	if again.New != r.New {
		t.Fatalf("run again: new key %s, want %s", again.New, r.New)
	}
	set, _ := handover.LoadFile(d.HandoversPath())
	if len(set.Handovers) != 1 {
		t.Fatalf("%d statements, want the one", len(set.Handovers))
	}
	after, _ := LoadOrg(d, nil)
	if after.Signing.Public().String() != r.New {
		t.Fatal("org.json is not the new key")
	}
	if _, err := revocation.LoadFile(d.RevocationsPath(), "globex", after.Signing.Public()); err != nil {
		t.Fatal(err)
	}
}

// tls rotate: a new certificate for the same addresses, its pin announced
// in a statement the org key signed.
func TestRotateTLS(t *testing.T) {
	d := initDir(t, "globex", "127.0.0.1:9747")
	old, oldPin, err := loadTLSCert(d)
	if err != nil {
		t.Fatal(err)
	}
	r, err := RotateTLS(d, RotateOptions{Overlap: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	cur, newPin, err := loadTLSCert(d)
	if err != nil {
		t.Fatal(err)
	}
	if newPin == oldPin || r.Old != oldPin || r.New != newPin {
		t.Fatalf("pins: %s -> %s, rotated %s -> %s", oldPin, newPin, r.Old, r.New)
	}
	if got, want := certHosts(cur.Leaf), certHosts(old.Leaf); len(got) != len(want) || got[0] != want[0] {
		t.Fatalf("hosts %v, want %v", got, want)
	}
	org, _ := LoadOrg(d, nil)
	set, _ := handover.LoadFile(d.HandoversPath())
	if len(set.Handovers) != 1 || set.Handovers[0].Kind != handover.KindTLSPin || set.Handovers[0].Verify(org.Signing.Public()) != nil {
		t.Fatalf("statement: %+v", set.Handovers)
	}
}

func TestRotateOptions(t *testing.T) {
	d := initDir(t, "globex", "127.0.0.1:9749")
	for _, o := range []time.Duration{time.Millisecond, handover.MaxOverlap + time.Hour} {
		_, err := RotateOrgKey(d, RotateOptions{Overlap: o})
		var oe *OptionError
		if !errors.As(err, &oe) || oe.Option != "--overlap" {
			t.Errorf("overlap %v: %v", o, err)
		}
	}
	if _, err := os.Stat(d.HandoversPath()); !errors.Is(err, os.ErrNotExist) {
		t.Fatal("a refused rotation wrote a handover")
	}
}
