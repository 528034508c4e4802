package identity

import (
	"fmt"
	"time"

	"github.com/moltgate/moltgate/keys"
	"github.com/moltgate/moltgate/wire"
)

// Certificate types.
const (
	IdentityCertType   = "moltgate.identity-cert.v1"
	AttestationOrgType = "org-signed"
)

// Cert is an org-signed identity certificate:
//
//	{"type":"moltgate.identity-cert.v1","agent":"alice","org":"acme",
//	 "key":"ed25519:…","enc_key":"x25519:…","issued_at":1700000000000,
//	 "expires":1731536000000,"issuer":"ed25519:…","sig":"ed25519:…"}
//
// sig is the issuer's Ed25519 signature over the RFC 8785 form of the object
// without "sig". Times are unix milliseconds.
type Cert struct {
	Type     string             `json:"type" validate:"required"`
	Agent    string             `json:"agent" validate:"required"`
	Org      string             `json:"org" validate:"required"`
	Key      keys.Ed25519Public `json:"key" validate:"required"`
	EncKey   keys.X25519Public  `json:"enc_key" validate:"required"`
	IssuedAt int64              `json:"issued_at" validate:"required"`
	Expires  int64              `json:"expires" validate:"required"`
	Issuer   keys.Ed25519Public `json:"issuer" validate:"required"`
	Sig      keys.Signature     `json:"sig" validate:"required"`

	raw wire.Value // as received, so that the signature covers unknown members
}

// Ref returns the certified agent's name.
func (c *Cert) Ref() wire.Ref { return wire.Ref{Agent: c.Agent, Org: c.Org} }

// Public returns the certified public identity.
func (c *Cert) Public() Public { return Public{c.Agent, c.Org, c.Key, c.EncKey} }

// CapabilityCert is an org-signed capability certificate, in the shape of
// the protocol's capability attestation:
//
//	{"capability":"code.execute","agent":"alice","org":"acme","key":"ed25519:…",
//	 "attestation":{"type":"org-signed","org":"acme","issuer":"ed25519:…",
//	                "issued_at":…,"expires":…,"signature":"ed25519:…"}}
//
// The signature covers the RFC 8785 form of the whole object without
// attestation.signature.
type CapabilityCert struct {
	Capability  string             `json:"capability" validate:"required"`
	Agent       string             `json:"agent" validate:"required"`
	Org         string             `json:"org" validate:"required"`
	Key         keys.Ed25519Public `json:"key" validate:"required"`
	Attestation Attestation        `json:"attestation" validate:"required"`

	raw wire.Value
}

// Attestation is the org's signature on a capability.
type Attestation struct {
	Type      string             `json:"type" validate:"required"`
	Org       string             `json:"org" validate:"required"`
	Issuer    keys.Ed25519Public `json:"issuer" validate:"required"`
	IssuedAt  int64              `json:"issued_at" validate:"required"`
	Expires   int64              `json:"expires" validate:"required"`
	Signature keys.Signature     `json:"signature" validate:"required"`
}

// Org is an organisation's signing identity: the key its gateway uses to
// certify its agents.
type Org struct {
	Name    string
	Signing keys.Ed25519Private
}

// IssueIdentity certifies pub from issuedAt until expires.
func (o *Org) IssueIdentity(pub Public, issuedAt, expires time.Time) (*Cert, error) {
	if pub.Org != o.Name {
		return nil, fmt.Errorf("issue identity cert: agent of %q, not of %q", pub.Org, o.Name)
	}
	c := &Cert{
		Type: IdentityCertType, Agent: pub.Agent, Org: pub.Org, Key: pub.Key, EncKey: pub.EncKey,
		IssuedAt: issuedAt.UnixMilli(), Expires: expires.UnixMilli(), Issuer: o.Signing.Public(),
	}
	if err := c.check(); err != nil {
		return nil, fmt.Errorf("issue identity cert: %w", err)
	}
	msg, err := c.signingBytes()
	if err != nil {
		return nil, fmt.Errorf("issue identity cert: %w", err)
	}
	c.Sig = o.Signing.Sign(msg)
	// A certificate goes out in every message its agent sends: its JSON is
	// made once here, not by reflection on each use.
	if c.raw, err = wire.ValueOf(c); err != nil {
		return nil, fmt.Errorf("issue identity cert: %w", err)
	}
	return c, nil
}

// IssueCapability certifies that agent (with key) holds capability.
func (o *Org) IssueCapability(agent wire.Ref, key keys.Ed25519Public, capability string, issuedAt, expires time.Time) (*CapabilityCert, error) {
	if agent.Org != o.Name {
		return nil, fmt.Errorf("issue capability cert: agent of %q, not of %q", agent.Org, o.Name)
	}
	c := &CapabilityCert{
		Capability: capability, Agent: agent.Agent, Org: agent.Org, Key: key,
		Attestation: Attestation{
			Type: AttestationOrgType, Org: o.Name, Issuer: o.Signing.Public(),
			IssuedAt: issuedAt.UnixMilli(), Expires: expires.UnixMilli(),
		},
	}
	if err := c.check(); err != nil {
		return nil, fmt.Errorf("issue capability cert: %w", err)
	}
	msg, err := c.signingBytes()
	if err != nil {
		return nil, fmt.Errorf("issue capability cert: %w", err)
	}
	c.Attestation.Signature = o.Signing.Sign(msg)
	if c.raw, err = wire.ValueOf(c); err != nil {
		return nil, fmt.Errorf("issue capability cert: %w", err)
	}
	return c, nil
}

func signingBytes(x any, skip string) ([]byte, error) {
	v, err := wire.ValueOf(x)
	if err != nil {
		return nil, err
	}
	return wire.AppendCanonical(nil, v.Without(skip)), nil
}

func (c *Cert) signingBytes() ([]byte, error) {
	if !c.raw.IsAbsent() {
		return wire.AppendCanonical(nil, c.raw.Without("sig")), nil
	}
	return signingBytes(c, "sig")
}

func (c *CapabilityCert) signingBytes() ([]byte, error) {
	v := c.raw
	if v.IsAbsent() {
		var err error
		if v, err = wire.ValueOf(c); err != nil {
			return nil, err
		}
	}
	att := v.Get("attestation").Without("signature")
	return wire.AppendCanonical(nil, v.With("attestation", att)), nil
}

func (c *Cert) check() error {
	switch {
	case c.Type != IdentityCertType:
		return fmt.Errorf("type is not %s", IdentityCertType)
	case !wire.ValidName(c.Agent) || !wire.ValidName(c.Org):
		return fmt.Errorf("invalid agent or org name")
	case c.Key.IsZero() || c.EncKey.IsZero() || c.Issuer.IsZero():
		return fmt.Errorf("missing key")
	case c.IssuedAt < wire.MinTimestamp || c.Expires >= wire.MaxTimestamp || c.Expires <= c.IssuedAt:
		return fmt.Errorf("invalid validity period")
	}
	return nil
}

func (c *CapabilityCert) check() error {
	a := &c.Attestation
	switch {
	case !wire.ValidCapability(c.Capability):
		return fmt.Errorf("invalid capability name")
	case !wire.ValidName(c.Agent) || !wire.ValidName(c.Org) || a.Org != c.Org:
		return fmt.Errorf("invalid agent or org name")
	case a.Type != AttestationOrgType:
		return fmt.Errorf("attestation type is not %s", AttestationOrgType)
	case c.Key.IsZero() || a.Issuer.IsZero():
		return fmt.Errorf("missing key")
	case a.IssuedAt < wire.MinTimestamp || a.Expires >= wire.MaxTimestamp || a.Expires <= a.IssuedAt:
		return fmt.Errorf("invalid validity period")
	}
	return nil
}

// Value returns the certificate as JSON, for embedding in messages: as it
// was issued or received. Changing the fields afterwards does not change it.
func (c *Cert) Value() wire.Value {
	if !c.raw.IsAbsent() {
		return c.raw
	}
	v, err := wire.ValueOf(c)
	if err != nil {
		panic(err) // every field of a Cert encodes
	}
	return v
}

// Value returns the certificate as JSON: as it was issued or received.
// Changing the fields afterwards does not change it.
func (c *CapabilityCert) Value() wire.Value {
	if !c.raw.IsAbsent() {
		return c.raw
	}
	v, err := wire.ValueOf(c)
	if err != nil {
		panic(err)
	}
	return v
}

// ParseCert reads an identity certificate from JSON. It checks the shape,
// not the signature: use TrustStore.VerifyIdentity for that.
func ParseCert(v wire.Value) (*Cert, error) {
	c := new(Cert)
	if err := wire.Bind(v, c, "identity_cert"); err != nil {
		return nil, err
	}
	c.raw = v
	if err := c.check(); err != nil {
		return nil, wire.Errorf(wire.ErrInvalidParam, "identity_cert", "%v", err)
	}
	return c, nil
}

// ParseCapabilityCert reads a capability certificate from JSON.
func ParseCapabilityCert(v wire.Value) (*CapabilityCert, error) {
	c := new(CapabilityCert)
	if err := wire.Bind(v, c, "capability_cert"); err != nil {
		return nil, err
	}
	c.raw = v
	if err := c.check(); err != nil {
		return nil, wire.Errorf(wire.ErrInvalidParam, "capability_cert", "%v", err)
	}
	return c, nil
}
