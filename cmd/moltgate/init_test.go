package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/moltgate/moltgate/gateway"
	"github.com/moltgate/moltgate/keys"
)

// initWith runs init with answers for a terminal that is asked for
// secrets (nil: no terminal).
func initWith(t *testing.T, answers []string, args ...string) (code int, stdout, stderr string, asked int) {
	t.Helper()
	var out, errOut strings.Builder
	e := &env{stdin: strings.NewReader(""), stdout: &out, stderr: &errOut, getenv: func(string) string { return "" }, now: time.Now}
	if answers != nil {
		e.readSecret = func(prompt string) ([]byte, error) {
			if asked >= len(answers) {
				t.Fatalf("asked %d times; the script has %d answers", asked+1, len(answers))
			}
			asked++
			return []byte(answers[asked-1]), nil
		}
	}
	code = run(context.Background(), e, append([]string{"init"}, args...))
	return code, out.String(), errOut.String(), asked
}

func orgKeyEncrypted(t *testing.T, dir string, pass string) {
	t.Helper()
	b, err := os.ReadFile(gateway.Dir(dir).OrgKeyPath())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := keys.UnmarshalKeyFile(b, nil); err == nil {
		t.Fatal("the org key opens without a passphrase")
	}
	if _, err := keys.UnmarshalKeyFile(b, []byte(pass)); err != nil {
		t.Fatalf("the org key does not open with the passphrase given: %v", err)
	}
}

func TestInitAsksForAPassphraseOnATerminal(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "acme")
	// A short one, then two that differ, then one typed the same twice.
	code, stdout, stderr, asked := initWith(t, []string{"short", "correct horse", "correct hose", "correct horse", "correct horse"},
		"--dir", dir, "--org", "acme", "--listen", "127.0.0.1:17443")
	if code != 0 || asked != 5 {
		t.Fatalf("exit %d after %d questions: %s", code, asked, stderr)
	}
	if !strings.Contains(stderr, "at least 8 characters") || !strings.Contains(stderr, "differ") {
		t.Fatalf("stderr %q: want the reasons each answer was asked again", stderr)
	}
	if !strings.Contains(stdout, "keys      encrypted at rest") {
		t.Fatalf("stdout does not say the key is encrypted:\n%s", stdout)
	}
	orgKeyEncrypted(t, dir, "correct horse")
}

func TestInitSaysWhenKeysArePlaintext(t *testing.T) {
	for _, tc := range []struct {
		name    string
		answers []string
		args    []string
		asked   int
	}{
		{"no terminal", nil, nil, 0},
		{"empty answer", []string{""}, nil, 1},
		{"--plaintext-keys", []string{}, []string{"--plaintext-keys"}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "acme")
			code, stdout, stderr, asked := initWith(t, tc.answers, append([]string{"--dir", dir, "--org", "acme", "--listen", "127.0.0.1:17443"}, tc.args...)...)
			if code != 0 || asked != tc.asked {
				t.Fatalf("exit %d after %d questions, want %d: %s", code, asked, tc.asked, stderr)
			}
			if !strings.Contains(stdout, "keys      IN PLAINTEXT in "+gateway.Dir(dir).OrgKeyPath()) {
				t.Fatalf("stdout does not say the key is in plaintext:\n%s", stdout)
			}
			b, _ := os.ReadFile(gateway.Dir(dir).OrgKeyPath())
			if _, err := keys.UnmarshalKeyFile(b, nil); err != nil {
				t.Fatalf("the plaintext key does not open: %v", err)
			}
		})
	}
}

func TestInitGivesUpAfterThreeTries(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "acme")
	code, _, stderr, _ := initWith(t, []string{"a", "b", "c"}, "--dir", dir, "--org", "acme")
	if code != 2 || !strings.Contains(stderr, "no passphrase after three tries") {
		t.Fatalf("exit %d, %q", code, stderr)
	}
	if _, err := os.Stat(dir); err == nil {
		if _, err := os.Stat(gateway.Dir(dir).OrgKeyPath()); err == nil {
			t.Fatal("a key was written although no passphrase was agreed")
		}
	}
}
