package identity

import (
	"strings"
	"testing"
	"time"

	"github.com/moltgate/moltgate/wire"
)

// A certificate's digest is the same as issued and as received, differs
// between two certificates for one key, and a revoked one is refused by
// every check of it, while the digest of a certificate is computed only
// when its organisation revoked some.
func TestRevokedCertificates(t *testing.T) {
	org := testOrg(t, "acme", 1)
	alice, _ := Generate(seeded(2), wire.Ref{Agent: "alice", Org: "acme"})
	cert, _ := org.IssueIdentity(alice.Public(), t0, t0.Add(24*time.Hour))
	other, _ := org.IssueIdentity(alice.Public(), t0.Add(time.Second), t0.Add(24*time.Hour))
	cc, _ := org.IssueCapability(alice.Ref, alice.Signing.Public(), "tool.invoke", t0, t0.Add(time.Hour))
	parsed, _ := ParseCert(cert.Value())
	parsedCC, _ := ParseCapabilityCert(cc.Value())
	if cert.Digest() != parsed.Digest() || cc.Digest() != parsedCC.Digest() {
		t.Fatal("the digest changed on the way")
	}
	if cert.Digest() == other.Digest() || !strings.HasPrefix(cert.Digest(), "sha256:") || len(cert.Digest()) != len("sha256:")+64 {
		t.Fatalf("digests %s and %s", cert.Digest(), other.Digest())
	}
	trust := NewTrustStore()
	trust.Add("acme", org.Signing.Public())
	revoked := map[string]bool{"identity_cert " + cert.Digest(): true, "capability_cert " + cc.Digest(): true}
	asked := 0
	trust.SetRevoked(func(o, kind string, digest func() string) (int64, bool) {
		if o == "globex" {
			return 0, false // revoked nothing: the digest is not computed
		}
		asked++
		return t0.UnixMilli(), revoked[kind+" "+digest()]
	})
	now := t0.Add(time.Minute)
	wantCode(t, trust.VerifyIdentity(parsed, now), wire.ErrAuthFailed)
	if err := trust.VerifyIdentity(other, now); err != nil {
		t.Fatalf("another certificate for the same key: %v", err)
	}
	wantCode(t, trust.VerifyCapability(parsedCC, alice.Ref, alice.Signing.Public(), "tool.invoke", now), wire.ErrCapability)
	if asked != 3 {
		t.Fatalf("asked %d times", asked)
	}
	trust.SetRevoked(nil)
	if err := trust.VerifyIdentity(parsed, now); err != nil {
		t.Fatal(err)
	}
}

// RemoveKey ends the trust in one key of an organisation, not the others.
func TestTrustStoreRemoveKey(t *testing.T) {
	old, nw := testOrg(t, "acme", 1), testOrg(t, "acme", 3)
	alice, _ := Generate(seeded(2), wire.Ref{Agent: "alice", Org: "acme"})
	byOld, _ := old.IssueIdentity(alice.Public(), t0, t0.Add(time.Hour))
	byNew, _ := nw.IssueIdentity(alice.Public(), t0, t0.Add(time.Hour))
	trust := NewTrustStore()
	trust.Add("acme", old.Signing.Public())
	trust.Add("acme", nw.Signing.Public())
	now := t0.Add(time.Minute)
	for _, c := range []*Cert{byOld, byNew} {
		if err := trust.VerifyIdentity(c, now); err != nil {
			t.Fatal(err)
		}
	}
	trust.RemoveKey("acme", old.Signing.Public())
	wantCode(t, trust.VerifyIdentity(byOld, now), wire.ErrAuthFailed)
	if err := trust.VerifyIdentity(byNew, now); err != nil || !trust.Known("acme") {
		t.Fatalf("the key kept: %v", err)
	}
	trust.RemoveKey("acme", nw.Signing.Public())
	if trust.Known("acme") {
		t.Fatal("an org with no key left is still known")
	}
}
