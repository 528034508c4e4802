package handshake

import (
	"errors"

	"github.com/moltgate/moltgate/identity"
	"github.com/moltgate/moltgate/keys"
	"github.com/moltgate/moltgate/wire"
)

// peerTrust is what a peer's hello proves about its identity.
type peerTrust struct {
	// verified: an identity certificate from an org in the trust store
	// vouches for the peer's name and keys.
	verified bool
	// certExpires is the certificate's expiry (unix ms), 0 without one.
	certExpires int64
}

// assess decides what the peer's hello earns. A peer that claims a trusted
// org must prove it with a valid certificate from that org; any other peer
// may go without one (or with one from an org this side does not know) and
// stays at level 1. A certificate that names someone else, or fails to
// verify, fails the handshake.
func (c *Config) assess(from wire.Sender, p *wire.HelloPayload) (peerTrust, error) {
	if err := c.checkPin(from); err != nil {
		return peerTrust{}, err
	}
	trustsOrg := c.Trust != nil && c.Trust.Known(from.Org)
	if p.IdentityCert.IsAbsent() {
		if trustsOrg {
			return peerTrust{}, authFailed("p.identity_cert", "an agent of a trusted org must present its identity certificate")
		}
		return peerTrust{}, nil
	}
	cert, err := identity.ParseCert(p.IdentityCert)
	if err != nil {
		return peerTrust{}, &wire.Error{Code: wire.ErrAuthFailed, Field: "p.identity_cert", Message: "malformed identity certificate", Err: err}
	}
	if cert.Ref() != from.Ref() || !cert.Key.Equal(from.Key) || (!from.EncKey.IsZero() && !cert.EncKey.Equal(from.EncKey)) {
		return peerTrust{}, authFailed("p.identity_cert", "certificate is for another identity")
	}
	if !trustsOrg {
		return peerTrust{}, nil
	}
	if err := c.Trust.VerifyIdentity(cert, c.now()); err != nil {
		return peerTrust{}, err
	}
	return peerTrust{verified: true, certExpires: cert.Expires}, nil
}

func (c *Config) checkPin(from wire.Sender) error {
	if c.Pins == nil {
		return nil
	}
	err := c.Pins.Check(from.Ref().String(), from.Key)
	if err == nil || errors.Is(err, keys.ErrNotPinned) {
		return nil
	}
	return &wire.Error{Code: wire.ErrAuthFailed, Field: "from.key", Message: "key differs from the key pinned for this peer", Err: err}
}

// level is the trust level a completed handshake gives the session.
func (t peerTrust) level() identity.Level {
	if t.verified {
		return identity.Authenticated
	}
	return identity.Identified
}
