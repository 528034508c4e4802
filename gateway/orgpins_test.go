package gateway

import (
	"crypto/rand"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/moltgate/moltgate/keys"
)

// A peer gateway's key that differs from its pin is refused and told, so
// that its statements are fetched; a pinned key, another agent's name and
// an org not pinned are not told.
func TestOrgPinsTellAMismatch(t *testing.T) {
	ps, err := keys.OpenPinStore(filepath.Join(t.TempDir(), "pins.json"), time.Now)
	if err != nil {
		t.Fatal(err)
	}
	k, _ := keys.GenerateEd25519(rand.Reader)
	other, _ := keys.GenerateEd25519(rand.Reader)
	enc, _ := keys.GenerateX25519(rand.Reader)
	if err := ps.Pin("globex", k.Public(), enc.Public()); err != nil {
		t.Fatal(err)
	}
	var told []string
	o := orgPins{ps, func(org string) { told = append(told, org) }}
	if err := o.Check("gateway@globex", k.Public()); err != nil {
		t.Fatalf("the pinned key: %v", err)
	}
	if err := o.Check("gateway@globex", other.Public()); err == nil {
		t.Fatal("another key than the pinned one is accepted")
	}
	if err := o.Check("gateway@initech", other.Public()); !errors.Is(err, keys.ErrNotPinned) {
		t.Fatalf("an org not pinned: %v", err)
	}
	if err := o.Check("assistant@globex", other.Public()); !errors.Is(err, keys.ErrNotPinned) {
		t.Fatalf("an agent of a peer: %v", err)
	}
	if len(told) != 1 || told[0] != "globex" {
		t.Fatalf("told %v, want [globex]", told)
	}
}
