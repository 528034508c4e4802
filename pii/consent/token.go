// Package consent issues, parses, verifies and revokes the consent tokens that let personal
// data cross the gateway.
//
// A token is the text
//
//	consent-token:<claims>.<signature>
//
// where <claims> is the unpadded base64url encoding of the claims as RFC 8785 canonical JSON
//
//	{"data_types":["email","phone"],"expires":1767225600000,"granted_by":"user:jane",
//	 "grantee":"calendar@globex","id":"8a6e…","issued_at":1767222000000,
//	 "issuer":"ed25519:…","purpose":"calendar-sync"}
//
// and <signature> the unpadded base64url encoding of the issuer's Ed25519 signature over the
// ASCII bytes "consent-token:<claims>" (everything before the dot). Times are unix
// milliseconds. data_types are pii_meta types, sorted, without repeats.
//
// A token is valid for a message when its issuer is a trusted key of the sending
// organisation, it is unexpired, it names the message's recipient as grantee and the
// message's purpose, it covers every type of personal data found, and it has not been
// revoked. Any failure is E_CONSENT with the suggestion request_consent and the missing types.
package consent

import (
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/moltgate/moltgate/keys"
	"github.com/moltgate/moltgate/wire"
)

// Prefix starts every token.
const Prefix = "consent-token:"

// MaxLen bounds a token, as wire bounds pii_meta.consent.proof.
const MaxLen = 8192

// dataTypes is the pii_meta vocabulary a consent may name, sorted.
var dataTypes = []string{"address", "dob", "email", "financial", "health", "location", "name", "other", "phone", "ssn"}

// Types returns the pii_meta vocabulary a consent may name, sorted.
func Types() []string { return slices.Clone(dataTypes) }

// Claims is what a consent grants. The JSON names are those of the token.
type Claims struct {
	ID        string             `json:"id"`
	Issuer    keys.Ed25519Public `json:"issuer"`
	GrantedBy string             `json:"granted_by"`
	Grantee   string             `json:"grantee"` // agent@org
	Purpose   string             `json:"purpose"`
	DataTypes []string           `json:"data_types"`
	IssuedAt  int64              `json:"issued_at"`
	Expires   int64              `json:"expires"`
	// Constraints limit what the grantee may do with the data. A token
	// without them (every token issued before they existed) has none.
	Constraints *Constraints `json:"constraints,omitempty"`
}

// Constraints are the security model's limits on a consent.
type Constraints struct {
	// OneTime: the consent is good for one message, across every replica
	// of the gateways that check it.
	OneTime bool `json:"one_time,omitempty"`
	// NoStorage: the receiving agent must not store the data. The gateway
	// cannot see inside the agent, so it passes the flag on with the call
	// and records it in the audit trail.
	NoStorage bool `json:"no_storage,omitempty"`
	// NoForward: the grantee's gateway refuses to pass data received under
	// this consent to a third organisation.
	NoForward bool `json:"no_forward,omitempty"`
}

// Token is a parsed token whose signature has been checked against the key it names.
type Token struct {
	Claims
	Sig keys.Signature
	// Raw is the token's text.
	Raw string
}

// Errors carried (via errors.Is) by the *wire.Error a failed parse or verification returns.
var (
	ErrMalformed   = errors.New("consent token is malformed")
	ErrSignature   = errors.New("consent token signature does not verify")
	ErrUntrusted   = errors.New("consent token issuer is not trusted by the sending organisation")
	ErrExpired     = errors.New("consent token has expired")
	ErrNotYetValid = errors.New("consent token is not valid yet")
	ErrGrantee     = errors.New("consent token is for another grantee")
	ErrPurpose     = errors.New("consent token is for another purpose")
	ErrTypes       = errors.New("consent token does not cover every type of personal data found")
	ErrRevoked     = errors.New("consent token has been revoked")
	ErrUsed        = errors.New("consent token was for one use and has been used")
)

var b64 = base64.RawURLEncoding

// check validates the claims' form.
func (c *Claims) check() error {
	switch {
	case !wire.ValidID(c.ID):
		return fmt.Errorf("id: want a lower-case UUID v4")
	case c.Issuer.IsZero():
		return fmt.Errorf("issuer: missing")
	case c.GrantedBy == "" || len(c.GrantedBy) > 256:
		return fmt.Errorf("granted_by: want 1 to 256 bytes")
	case c.Purpose == "" || len(c.Purpose) > 256:
		return fmt.Errorf("purpose: want 1 to 256 bytes")
	case len(c.DataTypes) == 0 || len(c.DataTypes) > len(dataTypes):
		return fmt.Errorf("data_types: want 1 to %d pii_meta types", len(dataTypes))
	case c.IssuedAt < wire.MinTimestamp || c.IssuedAt >= wire.MaxTimestamp || c.Expires <= c.IssuedAt || c.Expires >= wire.MaxTimestamp:
		return fmt.Errorf("issued_at, expires: want unix milliseconds, expires after issued_at")
	}
	if _, err := wire.ParseRef(c.Grantee); err != nil {
		return fmt.Errorf("grantee: want agent@org")
	}
	if c.Constraints != nil && *c.Constraints == (Constraints{}) {
		// One text per token: no constraints is no member at all.
		return fmt.Errorf("constraints: empty: omit the member")
	}
	for i, t := range c.DataTypes {
		if !slices.Contains(dataTypes, t) {
			return fmt.Errorf("data_types[%d]: not a pii_meta type", i)
		}
		if i > 0 && c.DataTypes[i-1] >= t {
			return fmt.Errorf("data_types: want sorted and without repeats")
		}
	}
	return nil
}

// Covers reports whether the claims name every one of types.
func (c *Claims) Covers(types []string) bool { return len(c.Missing(types)) == 0 }

// Missing returns the types the claims do not name, in the order given.
func (c *Claims) Missing(types []string) []string {
	var miss []string
	for _, t := range types {
		if !slices.Contains(c.DataTypes, t) && !slices.Contains(miss, t) {
			miss = append(miss, t)
		}
	}
	return miss
}

func (c *Claims) canonical() ([]byte, error) {
	v, err := wire.ValueOf(c)
	if err != nil {
		return nil, err
	}
	return wire.AppendCanonical(nil, v), nil
}

// Issue signs c with key and returns the token. c.Issuer is set from key; c.DataTypes is
// sorted and must hold pii_meta types only.
func Issue(key keys.Ed25519Private, c Claims) (string, error) {
	if key.IsZero() {
		return "", errors.New("issue consent: no key")
	}
	c.Issuer = key.Public()
	c.DataTypes = slices.Clone(c.DataTypes)
	slices.Sort(c.DataTypes)
	c.DataTypes = slices.Compact(c.DataTypes)
	if err := c.check(); err != nil {
		return "", fmt.Errorf("issue consent: %w", err)
	}
	j, err := c.canonical()
	if err != nil {
		return "", fmt.Errorf("issue consent: %w", err)
	}
	input := Prefix + b64.EncodeToString(j)
	sig := key.Sign([]byte(input))
	tok := input + "." + b64.EncodeToString(sig[:])
	if len(tok) > MaxLen {
		return "", fmt.Errorf("issue consent: token longer than %d bytes", MaxLen)
	}
	return tok, nil
}

// NewID returns a random UUID v4 for Claims.ID.
func NewID(rand io.Reader) (string, error) {
	var b [16]byte
	if _, err := io.ReadFull(rand, b[:]); err != nil {
		return "", fmt.Errorf("consent id: %w", err)
	}
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16]), nil
}

func malformed(format string, args ...any) error {
	return &wire.Error{Code: wire.ErrConsent, Field: "pii_meta.consent.proof",
		Message: "malformed consent token: " + fmt.Sprintf(format, args...), Err: ErrMalformed}
}

// Parse reads a token and checks its form and its signature against the issuer key it names.
// It does not say whether that key is trusted, nor anything about time, grantee, purpose or
// revocation: Verifier.Verify does. Parsing is strict: the claims must be canonical JSON, so a
// token has exactly one text.
func Parse(s string) (*Token, error) {
	if len(s) > MaxLen {
		return nil, malformed("longer than %d bytes", MaxLen)
	}
	rest, ok := strings.CutPrefix(s, Prefix)
	if !ok {
		return nil, malformed("does not start with %q", Prefix)
	}
	cpart, spart, ok := strings.Cut(rest, ".")
	if !ok {
		return nil, malformed("no signature")
	}
	j, err := b64.Strict().DecodeString(cpart)
	if err != nil {
		return nil, malformed("claims are not unpadded base64url")
	}
	sb, err := b64.Strict().DecodeString(spart)
	if err != nil || len(sb) != len(keys.Signature{}) {
		return nil, malformed("signature is not 64 bytes of unpadded base64url")
	}
	v, err := wire.Parse(j, 4)
	if err != nil || v.Kind() != wire.Object {
		return nil, malformed("claims are not a JSON object")
	}
	if string(wire.AppendCanonical(nil, v)) != string(j) {
		return nil, malformed("claims are not in canonical (RFC 8785) form")
	}
	t := &Token{Raw: s}
	if err := v.Decode(&t.Claims); err != nil {
		return nil, malformed("claims: %v", err)
	}
	if err := t.Claims.check(); err != nil {
		return nil, malformed("%v", err)
	}
	// Every member must be one the claims know, so that nothing is signed but unchecked.
	if want, _ := t.Claims.canonical(); string(want) != string(j) {
		return nil, malformed("claims hold unknown members")
	}
	copy(t.Sig[:], sb)
	if !t.Issuer.Verify([]byte(Prefix+cpart), t.Sig) {
		return nil, &wire.Error{Code: wire.ErrConsent, Field: "pii_meta.consent.proof",
			Message: "consent token signature does not verify", Err: ErrSignature}
	}
	return t, nil
}
