package identity

import (
	"crypto/sha256"
	"encoding/hex"

	"github.com/moltgate/moltgate/wire"
)

// Digest names an identity certificate in a revocation list: "sha256:"
// and the lower-case hex SHA-256 of its RFC 8785 form, signature and all,
// as it was issued or received.
func (c *Cert) Digest() string { return digestOf(c.Value()) }

// Digest names a capability certificate the same way.
func (c *CapabilityCert) Digest() string { return digestOf(c.Value()) }

func digestOf(v wire.Value) string {
	sum := sha256.Sum256(wire.AppendCanonical(nil, v))
	return "sha256:" + hex.EncodeToString(sum[:])
}

// Revoked says whether org revoked the certificate of kind
// ("identity_cert" or "capability_cert") whose digest is digest(), and
// since when (unix milliseconds). digest is called only when org has
// revoked some certificate: the check costs nothing otherwise.
type Revoked func(org, kind string, digest func() string) (since int64, revoked bool)

// SetRevoked makes VerifyIdentity and VerifyCapability refuse a
// certificate that r says its organisation revoked. nil: none is.
func (t *TrustStore) SetRevoked(r Revoked) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.revoked = r
}

func (t *TrustStore) revokedHook() Revoked {
	t.mu.RLock()
	defer t.mu.RUnlock()
	return t.revoked
}
