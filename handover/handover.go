// Package handover is the signed statement by which an organisation hands
// its trust from one key to the next: a new org key, or a new TLS
// certificate pin.
//
// A peer pins an organisation's org key. When the organisation rotates it,
// the old key signs a statement naming the new key, when it takes effect
// and how long the old one overlaps it; the new key signs it too, proving
// that whoever announces it holds it. A peer holding the old key accepts
// the new one because the old one vouched for it, with no operator acting
// on its side. During the overlap both keys verify; after it, only the new.
// A TLS rotation is the same statement of kind tls_pin, signed by the
// current org key: the new pin is announced before the listener switches.
//
// The JSON form (members in RFC 8785 order; each signature covers that form
// without "sig" and "new_sig", after its own domain string):
//
//	{"effective":1800000000000,"issued_at":1800000000000,"kind":"org_key",
//	 "new":"ed25519:…","new_enc_key":"x25519:…","new_sig":"ed25519:…",
//	 "old":"ed25519:…","org":"acme","overlap_ms":86400000,"sig":"ed25519:…",
//	 "type":"moltgate.handover.v1"}
package handover

import (
	"errors"
	"fmt"
	"time"

	"github.com/moltgate/moltgate/internal/tlspin"
	"github.com/moltgate/moltgate/keys"
	"github.com/moltgate/moltgate/wire"
)

// Type marks a handover statement.
const Type = "moltgate.handover.v1"

// Kinds of handover.
const (
	// KindOrgKey hands over from one org key to the next.
	KindOrgKey = "org_key"
	// KindTLSPin hands over from one TLS certificate pin to the next.
	KindTLSPin = "tls_pin"
)

const (
	oldDomain = "moltgate handover v1 old\n"
	newDomain = "moltgate handover v1 new\n"
)

// MaxOverlap bounds the overlap a statement may ask for: a stolen old key
// must not stay good for long.
const MaxOverlap = 30 * 24 * time.Hour

// Statement hands trust from Old to New.
type Statement struct {
	Type string `json:"type"`
	Org  string `json:"org"`
	Kind string `json:"kind"`
	// Old and New are "ed25519:…" org keys, or "sha256:…" TLS pins (the base64 of
	// the SHA-256 of the certificate's SubjectPublicKeyInfo, as peer
	// documents spell them).
	Old string `json:"old"`
	New string `json:"new"`
	// NewEncKey is the encryption key that goes with a new org key.
	NewEncKey string `json:"new_enc_key,omitempty"`
	// Effective is when New takes effect, unix milliseconds.
	Effective int64 `json:"effective"`
	// OverlapMS is how long after Effective Old still verifies.
	OverlapMS int64 `json:"overlap_ms"`
	IssuedAt  int64 `json:"issued_at"`
	// Sig is by the old org key (org_key) or the current org key
	// (tls_pin). NewSig, for org_key, is by the new key.
	Sig    keys.Signature `json:"sig"`
	NewSig keys.Signature `json:"new_sig"`
}

// Error is a statement that is malformed or whose signatures do not hold.
type Error struct {
	// Field is the member at fault.
	Field string
	// Reason says what is wrong, in words.
	Reason string
}

func (e *Error) Error() string { return "handover: " + e.Field + ": " + e.Reason }

func bad(field, format string, a ...any) *Error {
	return &Error{Field: field, Reason: fmt.Sprintf(format, a...)}
}

// OrgKey makes the statement handing org's trust from oldKey to newKey,
// effective at effective with the given overlap, signed by both.
func OrgKey(org string, oldKey, newKey keys.Ed25519Private, newEnc keys.X25519Public, effective time.Time, overlap time.Duration, now time.Time) (*Statement, error) {
	s := &Statement{Type: Type, Org: org, Kind: KindOrgKey, Old: oldKey.Public().String(), New: newKey.Public().String(),
		NewEncKey: newEnc.String(), Effective: effective.UnixMilli(), OverlapMS: overlap.Milliseconds(), IssuedAt: now.UnixMilli()}
	if err := s.check(); err != nil {
		return nil, err
	}
	msg, err := s.signingBytes()
	if err != nil {
		return nil, err
	}
	s.Sig = oldKey.Sign(append([]byte(oldDomain), msg...))
	s.NewSig = newKey.Sign(append([]byte(newDomain), msg...))
	return s, nil
}

// TLSPin makes the statement announcing org's new TLS pin, signed by the
// current org key.
func TLSPin(org string, orgKey keys.Ed25519Private, oldPin, newPin string, effective time.Time, overlap time.Duration, now time.Time) (*Statement, error) {
	s := &Statement{Type: Type, Org: org, Kind: KindTLSPin, Old: oldPin, New: newPin,
		Effective: effective.UnixMilli(), OverlapMS: overlap.Milliseconds(), IssuedAt: now.UnixMilli()}
	if err := s.check(); err != nil {
		return nil, err
	}
	msg, err := s.signingBytes()
	if err != nil {
		return nil, err
	}
	s.Sig = orgKey.Sign(append([]byte(oldDomain), msg...))
	return s, nil
}

func (s *Statement) check() error {
	switch {
	case s.Type != Type:
		return bad("type", "is %q; want %s", s.Type, Type)
	case !wire.ValidName(s.Org):
		return bad("org", "is not a valid organisation name")
	case s.Effective <= 0 || s.IssuedAt <= 0:
		return bad("effective", "effective and issued_at must be times")
	case s.OverlapMS < 0 || s.OverlapMS > MaxOverlap.Milliseconds():
		return bad("overlap_ms", "must be between 0 and %v", MaxOverlap)
	case s.Old == s.New:
		return bad("new", "is the same as old")
	}
	switch s.Kind {
	case KindOrgKey:
		for _, f := range []struct{ name, v string }{{"old", s.Old}, {"new", s.New}} {
			if _, err := keys.ParseEd25519Public(f.v); err != nil {
				return bad(f.name, "an org_key handover names ed25519: public keys")
			}
		}
		if _, err := keys.ParseX25519Public(s.NewEncKey); err != nil {
			return bad("new_enc_key", "an org_key handover names the new x25519: encryption key")
		}
	case KindTLSPin:
		for _, f := range []struct{ name, v string }{{"old", s.Old}, {"new", s.New}} {
			if _, err := tlspin.Parse(f.v); err != nil {
				return bad(f.name, "a tls_pin handover names TLS pins as peer documents spell them: %v", err)
			}
		}
		if s.NewEncKey != "" {
			return bad("new_enc_key", "a tls_pin handover changes no key")
		}
	default:
		return bad("kind", "is %q; want org_key or tls_pin", s.Kind)
	}
	return nil
}

func (s *Statement) signingBytes() ([]byte, error) {
	v, err := wire.ValueOf(s)
	if err != nil {
		return nil, fmt.Errorf("handover: %w", err)
	}
	return wire.AppendCanonical(nil, v.Without("sig").Without("new_sig")), nil
}

// Verify checks the statement against the org key the verifier trusts
// for s.Org. For org_key that key must be Old, and New must have
// countersigned; for tls_pin, the trusted key signs.
func (s *Statement) Verify(trusted keys.Ed25519Public) error {
	if err := s.check(); err != nil {
		return err
	}
	msg, err := s.signingBytes()
	if err != nil {
		return err
	}
	if s.Kind == KindOrgKey && s.Old != trusted.String() {
		return bad("old", "is not the org key trusted for %s: a handover is accepted only from the key it replaces", s.Org)
	}
	if !trusted.Verify(append([]byte(oldDomain), msg...), s.Sig) {
		return bad("sig", "does not verify under the org key trusted for %s", s.Org)
	}
	if s.Kind == KindOrgKey {
		nk, _ := keys.ParseEd25519Public(s.New)
		if !nk.Verify(append([]byte(newDomain), msg...), s.NewSig) {
			return bad("new_sig", "the new key did not sign: whoever announced it may not hold it")
		}
	}
	return nil
}

// OldValidAt reports whether Old still verifies at t: before the end of
// the overlap.
func (s *Statement) OldValidAt(t time.Time) bool {
	return t.UnixMilli() < s.Effective+s.OverlapMS
}

// NewValidAt reports whether New verifies at t: from Effective on. A peer
// learns a new key before it takes effect, so that no call fails while
// the statement travels.
func (s *Statement) NewValidAt(t time.Time) bool { return t.UnixMilli() >= s.Effective }

// Marshal returns the statement's RFC 8785 JSON form.
func (s *Statement) Marshal() ([]byte, error) {
	v, err := wire.ValueOf(s)
	if err != nil {
		return nil, fmt.Errorf("handover: %w", err)
	}
	return wire.AppendCanonical(nil, v), nil
}

// Parse reads a statement's JSON form strictly and checks its members, not
// its signatures.
func Parse(b []byte) (*Statement, error) {
	v, err := wire.Parse(b, 4)
	if err != nil {
		return nil, fmt.Errorf("handover: %w", err)
	}
	s := new(Statement)
	if err := wire.Bind(v, s, ""); err != nil {
		var we *wire.Error
		if errors.As(err, &we) {
			return nil, bad(we.Field, "%s", we.Message)
		}
		return nil, fmt.Errorf("handover: %w", err)
	}
	if err := s.check(); err != nil {
		return nil, err
	}
	return s, nil
}
