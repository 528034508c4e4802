package consent

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/moltgate/moltgate/identity"
	"github.com/moltgate/moltgate/keys"
	"github.com/moltgate/moltgate/wire"
)

var t0 = time.UnixMilli(1_767_222_000_000)

func testKey(t testing.TB, seed byte) keys.Ed25519Private {
	t.Helper()
	k, err := keys.Ed25519FromSeed(bytes.Repeat([]byte{seed}, 32))
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func testClaims() Claims {
	return Claims{ID: "8a6e0804-2bd0-4672-b79d-d97027f9071a", GrantedBy: "user:jane", Grantee: "calendar@globex",
		Purpose: "calendar-sync", DataTypes: []string{"phone", "email"}, IssuedAt: t0.UnixMilli(), Expires: t0.Add(time.Hour).UnixMilli()}
}

func testRequest() Request {
	return Request{Issuer: "acme", Grantee: wire.Ref{Agent: "calendar", Org: "globex"}, Purpose: "calendar-sync", Types: []string{"email"}}
}

func TestIssueParseRoundTrip(t *testing.T) {
	key := testKey(t, 1)
	tok, err := Issue(key, testClaims())
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(tok, Prefix) || strings.ContainsAny(tok, "=+/ ") {
		t.Fatalf("not a consent-token: + base64url form: %s", tok)
	}
	p, err := Parse(tok)
	if err != nil {
		t.Fatal(err)
	}
	if p.Raw != tok || !p.Issuer.Equal(key.Public()) || strings.Join(p.DataTypes, ",") != "email,phone" {
		t.Errorf("round trip: %+v", p)
	}
	// The claims are canonical JSON with exactly the documented members.
	claims, _ := b64.DecodeString(strings.TrimPrefix(strings.Split(tok, ".")[0], Prefix))
	want := `{"data_types":["email","phone"],"expires":1767225600000,"granted_by":"user:jane","grantee":"calendar@globex",` +
		`"id":"8a6e0804-2bd0-4672-b79d-d97027f9071a","issued_at":1767222000000,"issuer":"` + key.Public().String() + `","purpose":"calendar-sync"}`
	if string(claims) != want {
		t.Errorf("claims\n got %s\nwant %s", claims, want)
	}
}

func TestIssueRefusesBadClaims(t *testing.T) {
	key := testKey(t, 1)
	for name, mod := range map[string]func(*Claims){
		"id":      func(c *Claims) { c.ID = "nope" },
		"grantee": func(c *Claims) { c.Grantee = "calendar" },
		"type":    func(c *Claims) { c.DataTypes = []string{"email", "shoe-size"} },
		"none":    func(c *Claims) { c.DataTypes = nil },
		"purpose": func(c *Claims) { c.Purpose = "" },
		"expiry":  func(c *Claims) { c.Expires = c.IssuedAt },
		"seconds": func(c *Claims) { c.IssuedAt, c.Expires = 1_767_222_000, 1_767_225_600 },
	} {
		c := testClaims()
		mod(&c)
		if _, err := Issue(key, c); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

// TestTamperEveryByte: changing any byte of a token makes it fail to parse.
func TestTamperEveryByte(t *testing.T) {
	tok, _ := Issue(testKey(t, 1), testClaims())
	for i := range len(tok) {
		b := []byte(tok)
		b[i] ^= 0x01
		if _, err := Parse(string(b)); err == nil {
			t.Fatalf("byte %d changed, token still parses", i)
		}
	}
}

func TestParseRefusesNonCanonical(t *testing.T) {
	key := testKey(t, 1)
	sign := func(claims string) string {
		in := Prefix + b64.EncodeToString([]byte(claims))
		sig := key.Sign([]byte(in))
		return in + "." + b64.EncodeToString(sig[:])
	}
	c := testClaims()
	c.Issuer = key.Public()
	c.DataTypes = []string{"email", "phone"}
	good, _ := c.canonical()
	if _, err := Parse(sign(string(good))); err != nil {
		t.Fatalf("canonical claims refused: %v", err)
	}
	for name, claims := range map[string]string{
		"whitespace": strings.Replace(string(good), ",", ", ", 1),
		"unknown":    strings.Replace(string(good), `{"data_types"`, `{"admin":true,"data_types"`, 1),
		"unsorted":   strings.Replace(string(good), `["email","phone"]`, `["phone","email"]`, 1),
		"duplicate":  strings.Replace(string(good), `{"data_types"`, `{"data_types":["ssn"],"data_types"`, 1),
	} {
		err := err(Parse(sign(claims)))
		if !errors.Is(err, ErrMalformed) {
			t.Errorf("%s: got %v", name, err)
		}
	}
	padded := sign(string(good)) + "=="
	if _, err := Parse(padded); err == nil {
		t.Error("padding accepted")
	}
}

func err(_ *Token, e error) error { return e }

func newVerifier(t *testing.T, store Revocations) (*Verifier, *identity.TrustStore) {
	trust := identity.NewTrustStore()
	trust.Add("acme", testKey(t, 1).Public())
	trust.Add("globex", testKey(t, 2).Public())
	return &Verifier{Trust: trust, Revocations: store, Now: func() time.Time { return t0.Add(time.Minute) }}, trust
}

func TestVerify(t *testing.T) {
	ctx := context.Background()
	store, e := OpenFile(filepath.Join(t.TempDir(), "revoked.jsonl"), &FileOptions{Refresh: -1})
	if e != nil {
		t.Fatal(e)
	}
	v, _ := newVerifier(t, store)
	good, _ := Issue(testKey(t, 1), testClaims())
	if c, err := v.Verify(ctx, good, testRequest()); err != nil || c.GrantedBy != "user:jane" {
		t.Fatalf("valid consent refused: %v", err)
	}
	both := testRequest()
	both.Types = []string{"phone", "email"}
	if _, err := v.Verify(ctx, good, both); err != nil {
		t.Fatalf("covered types refused: %v", err)
	}

	forged := []byte(good)
	forged[len(forged)-5] ^= 0x04
	mallory, _ := Issue(testKey(t, 9), testClaims())
	peerIssued, _ := Issue(testKey(t, 2), testClaims())
	expired := testClaims()
	expired.Expires = t0.Add(30 * time.Second).UnixMilli()
	expiredTok, _ := Issue(testKey(t, 1), expired)
	future := testClaims()
	future.IssuedAt, future.Expires = t0.Add(time.Hour).UnixMilli(), t0.Add(2*time.Hour).UnixMilli()
	futureTok, _ := Issue(testKey(t, 1), future)
	revokedClaims := testClaims()
	revokedClaims.ID = "0f5bb9a4-63a8-4a54-9d1e-5ad3d0c4bb6a"
	revokedTok, _ := Issue(testKey(t, 1), revokedClaims)
	if err := store.Revoke(ctx, revokedClaims.ID, time.UnixMilli(revokedClaims.Expires)); err != nil {
		t.Fatal(err)
	}

	cases := []struct {
		name    string
		tok     string
		mod     func(*Request)
		reason  error
		missing string
	}{
		{"forged", string(forged), nil, ErrSignature, "email"},
		{"garbage", "consent-token:abc123", nil, ErrMalformed, "email"},
		{"untrusted issuer", mallory, nil, ErrUntrusted, "email"},
		{"issuer of another org", peerIssued, nil, ErrUntrusted, "email"},
		{"expired", expiredTok, nil, ErrExpired, "email"},
		{"not yet valid", futureTok, nil, ErrNotYetValid, "email"},
		{"wrong grantee", good, func(r *Request) { r.Grantee.Agent = "mailer" }, ErrGrantee, "email"},
		{"wrong grantee org", good, func(r *Request) { r.Grantee.Org = "initech" }, ErrGrantee, "email"},
		{"wrong purpose", good, func(r *Request) { r.Purpose = "marketing" }, ErrPurpose, "email"},
		{"missing type", good, func(r *Request) { r.Types = []string{"email", "health", "ssn"} }, ErrTypes, "health,ssn"},
		{"revoked", revokedTok, nil, ErrRevoked, "email"},
	}
	for _, c := range cases {
		r := testRequest()
		if c.mod != nil {
			c.mod(&r)
		}
		_, err := v.Verify(ctx, c.tok, r)
		var we *wire.Error
		if !errors.As(err, &we) || we.Code != wire.ErrConsent || !errors.Is(err, c.reason) {
			t.Errorf("%s: got %v, want E_CONSENT %v", c.name, err, c.reason)
			continue
		}
		if we.Suggestion == nil || we.Suggestion.Action != wire.ActionRequestConsent || strings.Join(we.Suggestion.DataTypes, ",") != c.missing {
			t.Errorf("%s: suggestion %+v, want request_consent %s", c.name, we.Suggestion, c.missing)
		}
		if strings.Contains(err.Error(), "jane") || len(c.tok) > 40 && strings.Contains(err.Error(), c.tok[len(Prefix):len(Prefix)+20]) {
			t.Errorf("%s: error echoes the token: %v", c.name, err)
		}
	}
}

type brokenStore struct{}

func (brokenStore) Revoked(context.Context, string) (bool, error) {
	return false, errors.New("disk gone")
}

func TestVerifyFailsClosed(t *testing.T) {
	v, _ := newVerifier(t, brokenStore{})
	good, _ := Issue(testKey(t, 1), testClaims())
	_, err := v.Verify(context.Background(), good, testRequest())
	var we *wire.Error
	if !errors.As(err, &we) || we.Code != wire.ErrStorageUnavailable {
		t.Fatalf("unreadable revocation list: got %v, want E_STORAGE_UNAVAILABLE", err)
	}
	if s := we.Suggestion; s == nil || s.Action != wire.ActionRetryAfter || s.DelayMS <= 0 {
		t.Fatalf("unreadable revocation list: suggestion %+v, want retry_after", we.Suggestion)
	}
}

func TestFileStoreAcrossProcesses(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "sub", "revoked.jsonl")
	now := t0
	clock := func() time.Time { return now }
	a, err := OpenFile(path, &FileOptions{Now: clock})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := OpenFile(path, &FileOptions{Now: clock})
	id := "0f5bb9a4-63a8-4a54-9d1e-5ad3d0c4bb6a"
	if err := b.Revoke(ctx, id, t0.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600", fi.Mode().Perm())
	}
	// a sees it once its refresh interval has passed.
	now = now.Add(2 * time.Second)
	if ok, err := a.Revoked(ctx, id); !ok || err != nil {
		t.Fatalf("other store's revocation not seen: %v %v", ok, err)
	}
	// A fresh open sees it, a torn last line is ignored.
	f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"id":"7c1`)
	f.Close()
	c, err := OpenFile(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if ok, _ := c.Revoked(ctx, id); !ok {
		t.Fatal("reopened store lost the revocation")
	}
	// Corruption in the middle is an error, not an empty list.
	os.WriteFile(path, []byte("garbage\n{\"id\":\""+id+"\",\"expires\":1}\n"), 0o600)
	if _, err := OpenFile(path, nil); err == nil {
		t.Fatal("corrupt list opened")
	}
}

func TestFileStoreConcurrentAndCompact(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "revoked.jsonl")
	now := t0
	s, _ := OpenFile(path, &FileOptions{Refresh: -1, Now: func() time.Time { return now }})
	other, _ := OpenFile(path, &FileOptions{Refresh: -1, Now: func() time.Time { return now }})
	var ids []string
	var wg sync.WaitGroup
	var mu sync.Mutex
	for i := range 40 {
		id, _ := NewID(bytes.NewReader(bytes.Repeat([]byte{byte(i + 1)}, 16)))
		ids = append(ids, id)
		wg.Add(1)
		go func(st *FileStore, id string, i int) {
			defer wg.Done()
			exp := t0.Add(time.Hour)
			if i%2 == 0 {
				exp = t0.Add(time.Minute)
			}
			if err := st.Revoke(ctx, id, exp); err != nil {
				mu.Lock()
				t.Error(err)
				mu.Unlock()
			}
			if i%5 == 0 {
				if err := st.Compact(ctx); err != nil {
					mu.Lock()
					t.Error(err)
					mu.Unlock()
				}
			}
		}([]*FileStore{s, other}[i%2], id, i)
	}
	wg.Wait()
	for _, id := range ids {
		if ok, err := s.Revoked(ctx, id); !ok || err != nil {
			t.Fatalf("lost revocation %s: %v", id, err)
		}
	}
	now = t0.Add(2 * time.Minute)
	if err := s.Compact(ctx); err != nil {
		t.Fatal(err)
	}
	for i, id := range ids {
		ok, _ := other.Revoked(ctx, id)
		if ok != (i%2 == 1) {
			t.Errorf("after compaction %s revoked=%v", id, ok)
		}
	}
}
