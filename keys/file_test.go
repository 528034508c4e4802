package keys

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func testKeyFile(t *testing.T) *KeyFile {
	t.Helper()
	sk, err := GenerateEd25519(bytes.NewReader(bytes.Repeat([]byte{7}, 32)))
	if err != nil {
		t.Fatal(err)
	}
	ek, err := GenerateX25519(bytes.NewReader(bytes.Repeat([]byte{8}, 32)))
	if err != nil {
		t.Fatal(err)
	}
	return &KeyFile{Agent: "alice", Org: "acme", Signing: sk, Encryption: ek}
}

func TestKeyFileRoundTrip(t *testing.T) {
	dir := t.TempDir()
	kf := testKeyFile(t)
	path := filepath.Join(dir, "id.json")
	if err := WriteFile(path, kf, WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	st, _ := os.Stat(path)
	if st.Mode().Perm() != 0o600 {
		t.Fatalf("mode %o, want 0600", st.Mode().Perm())
	}
	got, err := ReadFile(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got.Agent != "alice" || got.Org != "acme" || !got.Signing.Equal(kf.Signing) || !got.Encryption.Equal(kf.Encryption) {
		t.Fatal("keys changed in the round trip")
	}
	if err := WriteFile(path, kf, WriteOptions{}); !errors.Is(err, fs.ErrExist) {
		t.Fatalf("overwrite without Overwrite: %v", err)
	}
	if err := WriteFile(path, kf, WriteOptions{Overwrite: true}); err != nil {
		t.Fatalf("overwrite: %v", err)
	}
}

func TestKeyFilePermissions(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "id.json")
	if err := WriteFile(path, testKeyFile(t), WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, mode := range []os.FileMode{0o640, 0o604, 0o660, 0o644, 0o602} {
		os.Chmod(path, mode)
		if _, err := ReadFile(path, nil); !errors.Is(err, ErrPermissions) {
			t.Errorf("mode %o: got %v, want ErrPermissions", mode, err)
		}
	}
	os.Chmod(path, 0o400)
	if _, err := ReadFile(path, nil); err != nil {
		t.Errorf("mode 0400: %v", err)
	}
}

func TestKeyFileEncrypted(t *testing.T) {
	dir := t.TempDir()
	kf := testKeyFile(t)
	path := filepath.Join(dir, "id.json")
	pass := []byte("correct horse battery staple")
	if err := WriteFile(path, kf, WriteOptions{Passphrase: pass, ScryptLogN: 10}); err != nil {
		t.Fatal(err)
	}
	raw, _ := os.ReadFile(path)
	if bytes.Contains(raw, []byte(kf.Signing.Secret())) || bytes.Contains(raw, []byte(kf.Encryption.Secret())) {
		t.Fatal("encrypted file holds a private key in the clear")
	}
	if _, err := ReadFile(path, nil); !errors.Is(err, ErrPassphrase) {
		t.Fatalf("no passphrase: %v", err)
	}
	if _, err := ReadFile(path, []byte("wrong")); !errors.Is(err, ErrPassphrase) {
		t.Fatalf("wrong passphrase: %v", err)
	}
	got, err := ReadFile(path, pass)
	if err != nil || !got.Signing.Equal(kf.Signing) {
		t.Fatalf("right passphrase: %v", err)
	}
	// Moving the encrypted section under another header must fail: the
	// header is the AEAD's additional data.
	tampered := bytes.Replace(raw, []byte(`"agent": "alice"`), []byte(`"agent": "mallory"`), 1)
	if _, err := UnmarshalKeyFile(tampered, pass); !errors.Is(err, ErrPassphrase) {
		t.Fatalf("tampered header: %v", err)
	}
	hostile := bytes.Replace(raw, []byte(`"log_n": 10`), []byte(`"log_n": 30`), 1)
	if _, err := UnmarshalKeyFile(hostile, pass); err == nil || !strings.Contains(err.Error(), "unsupported") {
		t.Fatalf("hostile work factor: %v", err)
	}
}

func TestKeyFileMismatchedPublic(t *testing.T) {
	kf := testKeyFile(t)
	b, _ := kf.Marshal(WriteOptions{})
	other, _ := GenerateEd25519(bytes.NewReader(bytes.Repeat([]byte{9}, 32)))
	b = bytes.Replace(b, []byte(kf.Signing.Public().String()), []byte(other.Public().String()), 1)
	if _, err := UnmarshalKeyFile(b, nil); err == nil {
		t.Fatal("accepted a file whose public key is not its private key's")
	}
}

func TestPassphraseFromEnv(t *testing.T) {
	dir := t.TempDir()
	env := map[string]string{}
	getenv := func(k string) string { return env[k] }
	if p, err := PassphraseFromEnv(getenv); p != nil || err != nil {
		t.Fatalf("unset: %q %v", p, err)
	}
	env[PassphraseEnv] = "s3cret"
	if p, _ := PassphraseFromEnv(getenv); string(p) != "s3cret" {
		t.Fatalf("env: %q", p)
	}
	f := filepath.Join(dir, "pass")
	os.WriteFile(f, []byte("from-file\nignored\n"), 0o600)
	env[PassphraseFileEnv] = f
	var ee *EnvError
	if _, err := PassphraseFromEnv(getenv); !errors.As(err, &ee) || ee.Var != PassphraseFileEnv {
		t.Fatalf("both set: %v, want an EnvError", err)
	}
	delete(env, PassphraseEnv)
	if p, _ := PassphraseFromEnv(getenv); string(p) != "from-file" {
		t.Fatalf("file: %q", p)
	}
	os.WriteFile(f, []byte("\nsecond line\n"), 0o600)
	if _, err := PassphraseFromEnv(getenv); !errors.As(err, &ee) || !strings.Contains(err.Error(), f) {
		t.Fatalf("empty first line: %v, want an EnvError naming the file", err)
	}
	os.Chmod(f, 0o644)
	if _, err := PassphraseFromEnv(getenv); !errors.Is(err, ErrPermissions) {
		t.Fatalf("readable passphrase file: %v", err)
	}
}

func TestPinStore(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "pins.json")
	now := func() time.Time { return time.Unix(1700000000, 0) }
	s, err := OpenPinStore(path, now)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := GenerateEd25519(bytes.NewReader(bytes.Repeat([]byte{1}, 32)))
	b, _ := GenerateEd25519(bytes.NewReader(bytes.Repeat([]byte{2}, 32)))
	if err := s.Check("acme", a.Public()); !errors.Is(err, ErrNotPinned) {
		t.Fatalf("unpinned: %v", err)
	}
	if err := s.Pin("acme", a.Public(), X25519Public{}); err != nil {
		t.Fatal(err)
	}
	if err := s.Pin("acme", a.Public(), X25519Public{}); err != nil {
		t.Fatalf("re-pin same key: %v", err)
	}
	var mm *MismatchError
	if err := s.Pin("acme", b.Public(), X25519Public{}); !errors.As(err, &mm) {
		t.Fatalf("pin other key: %v", err)
	}
	if err := s.Check("acme", b.Public()); !errors.As(err, &mm) || mm.Name != "acme" {
		t.Fatalf("check other key: %v", err)
	}
	if err := s.Check("acme", a.Public()); err != nil {
		t.Fatal(err)
	}
	// Reopen: the pin survived, and the file is private.
	s2, err := OpenPinStore(path, now)
	if err != nil {
		t.Fatal(err)
	}
	if p, ok := s2.Lookup("acme"); !ok || !p.Key.Equal(a.Public()) || !p.PinnedAt.Equal(now()) {
		t.Fatalf("reopened pin: %+v %v", p, ok)
	}
	if err := s2.Replace("acme", b.Public(), X25519Public{}); err != nil {
		t.Fatal(err)
	}
	if err := s2.Check("acme", b.Public()); err != nil {
		t.Fatalf("after Replace: %v", err)
	}
	// The first store sees the other's change once it reloads.
	if err := s.Check("acme", b.Public()); !errors.As(err, &mm) {
		t.Fatalf("before Reload: %v", err)
	}
	if err := s.Reload(); err != nil {
		t.Fatal(err)
	}
	if err := s.Check("acme", b.Public()); err != nil {
		t.Fatalf("after Reload: %v", err)
	}
	if err := s2.Remove("acme"); err != nil || len(s2.All()) != 0 {
		t.Fatalf("Remove: %v", err)
	}
	// A file that does not parse leaves the store as it was.
	if err := os.WriteFile(path, []byte("{"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := s.Reload(); err == nil {
		t.Fatal("Reload accepted a broken file")
	}
	if err := s.Check("acme", b.Public()); err != nil {
		t.Fatalf("after a failed Reload: %v", err)
	}
	os.Chmod(path, 0o644)
	if _, err := OpenPinStore(path, now); !errors.Is(err, ErrPermissions) {
		t.Fatalf("readable pin file: %v", err)
	}
}

// A file that cannot be read is named once, however deep the error.
func TestReadNamesThePathOnce(t *testing.T) {
	path := filepath.Join(t.TempDir(), "missing.json")
	for name, read := range map[string]func() error{
		"ReadPrivateFile": func() error { _, err := ReadPrivateFile(path); return err },
		"ReadFile":        func() error { _, err := ReadFile(path, nil); return err },
		"PassphraseFromEnv": func() error {
			_, err := PassphraseFromEnv(func(k string) string {
				if k == PassphraseFileEnv {
					return path
				}
				return ""
			})
			return err
		},
	} {
		err := read()
		if !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s: %v, want ErrNotExist", name, err)
			continue
		}
		if n := strings.Count(err.Error(), path); n != 1 {
			t.Errorf("%s: %q names the path %d times", name, err, n)
		}
	}
}

// What is not an identity file is a FormatError; a wrong passphrase is not.
func TestKeyFileFormatError(t *testing.T) {
	good, _ := testKeyFile(t).Marshal(WriteOptions{})
	for _, b := range [][]byte{nil, good[:40], []byte("hello"), append(good, "{}"...)} {
		var fe *FormatError
		if _, err := UnmarshalKeyFile(b, nil); !errors.As(err, &fe) {
			t.Errorf("%.20q: %v, want a FormatError", b, err)
		}
	}
	sealed, _ := testKeyFile(t).Marshal(WriteOptions{Passphrase: []byte("right"), ScryptLogN: 10})
	var fe *FormatError
	if _, err := UnmarshalKeyFile(sealed, []byte("wrong")); errors.As(err, &fe) || !errors.Is(err, ErrPassphrase) {
		t.Errorf("wrong passphrase: %v", err)
	}
}

// A pin file is read strictly, and a mistake names the entry's field.
func TestPinFileMistakes(t *testing.T) {
	path := filepath.Join(t.TempDir(), "pins.json")
	k, _ := GenerateEd25519(bytes.NewReader(bytes.Repeat([]byte{1}, 32)))
	key := k.Public().String()
	for text, field := range map[string]string{
		``:         "",
		`{"pins":`: "",
		`[]`:       "",
		`{"pins":[{"name":"a","key":"` + key + `"}],"extra":1}`:                        "extra",
		`{"pins":[{"name":"a","key":"ed25519:AAAA"}]}`:                                 "pins[0].key",
		`{"pins":[{"name":"","key":"` + key + `"}]}`:                                   "pins[0].name",
		`{"pins":[{"name":"a","key":"` + key + `","enc_key":"x"}]}`:                    "pins[0].enc_key",
		`{"pins":[{"name":"a","key":"` + key + `","pinned_at":"now"}]}`:                "pins[0].pinned_at",
		`{"pins":[{"name":"a","key":"` + key + `"},{"name":"a","key":"` + key + `"}]}`: "pins[1].name",
	} {
		if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		_, err := OpenPinStore(path, nil)
		var pe *PinFileError
		if !errors.As(err, &pe) || pe.Field != field || pe.Path != path {
			t.Errorf("%.40s: %v, want a PinFileError at %q", text, err, field)
		}
	}
}
