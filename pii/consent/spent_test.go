package consent

import (
	"context"
	"crypto/rand"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/moltgate/moltgate/keys"
	"github.com/moltgate/moltgate/wire"
)

type trustAll struct{ key keys.Ed25519Public }

func (t trustAll) Trusts(org string, k keys.Ed25519Public) bool { return org == "acme" && k == t.key }

func oneTimeToken(t *testing.T, cs *Constraints) (*Token, keys.Ed25519Public, time.Time) {
	t.Helper()
	k, err := keys.GenerateEd25519(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	id, _ := NewID(rand.Reader)
	now := time.Now()
	tok, err := Issue(k, Claims{ID: id, GrantedBy: "customer-4711", Grantee: "concierge@globex", Purpose: "scheduling",
		DataTypes: []string{"email"}, IssuedAt: now.UnixMilli(), Expires: now.Add(time.Hour).UnixMilli(), Constraints: cs})
	if err != nil {
		t.Fatal(err)
	}
	parsed, err := Parse(tok)
	if err != nil {
		t.Fatal(err)
	}
	return parsed, k.Public(), now
}

func TestConstraintsRoundTrip(t *testing.T) {
	tok, _, _ := oneTimeToken(t, &Constraints{OneTime: true, NoStorage: true, NoForward: true})
	if c := tok.Constraints; c == nil || !c.OneTime || !c.NoStorage || !c.NoForward {
		t.Fatalf("constraints = %+v", tok.Constraints)
	}
	plain, _, _ := oneTimeToken(t, nil)
	if plain.Constraints != nil {
		t.Fatal("a token issued without constraints has some")
	}
	k, _ := keys.GenerateEd25519(rand.Reader)
	id, _ := NewID(rand.Reader)
	if _, err := Issue(k, Claims{ID: id, GrantedBy: "x", Grantee: "a@b", Purpose: "p", DataTypes: []string{"email"},
		IssuedAt: time.Now().UnixMilli(), Expires: time.Now().Add(time.Hour).UnixMilli(), Constraints: &Constraints{}}); err == nil {
		t.Fatal("empty constraints were issued: a token would have two texts")
	}
}

// TestOneTimeAcrossProcesses spends one consent from many goroutines through two SpentFiles
// on one file, as a gateway and a second process would: exactly one use is the first, and a
// file opened later still knows it.
func TestOneTimeAcrossProcesses(t *testing.T) {
	path := filepath.Join(t.TempDir(), SpentFileName)
	tok, key, now := oneTimeToken(t, &Constraints{OneTime: true})
	v1 := &Verifier{Trust: trustAll{key}, Spender: OpenSpent(path, nil)}
	v2 := &Verifier{Trust: trustAll{key}, Spender: OpenSpent(path, nil)}
	req := Request{Issuer: "acme", Grantee: wire.Ref{Agent: "concierge", Org: "globex"}, Purpose: "scheduling", Types: []string{"email"}}
	var ok, used atomic.Int32
	var wg sync.WaitGroup
	for i := range 16 {
		v := v1
		if i%2 == 1 {
			v = v2
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := v.Check(context.Background(), tok, req); err != nil {
				t.Error(err)
				return
			}
			err := v.Use(context.Background(), &tok.Claims)
			switch {
			case err == nil:
				ok.Add(1)
			case errors.Is(err, ErrUsed):
				used.Add(1)
			default:
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if ok.Load() != 1 || used.Load() != 15 {
		t.Fatalf("%d first uses and %d refusals of 16; want 1 and 15", ok.Load(), used.Load())
	}
	later := &Verifier{Trust: trustAll{key}, Spender: OpenSpent(path, func() time.Time { return now })}
	var we *wire.Error
	if err := later.Use(context.Background(), &tok.Claims); !errors.As(err, &we) || we.Code != wire.ErrConsent {
		t.Fatalf("after a restart: Use = %v; want E_CONSENT", err)
	}
	fi, err := os.Stat(path)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("spent file: %v, mode %v; want 0600", err, fi.Mode())
	}
}

func TestOneTimeWithoutStoreRefused(t *testing.T) {
	tok, key, _ := oneTimeToken(t, &Constraints{OneTime: true})
	v := &Verifier{Trust: trustAll{key}}
	if err := v.Use(context.Background(), &tok.Claims); !errors.Is(err, ErrUsed) {
		t.Fatalf("Use without a Spender = %v; want a refusal", err)
	}
	plain, _, _ := oneTimeToken(t, &Constraints{NoStorage: true})
	if err := v.Use(context.Background(), &plain.Claims); err != nil {
		t.Fatalf("a consent that is not one-time: Use = %v", err)
	}
}

func TestSpentFileTornLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), SpentFileName)
	id, _ := NewID(rand.Reader)
	if err := os.WriteFile(path, []byte(`{"id":"`+id[:10]), 0o600); err != nil {
		t.Fatal(err)
	}
	s := OpenSpent(path, nil)
	exp := time.Now().Add(time.Hour)
	if first, err := s.Spend(context.Background(), id, exp); !first || err != nil {
		t.Fatalf("after a torn line: %v %v", first, err)
	}
	if first, err := s.Spend(context.Background(), id, exp); first || err != nil {
		t.Fatalf("second use after a torn line: %v %v", first, err)
	}
}
