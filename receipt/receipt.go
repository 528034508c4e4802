// Package receipt makes and checks receipts of cross-organisation
// exchanges, signed by both gateways.
//
// For each request a gateway answers for another organisation, the callee's
// gateway signs a receipt: digests of the request's and the reply's bytes,
// their ids, the time, the outcome, the consent the request travelled
// under, and the hash of the previous receipt it signed. It returns the
// receipt with the reply. The caller's gateway checks it against what it
// sent and received, and countersigns. Both keep the doubly signed receipt
// in their audit ledgers, and anyone holding the two organisations' peer
// documents can verify it offline: each signature is by the org key the
// peer document of its organisation names.
//
// A receipt in its JSON form (members in RFC 8785 order, as Marshal writes
// them; "prev" is empty for an organisation's first receipt):
//
//	{"callee":"echo@globex","callee_sig":"ed25519:…","caller":"assistant@acme",
//	 "caller_sig":"ed25519:…","code":"","consent_id":"c-17","outcome":"success",
//	 "prev":"sha256:…","reply_digest":"sha256:…","reply_id":"…",
//	 "request_digest":"sha256:…","request_id":"…","ts":1800000000000,
//	 "type":"moltgate.receipt.v1"}
//
// The callee signs "moltgate receipt v1 callee\n" followed by the RFC 8785
// form of the receipt without callee_sig and caller_sig. The caller signs
// "moltgate receipt v1 caller\n", the same bytes, and the callee's 64-byte
// signature, so that a countersignature cannot be moved to another
// receipt, nor a receipt's callee signature swapped under it.
package receipt

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/moltgate/moltgate/keys"
	"github.com/moltgate/moltgate/wire"
)

// Type marks a receipt.
const Type = "moltgate.receipt.v1"

// Outcomes of an exchange.
const (
	OutcomeSuccess = "success"
	OutcomeError   = "error"
)

// Receipt is the record of one exchange: a request and its reply or error.
type Receipt struct {
	Type string `json:"type"`
	// Caller and Callee are the request's sender and addressee, agent@org.
	Caller string `json:"caller"`
	Callee string `json:"callee"`
	// RequestID and ReplyID are the messages' ids.
	RequestID string `json:"request_id"`
	ReplyID   string `json:"reply_id"`
	// RequestDigest and ReplyDigest are Digest of each signed message.
	RequestDigest string `json:"request_digest"`
	ReplyDigest   string `json:"reply_digest"`
	// Outcome is success or error; Code is the error's code for error.
	Outcome string `json:"outcome"`
	Code    string `json:"code"`
	// ConsentID is the id of the consent the request travelled under.
	ConsentID string `json:"consent_id"`
	// TS is when the callee signed, unix milliseconds.
	TS int64 `json:"ts"`
	// Prev is the Hash of the callee's previous receipt, "" for its first.
	Prev string `json:"prev"`

	CalleeSig keys.Signature `json:"callee_sig"`
	CallerSig keys.Signature `json:"caller_sig"`
}

const (
	calleeDomain = "moltgate receipt v1 callee\n"
	callerDomain = "moltgate receipt v1 caller\n"
)

// Digest is how a receipt names a message: "sha256:" and the hex SHA-256
// of the RFC 8785 form of the whole signed message, sig included, so that
// both sides compute it from the message as they parsed it, whatever its
// envelope.
func Digest(m wire.Value) string {
	sum := sha256.Sum256(wire.AppendCanonical(nil, m))
	return "sha256:" + hex.EncodeToString(sum[:])
}

// Error is a receipt that is malformed or whose signatures do not hold.
type Error struct {
	// Field is the member at fault.
	Field string
	// Reason says what is wrong, in words.
	Reason string
}

func (e *Error) Error() string { return "receipt: " + e.Field + ": " + e.Reason }

func bad(field, format string, a ...any) *Error {
	return &Error{Field: field, Reason: fmt.Sprintf(format, a...)}
}

// check validates the receipt's members, not its signatures.
func (r *Receipt) check() error {
	switch {
	case r.Type != Type:
		return bad("type", "is %q; want %s", r.Type, Type)
	case r.Outcome != OutcomeSuccess && r.Outcome != OutcomeError:
		return bad("outcome", "is %q; want success or error", r.Outcome)
	case r.Outcome == OutcomeError && r.Code == "":
		return bad("code", "an error outcome names its code")
	case r.Outcome == OutcomeSuccess && r.Code != "":
		return bad("code", "a success has no error code")
	case r.RequestID == "" || r.ReplyID == "":
		return bad("request_id", "both message ids are required")
	case r.TS <= 0:
		return bad("ts", "is not a time")
	}
	for _, f := range []struct{ name, v string }{{"caller", r.Caller}, {"callee", r.Callee}} {
		if _, err := wire.ParseRef(f.v); err != nil {
			return bad(f.name, "is %q; want agent@org", f.v)
		}
	}
	for _, f := range []struct {
		name, v string
		empty   bool
	}{{"request_digest", r.RequestDigest, false}, {"reply_digest", r.ReplyDigest, false}, {"prev", r.Prev, true}} {
		if f.empty && f.v == "" {
			continue
		}
		h, ok := strings.CutPrefix(f.v, "sha256:")
		if _, err := hex.DecodeString(h); !ok || err != nil || len(h) != 64 {
			return bad(f.name, "want sha256: and 64 hex digits")
		}
	}
	return nil
}

// body is the RFC 8785 form of the receipt without its signatures.
func (r *Receipt) body() ([]byte, error) {
	if err := r.validUTF8(); err != nil {
		return nil, err
	}
	return r.appendJSON(make([]byte, 0, 768), false), nil
}

// validUTF8 refuses a member that is not valid UTF-8, which has no RFC
// 8785 form.
func (r *Receipt) validUTF8() error {
	for _, f := range [...]struct{ name, v string }{{"type", r.Type}, {"caller", r.Caller}, {"callee", r.Callee},
		{"request_id", r.RequestID}, {"reply_id", r.ReplyID}, {"request_digest", r.RequestDigest},
		{"reply_digest", r.ReplyDigest}, {"outcome", r.Outcome}, {"code", r.Code}, {"consent_id", r.ConsentID}, {"prev", r.Prev}} {
		if !utf8.ValidString(f.v) {
			return fmt.Errorf("receipt: %w", wire.Errorf(wire.ErrInvalidParam, f.name, "string is not valid UTF-8"))
		}
	}
	return nil
}

// appendJSON appends the receipt's RFC 8785 form, with its signatures if
// sigs is set. Its members are written in RFC 8785's order by hand, each
// value by wire.AppendCanonical: a receipt is encoded several times on
// each side of every exchange, and reflection over it cost more than its
// hashing (FuzzCanonicalForm holds this to the generic encoding).
func (r *Receipt) appendJSON(b []byte, sigs bool) []byte {
	str := func(key, v string) {
		b = append(b, key...)
		b = wire.AppendCanonical(b, wire.StringValue(v))
	}
	sig := func(key string, s keys.Signature) {
		b = append(b, key...)
		t, _ := s.AppendText(nil)
		b = wire.AppendCanonical(b, wire.StringValue(string(t)))
	}
	str(`{"callee":`, r.Callee)
	if sigs {
		sig(`,"callee_sig":`, r.CalleeSig)
	}
	str(`,"caller":`, r.Caller)
	if sigs {
		sig(`,"caller_sig":`, r.CallerSig)
	}
	str(`,"code":`, r.Code)
	str(`,"consent_id":`, r.ConsentID)
	str(`,"outcome":`, r.Outcome)
	str(`,"prev":`, r.Prev)
	str(`,"reply_digest":`, r.ReplyDigest)
	str(`,"reply_id":`, r.ReplyID)
	str(`,"request_digest":`, r.RequestDigest)
	str(`,"request_id":`, r.RequestID)
	b = append(b, `,"ts":`...)
	b = wire.AppendCanonical(b, wire.IntValue(r.TS))
	str(`,"type":`, r.Type)
	return append(b, '}')
}

func (r *Receipt) calleeBytes() ([]byte, error) {
	b, err := r.body()
	if err != nil {
		return nil, err
	}
	return append([]byte(calleeDomain), b...), nil
}

func (r *Receipt) callerBytes() ([]byte, error) {
	b, err := r.body()
	if err != nil {
		return nil, err
	}
	out := append([]byte(callerDomain), b...)
	return append(out, r.CalleeSig[:]...), nil
}

// Sign is the callee's signature: it checks r's members, sets Type and
// signs with the callee organisation's key. Any countersignature is
// cleared.
func (r *Receipt) Sign(calleeOrgKey keys.Ed25519Private) error {
	r.Type = Type
	if err := r.check(); err != nil {
		return err
	}
	r.CallerSig = keys.Signature{}
	msg, err := r.calleeBytes()
	if err != nil {
		return err
	}
	r.CalleeSig = calleeOrgKey.Sign(msg)
	return nil
}

// Countersign is the caller's signature, over the receipt and the
// callee's signature. Check the receipt (VerifyCallee, and that it names
// what was sent and received) before countersigning it.
func (r *Receipt) Countersign(callerOrgKey keys.Ed25519Private) error {
	if r.CalleeSig.IsZero() {
		return bad("callee_sig", "the callee has not signed")
	}
	msg, err := r.callerBytes()
	if err != nil {
		return err
	}
	r.CallerSig = callerOrgKey.Sign(msg)
	return nil
}

// KeyOf returns the org key trusted for an organisation.
type KeyOf func(org string) (keys.Ed25519Public, bool)

func orgOf(ref string) string {
	_, org, _ := strings.Cut(ref, "@")
	return org
}

// VerifyCallee checks the receipt's members and the callee's signature
// against the key keyOf gives for the callee's organisation.
func (r *Receipt) VerifyCallee(keyOf KeyOf) error { return r.VerifyCalleeUsing(nil, keyOf) }

// VerifyCalleeUsing is VerifyCallee with v, which keeps the org keys it
// has checked with expanded for the next check (nil: none kept).
func (r *Receipt) VerifyCalleeUsing(v *keys.Verifier, keyOf KeyOf) error {
	if err := r.check(); err != nil {
		return err
	}
	org := orgOf(r.Callee)
	k, ok := keyOf(org)
	if !ok {
		return bad("callee", "no org key for %s: give its peer document", org)
	}
	msg, err := r.calleeBytes()
	if err != nil {
		return err
	}
	if !v.Verify(k, msg, r.CalleeSig) {
		return bad("callee_sig", "does not verify under %s's org key", org)
	}
	return nil
}

// Verify checks the whole receipt: its members, the callee's signature and
// the caller's countersignature, each against the key keyOf gives for the
// organisation of the party that signed.
func (r *Receipt) Verify(keyOf KeyOf) error {
	if err := r.VerifyCallee(keyOf); err != nil {
		return err
	}
	return r.VerifyCaller(keyOf)
}

// VerifyCaller checks the caller's countersignature alone, against the key
// keyOf gives for the caller's organisation. It is for the callee, which
// signed the rest itself and holds the receipt it signed: anyone else checks
// the whole receipt with Verify.
func (r *Receipt) VerifyCaller(keyOf KeyOf) error { return r.VerifyCallerUsing(nil, keyOf) }

// VerifyCallerUsing is VerifyCaller with v (see VerifyCalleeUsing).
func (r *Receipt) VerifyCallerUsing(v *keys.Verifier, keyOf KeyOf) error {
	if err := r.check(); err != nil {
		return err
	}
	if r.CallerSig.IsZero() {
		return bad("caller_sig", "the caller has not countersigned")
	}
	org := orgOf(r.Caller)
	k, ok := keyOf(org)
	if !ok {
		return bad("caller", "no org key for %s: give its peer document", org)
	}
	msg, err := r.callerBytes()
	if err != nil {
		return err
	}
	if !v.Verify(k, msg, r.CallerSig) {
		return bad("caller_sig", "does not verify under %s's org key", org)
	}
	return nil
}

// Hash names the receipt in the next one's prev: "sha256:" and the hex
// SHA-256 of what the callee signed and its signature. The
// countersignature is left out: the callee chains its receipts before the
// caller has countersigned.
func (r *Receipt) Hash() (string, error) {
	msg, err := r.calleeBytes()
	if err != nil {
		return "", err
	}
	h := sha256.New()
	h.Write(msg)
	h.Write(r.CalleeSig[:])
	return "sha256:" + hex.EncodeToString(h.Sum(nil)), nil
}

// Marshal returns the receipt's RFC 8785 JSON form.
func (r *Receipt) Marshal() ([]byte, error) {
	if err := r.validUTF8(); err != nil {
		return nil, err
	}
	return r.appendJSON(make([]byte, 0, 1024), true), nil
}

// Parse reads a receipt's JSON form strictly: the members' types are
// checked and its members validated, but not its signatures.
func Parse(b []byte) (*Receipt, error) {
	v, err := wire.Parse(b, 4)
	if err != nil {
		return nil, fmt.Errorf("receipt: %w", err)
	}
	r := new(Receipt)
	if err := wire.Bind(v, r, ""); err != nil {
		var we *wire.Error
		if errors.As(err, &we) {
			return nil, bad(we.Field, "%s", we.Message)
		}
		return nil, fmt.Errorf("receipt: %w", err)
	}
	if err := r.check(); err != nil {
		return nil, err
	}
	return r, nil
}
