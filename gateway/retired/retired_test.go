package retired

import (
	"bytes"
	"crypto/rand"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/moltgate/moltgate/keys"
)

func newKey(t *testing.T, until time.Time) Key {
	t.Helper()
	k, err := keys.GenerateX25519(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return Key{Org: "acme", Key: k, Until: until}
}

var t0 = time.Date(2026, 5, 2, 12, 0, 0, 0, time.UTC)

// Keys of several rotations are kept each until its own overlap ends:
// Load returns the ones whose overlap has not ended, the latest first, and
// removes the files of the others; Sweep removes each file once its
// overlap has ended and no sooner.
func TestLoadAndSweepByOverlap(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "keys", "retired")
	a, b, c := newKey(t, t0), newKey(t, t0.Add(time.Hour)), newKey(t, t0.Add(2*time.Hour))
	for _, k := range []Key{a, b, c} {
		if err := Save(dir, k, keys.WriteOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	for _, k := range []Key{a, b, c} {
		st, err := os.Stat(filepath.Join(dir, Name(k.Key.Public())))
		if err != nil || st.Mode().Perm() != 0o600 {
			t.Fatalf("retired key file: %v, mode %v", err, st.Mode())
		}
	}
	if st, err := os.Stat(dir); err != nil || st.Mode().Perm() != 0o700 {
		t.Fatalf("retired key directory: %v", err)
	}

	got, err := Load(dir, "acme", nil, t0.Add(-time.Second))
	if err != nil || len(got) != 3 || !got[0].Key.Equal(c.Key) || !got[1].Key.Equal(b.Key) || !got[2].Key.Equal(a.Key) || !got[2].Until.Equal(t0) {
		t.Fatalf("Load during every overlap = %v, %v", got, err)
	}

	// At the first overlap's end its file goes, the others stay.
	got, err = Load(dir, "acme", nil, t0)
	if err != nil || len(got) != 2 || !got[1].Key.Equal(b.Key) {
		t.Fatalf("Load at the first overlap's end = %v, %v", got, err)
	}
	if _, err := os.Stat(filepath.Join(dir, Name(a.Key.Public()))); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the file of a key whose overlap ended is still there: %v", err)
	}

	removed, err := Sweep(dir, t0.Add(time.Hour+time.Minute))
	if err != nil || len(removed) != 1 || filepath.Base(removed[0]) != Name(b.Key.Public()) {
		t.Fatalf("Sweep after the second overlap = %v, %v", removed, err)
	}
	if removed, err = Sweep(dir, t0.Add(time.Hour+time.Minute)); err != nil || len(removed) != 0 {
		t.Fatalf("Sweep again = %v, %v", removed, err)
	}
	if got, err = Load(dir, "acme", nil, t0.Add(90*time.Minute)); err != nil || len(got) != 1 || !got[0].Key.Equal(c.Key) {
		t.Fatalf("Load after two overlaps = %v, %v", got, err)
	}
	if removed, err = Sweep(dir, t0.Add(2*time.Hour)); err != nil || len(removed) != 1 {
		t.Fatalf("Sweep after the last overlap = %v, %v", removed, err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Fatalf("files left after every overlap ended: %v", entries)
	}
	// No directory is no key.
	if got, err := Load(filepath.Join(t.TempDir(), "none"), "acme", nil, t0); err != nil || got != nil {
		t.Fatalf("Load of no directory = %v, %v", got, err)
	}
}

// An encrypted file needs the passphrase to be opened, but not to be
// swept: its end of overlap is in the clear, and bound to the key by the
// AEAD.
func TestEncrypted(t *testing.T) {
	dir := t.TempDir()
	k := newKey(t, t0)
	pass := []byte("correct horse")
	if err := Save(dir, k, keys.WriteOptions{Passphrase: pass, ScryptLogN: 10}); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, Name(k.Key.Public()))
	b, _ := os.ReadFile(path)
	if bytes.Contains(b, []byte(k.Key.Secret())) || bytes.Contains(b, []byte(`"private"`)) {
		t.Fatal("an encrypted file holds the key in the clear")
	}
	if _, err := Load(dir, "acme", nil, t0.Add(-time.Hour)); !errors.Is(err, keys.ErrPassphrase) {
		t.Fatalf("Load without the passphrase = %v", err)
	}
	if _, err := Load(dir, "acme", []byte("wrong"), t0.Add(-time.Hour)); !errors.Is(err, keys.ErrPassphrase) {
		t.Fatalf("Load with a wrong passphrase = %v", err)
	}
	got, err := Load(dir, "acme", pass, t0.Add(-time.Hour))
	if err != nil || len(got) != 1 || !got[0].Key.Equal(k.Key) {
		t.Fatalf("Load with the passphrase = %v, %v", got, err)
	}
	// An end of overlap moved by hand does not open.
	moved := bytes.Replace(b, []byte(t0.Format(time.RFC3339Nano)), []byte(t0.Add(24*time.Hour).Format(time.RFC3339Nano)), 1)
	if _, err := Unmarshal(moved, pass); !errors.Is(err, keys.ErrPassphrase) {
		t.Fatalf("a file whose end of overlap was moved = %v", err)
	}
	if removed, err := Sweep(dir, t0); err != nil || len(removed) != 1 {
		t.Fatalf("Sweep of an encrypted file = %v, %v", removed, err)
	}
}

// A file that is not a retired key, a file others may read, or a key of
// another org stop Load with an error naming the file and the way out.
func TestLoadRefuses(t *testing.T) {
	for _, c := range []struct {
		name, want string
		write      func(t *testing.T, dir string) string
	}{
		{"cut short", "empty or cut short", func(t *testing.T, dir string) string {
			p := filepath.Join(dir, "x.json")
			os.WriteFile(p, []byte(`{"moltgate_retired_key":1,`), 0o600)
			return p
		}},
		{"bad until", "until:", func(t *testing.T, dir string) string {
			p := filepath.Join(dir, "x.json")
			os.WriteFile(p, []byte(`{"moltgate_retired_key":1,"org":"acme","public":{"enc_key":""},"until":"soon"}`), 0o600)
			return p
		}},
		{"readable by others", "chmod 600", func(t *testing.T, dir string) string {
			k := newKey(t, t0)
			Save(dir, k, keys.WriteOptions{})
			p := filepath.Join(dir, Name(k.Key.Public()))
			os.Chmod(p, 0o644)
			return p
		}},
		{"another org", "org: the key of initech", func(t *testing.T, dir string) string {
			k := newKey(t, t0)
			k.Org = "initech"
			Save(dir, k, keys.WriteOptions{})
			return filepath.Join(dir, Name(k.Key.Public()))
		}},
		{"public key swapped", "public.enc_key does not match", func(t *testing.T, dir string) string {
			k, other := newKey(t, t0), newKey(t, t0)
			b, _ := k.Marshal(keys.WriteOptions{})
			b = bytes.Replace(b, []byte(k.Key.Public().String()), []byte(other.Key.Public().String()), 1)
			p := filepath.Join(dir, "x.json")
			os.WriteFile(p, b, 0o600)
			return p
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			path := c.write(t, dir)
			_, err := Load(dir, "acme", nil, t0.Add(-time.Hour))
			var fe *FileError
			if !errors.As(err, &fe) || fe.Path != path || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "restore the file") || strings.Contains(err.Error(), "\n") {
				t.Fatalf("Load = %v, want a one-line error naming %s and saying %q", err, path, c.want)
			}
		})
	}
}

// Marshal and Unmarshal round-trip, in the clear and encrypted.
func TestRoundTrip(t *testing.T) {
	k := newKey(t, t0.Add(123456789*time.Nanosecond))
	for _, opts := range []keys.WriteOptions{{}, {Passphrase: []byte("p"), ScryptLogN: 10}} {
		b, err := k.Marshal(opts)
		if err != nil {
			t.Fatal(err)
		}
		got, err := Unmarshal(b, opts.Passphrase)
		if err != nil || got.Org != k.Org || !got.Key.Equal(k.Key) || !got.Until.Equal(k.Until) {
			t.Fatalf("round trip = %+v, %v", got, err)
		}
	}
	if _, err := (&Key{Org: "acme", Key: k.Key}).Marshal(keys.WriteOptions{}); err == nil {
		t.Fatal("a key without an end of overlap was written")
	}
}
