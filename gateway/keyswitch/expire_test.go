package keyswitch

import (
	"context"
	"crypto/rand"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/moltgate/moltgate/crypto"
	"github.com/moltgate/moltgate/gateway/orgkey"
	"github.com/moltgate/moltgate/gateway/retired"
	"github.com/moltgate/moltgate/keys"
)

// Reload, which the watch loop runs, drops each X25519 key replaced from
// the keyring once its overlap ends, and no sooner, removes its file from
// RetiredDir, and zeroes the shared keys its box remembered at the Reload
// after.
func TestReloadExpiresRetiredKeys(t *testing.T) {
	r := newRig(t)
	dir := filepath.Join(t.TempDir(), "retired")
	r.w.cfg.RetiredDir = dir
	var formers []crypto.Former
	for _, until := range []time.Time{r.now.Add(time.Hour), r.now.Add(2 * time.Hour)} {
		k, err := keys.GenerateX25519(rand.Reader)
		if err != nil {
			t.Fatal(err)
		}
		if err := retired.Save(dir, retired.Key{Org: "globex", Key: k, Until: until}, keys.WriteOptions{}); err != nil {
			t.Fatal(err)
		}
		formers = append([]crypto.Former{{Box: crypto.NewBox(k, 0), Until: until}}, formers...)
	}
	if _, err := r.keys.Update(func(set orgkey.Set) (orgkey.Set, error) {
		set.Keys = crypto.NewKeyring(set.Keys.Current, formers...)
		return set, nil
	}); err != nil {
		t.Fatal(err)
	}
	peer, err := keys.GenerateX25519(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	first := formers[1].Box
	shared, err := first.SharedKey(peer.Public())
	if err != nil {
		t.Fatal(err)
	}
	files := func() int {
		entries, _ := os.ReadDir(dir)
		return len(entries)
	}
	ctx := context.Background()

	r.now = r.now.Add(time.Hour - time.Millisecond)
	if err := r.w.Reload(ctx); err != nil {
		t.Fatal(err)
	}
	if n := len(r.keys.Keyring().Formers); n != 2 || files() != 2 {
		t.Fatalf("during both overlaps: %d keys replaced held, %d files", n, files())
	}

	r.now = r.now.Add(time.Millisecond)
	if err := r.w.Reload(ctx); err != nil {
		t.Fatal(err)
	}
	k := r.keys.Keyring()
	if len(k.Formers) != 1 || k.Formers[0].Box != formers[0].Box || k.For(first.Public()) != nil || files() != 1 {
		t.Fatalf("at the first overlap's end: %+v, %d files", k, files())
	}
	if _, err := os.Stat(filepath.Join(dir, retired.Name(first.Public()))); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the file of the key whose overlap ended: %v", err)
	}
	if *shared == ([32]byte{}) {
		t.Fatal("a shared key was zeroed in the Reload that dropped its box, while opens under the keyring before may go on")
	}
	if err := r.w.Reload(ctx); err != nil {
		t.Fatal(err)
	}
	if *shared != ([32]byte{}) {
		t.Fatal("the shared key of a key dropped is still in memory a Reload later")
	}
	if !strings.Contains(r.log.String(), "retired X25519 key dropped") || !strings.Contains(r.log.String(), retired.Name(first.Public())) {
		t.Fatalf("the log does not say what was dropped and removed:\n%s", r.log)
	}

	r.now = r.now.Add(time.Hour)
	if err := r.w.Reload(ctx); err != nil {
		t.Fatal(err)
	}
	if k := r.keys.Keyring(); len(k.Formers) != 0 || len(k.Ended) != 2 || files() != 0 {
		t.Fatalf("after both overlaps: %+v, %d files", k, files())
	}

	// A file that is not a retired key is reported, naming it.
	os.WriteFile(filepath.Join(dir, "x.json"), []byte("{"), 0o600)
	var fe *retired.FileError
	if err := r.w.Reload(ctx); !errors.As(err, &fe) || filepath.Base(fe.Path) != "x.json" {
		t.Fatalf("Reload with a broken retired key file = %v", err)
	}
}
