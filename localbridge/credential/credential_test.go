package credential

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

func newStore(t *testing.T) (*Store, *time.Time) {
	now := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	return &Store{Dir: filepath.Join(t.TempDir(), "credentials"), Now: func() time.Time { return now }}, &now
}

func refusal(t *testing.T, err error) string {
	t.Helper()
	var re *RefusedError
	if !errors.As(err, &re) {
		t.Fatalf("err = %v, want a *RefusedError", err)
	}
	return re.Reason
}

func TestTokenOnceThenKey(t *testing.T) {
	s, _ := newStore(t)
	tok, err := s.Issue("greeter", time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(tok, TokenPrefix) || len(tok) != len(TokenPrefix)+43 {
		t.Fatalf("token %q: want ostok_ and 43 characters", tok)
	}
	b, err := os.ReadFile(filepath.Join(s.Dir, "greeter.json"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), tok[len(TokenPrefix):]) {
		t.Fatal("the file holds the token itself, not only its digest")
	}
	fi, _ := os.Stat(filepath.Join(s.Dir, "greeter.json"))
	if fi.Mode().Perm() != 0o600 {
		t.Fatalf("file mode %04o, want 0600", fi.Mode().Perm())
	}
	if _, err := s.Admit("other", tok); refusal(t, err) != "unknown or used token" {
		t.Fatalf("another agent's token: %v", err)
	}
	a, err := s.Admit("greeter", tok)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(a.Key, KeyPrefix) || a.Stamp == "" {
		t.Fatalf("admission %+v: want a key and a stamp", a)
	}
	if _, err := s.Admit("greeter", tok); refusal(t, err) != "unknown or used token" {
		t.Fatalf("a token used twice: %v", err)
	}
	for i := 0; i < 3; i++ {
		again, err := s.Admit("greeter", a.Key)
		if err != nil {
			t.Fatalf("reconnect %d with the key: %v", i, err)
		}
		if again.Key != "" || again.Stamp != a.Stamp {
			t.Fatalf("reconnect gave %+v, want no new key and the same stamp", again)
		}
	}
	if !s.Holds("greeter", a.Stamp) {
		t.Fatal("the bound key is not held")
	}
	st, ok, err := s.Lookup("greeter")
	if err != nil || !ok || st.TokenWaiting || !st.KeyBound {
		t.Fatalf("Lookup = %+v %v %v: want a key bound and no token waiting", st, ok, err)
	}
}

func TestExpiredTokenIsSpent(t *testing.T) {
	s, now := newStore(t)
	tok, err := s.Issue("greeter", time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	*now = now.Add(2 * time.Minute)
	if _, err := s.Admit("greeter", tok); refusal(t, err) != "expired token" {
		t.Fatalf("expired: %v", err)
	}
	if _, err := s.Admit("greeter", tok); refusal(t, err) != "unknown or used token" {
		t.Fatalf("expired and presented again: %v", err)
	}
}

func TestRevokeAndReissue(t *testing.T) {
	s, _ := newStore(t)
	tok, _ := s.Issue("greeter", time.Hour)
	a, err := s.Admit("greeter", tok)
	if err != nil {
		t.Fatal(err)
	}
	// A new token revokes the key bound by the old one.
	tok2, err := s.Issue("greeter", time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	if s.Holds("greeter", a.Stamp) {
		t.Fatal("the old key still holds after a new token")
	}
	if _, err := s.Admit("greeter", a.Key); refusal(t, err) != "unknown or revoked key" {
		t.Fatalf("old key: %v", err)
	}
	b, err := s.Admit("greeter", tok2)
	if err != nil {
		t.Fatal(err)
	}
	had, err := s.Revoke("greeter")
	if err != nil || !had {
		t.Fatalf("Revoke = %v, %v", had, err)
	}
	if s.Holds("greeter", b.Stamp) {
		t.Fatal("a revoked key holds")
	}
	if _, err := s.Admit("greeter", b.Key); refusal(t, err) != "unknown or revoked key" {
		t.Fatalf("revoked key: %v", err)
	}
	if had, err := s.Revoke("greeter"); err != nil || had {
		t.Fatalf("second Revoke = %v, %v; want nothing to revoke", had, err)
	}
}

func TestBadInput(t *testing.T) {
	s, _ := newStore(t)
	for _, tc := range []struct {
		agent string
		ttl   time.Duration
		want  string
	}{
		{"../etc", time.Hour, "agent id"},
		{"", time.Hour, "agent id"},
		{"greeter", 0, "ttl"},
		{"greeter", MaxTTL + time.Second, "ttl"},
	} {
		if _, err := s.Issue(tc.agent, tc.ttl); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Issue(%q, %v) = %v, want an error naming %s", tc.agent, tc.ttl, err, tc.want)
		}
	}
	if _, err := s.Admit("greeter", "password"); refusal(t, err) != "neither a token nor a key" {
		t.Fatal(err)
	}
	if _, err := s.Admit("a/b", TokenPrefix+"x"); refusal(t, err) != "malformed agent id" {
		t.Fatal(err)
	}
	if err := os.MkdirAll(s.Dir, 0o700); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(s.Dir, "broken.json"), []byte("{"), 0o600)
	if _, err := s.Admit("broken", KeyPrefix+"x"); err == nil || !strings.Contains(err.Error(), "damaged") {
		t.Fatalf("damaged file: %v", err)
	}
}

// TestOneTokenOneWinner holds that of many connections presenting one token at once, exactly
// one is admitted: the check and the spending are one step under the lock.
func TestOneTokenOneWinner(t *testing.T) {
	s, _ := newStore(t)
	tok, _ := s.Issue("greeter", time.Hour)
	var wg sync.WaitGroup
	var mu sync.Mutex
	won := 0
	for i := 0; i < 16; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := s.Admit("greeter", tok); err == nil {
				mu.Lock()
				won++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if won != 1 {
		t.Fatalf("%d connections admitted with one token, want 1", won)
	}
}
