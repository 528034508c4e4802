package identity

import (
	"sync"
	"time"

	"github.com/moltgate/moltgate/keys"
	"github.com/moltgate/moltgate/wire"
)

// TrustStore is the set of organisations whose keys this gateway trusts, and
// so whose certificates it accepts. It is safe for concurrent use.
type TrustStore struct {
	mu      sync.RWMutex
	orgs    map[string][]keys.Ed25519Public
	revoked Revoked // nil: no certificate is revoked
}

// NewTrustStore makes an empty store.
func NewTrustStore() *TrustStore { return &TrustStore{orgs: map[string][]keys.Ed25519Public{}} }

// Add trusts key as a signing key of org. An org may have several keys, so
// that its key can be rotated without a gap.
func (t *TrustStore) Add(org string, key keys.Ed25519Public) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, k := range t.orgs[org] {
		if k.Equal(key) {
			return
		}
	}
	t.orgs[org] = append(t.orgs[org], key)
}

// Remove stops trusting org altogether.
func (t *TrustStore) Remove(org string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.orgs, org)
}

// RemoveKey stops trusting key for org, keeping its other keys: the end
// of a handover's overlap.
func (t *TrustStore) RemoveKey(org string, key keys.Ed25519Public) {
	t.mu.Lock()
	defer t.mu.Unlock()
	ks := t.orgs[org]
	for i, k := range ks {
		if k.Equal(key) {
			t.orgs[org] = append(ks[:i:i], ks[i+1:]...)
			break
		}
	}
	if len(t.orgs[org]) == 0 {
		delete(t.orgs, org)
	}
}

// Trusts reports whether key is a trusted key of org.
func (t *TrustStore) Trusts(org string, key keys.Ed25519Public) bool {
	t.mu.RLock()
	defer t.mu.RUnlock()
	for _, k := range t.orgs[org] {
		if k.Equal(key) {
			return true
		}
	}
	return false
}

// Known reports whether org has any trusted key.
func (t *TrustStore) Known(org string) bool {
	t.mu.RLock()
	defer t.mu.RUnlock()
	return len(t.orgs[org]) > 0
}

// VerifyIdentity checks that c is signed by a trusted key of c's org and is
// valid at now. Failures are E_AUTH_FAILED.
func (t *TrustStore) VerifyIdentity(c *Cert, now time.Time) error {
	if err := c.check(); err != nil {
		return wire.Errorf(wire.ErrAuthFailed, "identity_cert", "%v", err)
	}
	if !t.Trusts(c.Org, c.Issuer) {
		return wire.Errorf(wire.ErrAuthFailed, "identity_cert.issuer", "not a trusted key of org %s", c.Org)
	}
	if err := validAt(c.IssuedAt, c.Expires, now, "identity_cert"); err != nil {
		return err
	}
	msg, err := c.signingBytes()
	if err != nil || !c.Issuer.Verify(msg, c.Sig) {
		return wire.Errorf(wire.ErrAuthFailed, "identity_cert.sig", "signature does not verify")
	}
	if r := t.revokedHook(); r != nil {
		if since, ok := r(c.Org, "identity_cert", c.Digest); ok {
			return wire.Errorf(wire.ErrAuthFailed, "identity_cert", "%s revoked this certificate (%s, since %s)", c.Org, c.Digest(), time.UnixMilli(since).UTC().Format(time.RFC3339))
		}
	}
	return nil
}

// VerifyCapability checks that c grants capability to agent with key, is
// signed by a trusted key of the agent's org and is valid at now. Failures
// are E_CAPABILITY.
func (t *TrustStore) VerifyCapability(c *CapabilityCert, agent wire.Ref, key keys.Ed25519Public, capability string, now time.Time) error {
	if err := c.check(); err != nil {
		return wire.Errorf(wire.ErrCapability, "capability_cert", "%v", err)
	}
	if c.Agent != agent.Agent || c.Org != agent.Org || !c.Key.Equal(key) {
		return wire.Errorf(wire.ErrCapability, "capability_cert", "certificate is for another agent")
	}
	if c.Capability != capability {
		return wire.Errorf(wire.ErrCapability, "capability_cert.capability", "certificate is for another capability")
	}
	a := &c.Attestation
	if !t.Trusts(c.Org, a.Issuer) {
		return wire.Errorf(wire.ErrCapability, "capability_cert.attestation.issuer", "not a trusted key of org %s", c.Org)
	}
	if err := validAt(a.IssuedAt, a.Expires, now, "capability_cert.attestation"); err != nil {
		return &wire.Error{Code: wire.ErrCapability, Field: err.Field, Message: err.Message}
	}
	msg, err := c.signingBytes()
	if err != nil || !a.Issuer.Verify(msg, a.Signature) {
		return wire.Errorf(wire.ErrCapability, "capability_cert.attestation.signature", "signature does not verify")
	}
	if r := t.revokedHook(); r != nil {
		if since, ok := r(c.Org, "capability_cert", c.Digest); ok {
			return wire.Errorf(wire.ErrCapability, "capability_cert", "%s revoked this certificate (%s, since %s)", c.Org, c.Digest(), time.UnixMilli(since).UTC().Format(time.RFC3339))
		}
	}
	return nil
}

func validAt(issued, expires int64, now time.Time, field string) *wire.Error {
	ms := now.UnixMilli()
	if ms < issued {
		return wire.Errorf(wire.ErrAuthFailed, field+".issued_at", "certificate is not valid yet")
	}
	if ms >= expires {
		return wire.Errorf(wire.ErrAuthFailed, field+".expires", "certificate has expired")
	}
	return nil
}
