package directory

import (
	"slices"
	"time"

	"github.com/moltgate/moltgate/keys"
	"github.com/moltgate/moltgate/wire"
)

// AttestationType names the form of a registry attestation.
const AttestationType = "moltgate.registry-attestation.v1"

// Attested is the part of an entry a registry vouches for: who the agent
// is, its keys, where it is reached and what it offers, and for how long.
// Everything else a record carries (name, metadata, scores, liveness) is
// information, not a promise.
type Attested struct {
	AgentID       string   `json:"agent_id"`
	Org           string   `json:"org"`
	PublicKey     string   `json:"public_key"`
	EncryptionKey string   `json:"encryption_key,omitempty"`
	Endpoint      string   `json:"endpoint"`
	Capabilities  []string `json:"capabilities"`
	RegisteredAt  int64    `json:"registered_at"` // unix milliseconds
	ExpiresAt     int64    `json:"expires_at"`    // unix milliseconds
}

// AttestedOf returns the attested part of e.
func AttestedOf(e *Entry) Attested {
	caps := e.Capabilities
	if caps == nil {
		caps = []string{}
	}
	return Attested{
		AgentID: e.AgentID, Org: e.Org, PublicKey: e.PublicKey, EncryptionKey: e.EncryptionKey,
		Endpoint: e.Endpoint.URL, Capabilities: caps,
		RegisteredAt: e.RegisteredAt.UnixMilli(), ExpiresAt: e.ExpiresAt.UnixMilli(),
	}
}

// SigningBytes returns the bytes a registry's attestation signature covers:
// the RFC 8785 (JCS) form of the object
//
//	{"agent_id":…,"capabilities":[…],"encryption_key":…,"endpoint":…,"expires_at":…,
//	 "org":…,"public_key":…,"registered_at":…,"registry":…,
//	 "type":"moltgate.registry-attestation.v1"}
//
// with members in that (sorted) order, no whitespace, times as integers of
// unix milliseconds, capabilities in the entry's order, and encryption_key
// left out when the entry has none. docs/protocol.md has an example byte
// for byte, and testdata/attestation.json a known answer.
func (a *Attested) SigningBytes(registry string) []byte {
	caps := make([]wire.Value, len(a.Capabilities))
	for i, c := range a.Capabilities {
		caps[i] = wire.StringValue(c)
	}
	m := []wire.Member{
		{Key: "type", Value: wire.StringValue(AttestationType)},
		{Key: "registry", Value: wire.StringValue(registry)},
		{Key: "agent_id", Value: wire.StringValue(a.AgentID)},
		{Key: "org", Value: wire.StringValue(a.Org)},
		{Key: "public_key", Value: wire.StringValue(a.PublicKey)},
		{Key: "endpoint", Value: wire.StringValue(a.Endpoint)},
		{Key: "capabilities", Value: wire.ArrayValue(caps...)},
		{Key: "registered_at", Value: wire.IntValue(a.RegisteredAt)},
		{Key: "expires_at", Value: wire.IntValue(a.ExpiresAt)},
	}
	if a.EncryptionKey != "" {
		m = append(m, wire.Member{Key: "encryption_key", Value: wire.StringValue(a.EncryptionKey)})
	}
	return wire.AppendCanonical(nil, wire.ObjectValue(m...))
}

// Attestation is a registry's signature over an entry's attested form. It
// travels in every record a registry returns, as
//
//	"attestation":{"type":"moltgate.registry-attestation.v1","registry":"acme",
//	               "key":"ed25519:…","signature":"ed25519:…"}
//
// key is informative: a client checks the signature with the key it holds
// for the registry's organisation, never with the key the record names.
type Attestation struct {
	Type      string             `json:"type"`
	Registry  string             `json:"registry"`
	Key       keys.Ed25519Public `json:"key"`
	Signature keys.Signature     `json:"signature"`
}

// Attest signs a's form as registry with key.
func Attest(a *Attested, registry string, key keys.Ed25519Private) Attestation {
	return Attestation{Type: AttestationType, Registry: registry, Key: key.Public(), Signature: key.Sign(a.SigningBytes(registry))}
}

// VerifyAttestation checks a record a registry returned (one discovery
// result, a lookup, a register receipt or a sync item): that it carries an
// attestation of registry's, signed with key over the record's own
// agent_id, org, keys, endpoint, capabilities, registered_at and
// expires_at, and that the registration has not expired at now. It returns
// the attested fields. Failures are E_SIGNATURE (forged, altered, or
// attested by another registry) and E_REGISTRATION_EXPIRED.
func VerifyAttestation(record wire.Value, registry string, key keys.Ed25519Public, now time.Time) (Attested, error) {
	a, err := attestedFrom(record)
	if err != nil {
		return Attested{}, err
	}
	if err := verifyAttested(record, &a, registry, key); err != nil {
		return Attested{}, err
	}
	if !time.UnixMilli(a.ExpiresAt).After(now) {
		return Attested{}, wire.Errorf(wire.ErrRegistrationExpired, "expires_at", "the attested registration has expired")
	}
	return a, nil
}

// attestedFrom reads the attested fields of a record, strictly: a field of
// the wrong type is a forgery as much as a wrong value.
func attestedFrom(r wire.Value) (Attested, error) {
	var a Attested
	bad := func(f string) (Attested, error) {
		return Attested{}, wire.Errorf(wire.ErrSignature, f, "missing or malformed attested field")
	}
	if r.Kind() != wire.Object {
		return bad("")
	}
	str := func(f string, dst *string, optional bool) bool {
		v := r.Get(f)
		if v.IsAbsent() && optional {
			return true
		}
		s, ok := v.Str()
		*dst = s
		return ok
	}
	num := func(f string, dst *int64) bool {
		n, ok := r.Get(f).Int()
		*dst = n
		return ok
	}
	switch {
	case !str("agent_id", &a.AgentID, false):
		return bad("agent_id")
	case !str("org", &a.Org, false):
		return bad("org")
	case !str("public_key", &a.PublicKey, false):
		return bad("public_key")
	case !str("encryption_key", &a.EncryptionKey, true):
		return bad("encryption_key")
	case !str("endpoint", &a.Endpoint, false):
		return bad("endpoint")
	case !num("registered_at", &a.RegisteredAt):
		return bad("registered_at")
	case !num("expires_at", &a.ExpiresAt):
		return bad("expires_at")
	}
	caps := r.Get("capabilities")
	if caps.Kind() != wire.Array {
		return bad("capabilities")
	}
	a.Capabilities = make([]string, 0, caps.Len())
	for i := 0; i < caps.Len(); i++ {
		c, ok := caps.Index(i).Str()
		if !ok {
			return bad(wire.IndexPath("capabilities", i))
		}
		a.Capabilities = append(a.Capabilities, c)
	}
	return a, nil
}

// sameBinding reports whether a and b attest the same agent, keys, endpoint
// and capabilities (times aside).
func (a *Attested) sameBinding(b *Attested) bool {
	return a.AgentID == b.AgentID && a.Org == b.Org && a.PublicKey == b.PublicKey &&
		a.EncryptionKey == b.EncryptionKey && a.Endpoint == b.Endpoint && slices.Equal(a.Capabilities, b.Capabilities)
}
