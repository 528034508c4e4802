// Package revocation is an organisation's signed list of the material it
// no longer vouches for: agent keys, identity and capability certificates,
// and TLS pins.
//
// The list is signed by the organisation's org key and numbered by a serial
// that only grows, so that a peer that holds serial n refuses any list
// below it: an old list replayed cannot bring a revoked key back. It is
// served on the registry and referenced from the peer document, and pushed
// to peers in a signed security_alert. Its JSON form (members in RFC 8785
// order; the signature covers that form without "sig"):
//
//	{"entries":[{"agent":"echo","effective":1800000000000,"kind":"agent_key",
//	  "reason":"key leaked","value":"ed25519:…"}],
//	 "issued_at":1800000000000,"org":"globex","serial":3,"sig":"ed25519:…",
//	 "type":"moltgate.revocations.v1"}
package revocation

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/moltgate/moltgate/internal/tlspin"
	"github.com/moltgate/moltgate/keys"
	"github.com/moltgate/moltgate/wire"
)

// Type marks a revocation list.
const Type = "moltgate.revocations.v1"

// Kind is what an entry revokes.
type Kind string

// The kinds of revoked material and the form of each entry's value.
const (
	// KindAgentKey is an agent's Ed25519 signing key ("ed25519:…"): its
	// messages are refused, in a session or not, and its certificates
	// with it.
	KindAgentKey Kind = "agent_key"
	// KindIdentityCert is an identity certificate, named by the
	// "sha256:…" digest of its RFC 8785 form.
	KindIdentityCert Kind = "identity_cert"
	// KindCapabilityCert is a capability certificate, named the same way.
	KindCapabilityCert Kind = "capability_cert"
	// KindTLSPin is a TLS certificate pin, as peer documents spell it
	// ("sha256:" and the base64 of 32 bytes).
	KindTLSPin Kind = "tls_pin"
)

// Entry is one revoked item.
type Entry struct {
	Kind  Kind   `json:"kind"`
	Value string `json:"value"`
	// Agent is the agent the entry is about, when there is one.
	Agent string `json:"agent,omitempty"`
	// Reason is the operator's words, for people; it decides nothing.
	Reason string `json:"reason,omitempty"`
	// Effective is when the revocation took effect, unix milliseconds.
	// Messages signed before it are refused too: a revoked key may have
	// been stolen before anyone noticed.
	Effective int64 `json:"effective"`
}

// List is an organisation's revocation list.
type List struct {
	Type     string         `json:"type"`
	Org      string         `json:"org"`
	Serial   int64          `json:"serial"`
	IssuedAt int64          `json:"issued_at"`
	Entries  []Entry        `json:"entries"`
	Sig      keys.Signature `json:"sig"`
}

// Error is a list that is malformed, not the organisation's, or older
// than one already held.
type Error struct {
	// Field is the member at fault.
	Field string
	// Reason says what is wrong, in words.
	Reason string
}

func (e *Error) Error() string { return "revocation list: " + e.Field + ": " + e.Reason }

func bad(field, format string, a ...any) *Error {
	return &Error{Field: field, Reason: fmt.Sprintf(format, a...)}
}

// New is the empty list of org, serial 0, unsigned.
func New(org string) *List { return &List{Type: Type, Org: org, Entries: []Entry{}} }

// check validates the members, not the signature.
func (l *List) check() error {
	switch {
	case l.Type != Type:
		return bad("type", "is %q; want %s", l.Type, Type)
	case !wire.ValidName(l.Org):
		return bad("org", "is not a valid organisation name")
	case l.Serial < 0:
		return bad("serial", "is negative")
	}
	for i, e := range l.Entries {
		field := fmt.Sprintf("entries[%d]", i)
		if err := e.check(); err != nil {
			return bad(field+"."+err.Field, "%s", err.Reason)
		}
	}
	return nil
}

func (e *Entry) check() *Error {
	switch e.Kind {
	case KindAgentKey:
		if _, err := keys.ParseEd25519Public(e.Value); err != nil {
			return bad("value", "an agent_key entry holds an ed25519: public key")
		}
	case KindTLSPin:
		if _, err := tlspin.Parse(e.Value); err != nil {
			return bad("value", "a tls_pin entry holds the pin as peer documents spell it: %v", err)
		}
	case KindIdentityCert, KindCapabilityCert:
		h, ok := strings.CutPrefix(e.Value, "sha256:")
		if !ok || len(h) != 64 || strings.Trim(h, "0123456789abcdef") != "" {
			return bad("value", "a %s entry holds sha256: and 64 lower-case hex digits", e.Kind)
		}
	default:
		return bad("kind", "is %q; want agent_key, identity_cert, capability_cert or tls_pin", e.Kind)
	}
	if e.Agent != "" && !wire.ValidName(e.Agent) {
		return bad("agent", "is not a valid agent name")
	}
	if e.Effective <= 0 {
		return bad("effective", "is not a time")
	}
	return nil
}

func (l *List) signingBytes() ([]byte, error) {
	v, err := wire.ValueOf(l)
	if err != nil {
		return nil, fmt.Errorf("revocation list: %w", err)
	}
	return wire.AppendCanonical(nil, v.Without("sig")), nil
}

// Revoke returns the next list: l's entries and e (unless l already
// revokes the same value), the serial one higher, issued at now and
// signed with the org key.
func (l *List) Revoke(orgKey keys.Ed25519Private, now time.Time, es ...Entry) (*List, error) {
	next := &List{Type: Type, Org: l.Org, Serial: l.Serial + 1, IssuedAt: now.UnixMilli(), Entries: slices.Clone(l.Entries)}
	if next.Entries == nil {
		next.Entries = []Entry{}
	}
	for _, e := range es {
		if e.Effective == 0 {
			e.Effective = now.UnixMilli()
		}
		if _, ok := next.Find(e.Kind, e.Value); !ok {
			next.Entries = append(next.Entries, e)
		}
	}
	if err := next.Sign(orgKey); err != nil {
		return nil, err
	}
	return next, nil
}

// Sign checks the list's members and signs it with the org key.
func (l *List) Sign(orgKey keys.Ed25519Private) error {
	if err := l.check(); err != nil {
		return err
	}
	msg, err := l.signingBytes()
	if err != nil {
		return err
	}
	l.Sig = orgKey.Sign(msg)
	return nil
}

// Verify checks the list's members and that it was signed by orgKey.
func (l *List) Verify(orgKey keys.Ed25519Public) error {
	if err := l.check(); err != nil {
		return err
	}
	msg, err := l.signingBytes()
	if err != nil {
		return err
	}
	if !orgKey.Verify(msg, l.Sig) {
		return bad("sig", "does not verify under %s's org key", l.Org)
	}
	return nil
}

// Find returns the entry revoking value as kind.
func (l *List) Find(kind Kind, value string) (Entry, bool) {
	for _, e := range l.Entries {
		if e.Kind == kind && e.Value == value {
			return e, true
		}
	}
	return Entry{}, false
}

// ErrStale is returned by Replaces for a list whose serial is below the
// one held.
var ErrStale = errors.New("revocation list: serial below the one held")

// Replaces decides whether got, already verified, may replace held (nil
// if none is held) for the same organisation: its serial must not be
// lower, and a list of the same serial must be the same list. It reports
// false, with no error, for the list already held.
func Replaces(held, got *List) (bool, error) {
	if held == nil {
		return true, nil
	}
	if got.Org != held.Org {
		return false, bad("org", "is %s; the list held is %s's", got.Org, held.Org)
	}
	switch {
	case got.Serial < held.Serial:
		return false, fmt.Errorf("%w: got %d, hold %d", ErrStale, got.Serial, held.Serial)
	case got.Serial > held.Serial:
		return true, nil
	}
	a, err := got.Marshal()
	if err != nil {
		return false, err
	}
	b, err := held.Marshal()
	if err != nil {
		return false, err
	}
	if string(a) != string(b) {
		return false, bad("serial", "%d is held with other entries: the organisation signed two lists of one serial", got.Serial)
	}
	return false, nil
}

// Marshal returns the list's RFC 8785 JSON form.
func (l *List) Marshal() ([]byte, error) {
	v, err := wire.ValueOf(l)
	if err != nil {
		return nil, fmt.Errorf("revocation list: %w", err)
	}
	return wire.AppendCanonical(nil, v), nil
}

// Parse reads a list's JSON form strictly and checks its members, not its
// signature.
func Parse(b []byte) (*List, error) {
	v, err := wire.Parse(b, 8)
	if err != nil {
		return nil, fmt.Errorf("revocation list: %w", err)
	}
	l := new(List)
	if err := wire.Bind(v, l, ""); err != nil {
		var we *wire.Error
		if errors.As(err, &we) {
			return nil, bad(we.Field, "%s", we.Message)
		}
		return nil, fmt.Errorf("revocation list: %w", err)
	}
	if l.Entries == nil {
		return nil, bad("entries", "is missing: an empty list has []")
	}
	if err := l.check(); err != nil {
		return nil, err
	}
	return l, nil
}
