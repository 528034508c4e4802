package pipeline

import (
	"crypto/rand"
	"testing"
	"time"

	"github.com/moltgate/moltgate/identity"
	"github.com/moltgate/moltgate/keys"
	"github.com/moltgate/moltgate/wire"
)

func TestCapabilityCache(t *testing.T) {
	orgKey, _ := keys.GenerateEd25519(rand.Reader)
	org := &identity.Org{Name: "acme", Signing: orgKey}
	alice, _ := keys.GenerateEd25519(rand.Reader)
	bob, _ := keys.GenerateEd25519(rand.Reader)
	now := time.Unix(1800000000, 0)
	ref := wire.Ref{Agent: "alice", Org: "acme"}
	cert, err := org.IssueCapability(ref, alice.Public(), "tool.invoke", now.Add(-time.Minute), now.Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	trust := identity.NewTrustStore()
	trust.Add("acme", orgKey.Public())
	from := wire.Sender{Agent: "alice", Org: "acme", Key: alice.Public()}
	c := newCapabilityCache(16)
	check := func(v wire.Value, from wire.Sender, capability string, at time.Time) error {
		t.Helper()
		return c.check(trust, v, from, capability, at)
	}
	for i := range 2 { // verified, then remembered
		if err := check(cert.Value(), from, "tool.invoke", now); err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
	}
	if c.c.Len() != 1 {
		t.Fatalf("cache holds %d entries", c.c.Len())
	}
	// What the cached verification depended on is checked again.
	if check(cert.Value(), wire.Sender{Agent: "alice", Org: "acme", Key: bob.Public()}, "tool.invoke", now) == nil {
		t.Fatal("another key used alice's certificate")
	}
	if check(cert.Value(), from, "code.execute", now) == nil {
		t.Fatal("certificate used for another capability")
	}
	if check(cert.Value(), from, "tool.invoke", now.Add(2*time.Hour)) == nil {
		t.Fatal("expired certificate accepted from the cache")
	}
	// The same signature on altered content is another certificate.
	longer := cert.Value().With("attestation", cert.Value().Get("attestation").With("expires", wire.IntValue(now.Add(48*time.Hour).UnixMilli())))
	if check(longer, from, "tool.invoke", now) == nil {
		t.Fatal("a certificate with a forged expiry was accepted")
	}
	// An issuer no longer trusted is not trusted from the cache either.
	trust.Remove("acme")
	if check(cert.Value(), from, "tool.invoke", now) == nil {
		t.Fatal("certificate of an org no longer trusted accepted from the cache")
	}
}
