// Package receipt makes and checks receipts of cross-organisation
// exchanges, signed by both gateways, each signature over a batch.
//
// For each request a gateway answers for another organisation, the callee's
// gateway makes a receipt: digests of the request's and the reply's bytes,
// their ids, the time, the outcome, the consent the request travelled
// under, and the hash of the previous receipt it made. A few milliseconds
// later it signs, once, the root of a Merkle tree (package merkle) over the
// bodies of the receipts it made meanwhile, and sends the leaves and the
// signed root to the caller's gateway. The caller builds the body from
// what it sent and received, checks its leaf against the callee's signed
// tree, and countersigns the same way: one signed root over the receipts
// it checked meanwhile. Both keep the doubly signed receipt in
// their audit ledgers, and anyone holding the two organisations' peer
// documents verifies one receipt offline, without the others of its
// batches: recompute the leaf from the body, walk each proof's path to its
// root, and check the root's signature by the org key the peer document of
// its organisation names.
//
// A receipt in its JSON form (members in RFC 8785 order, as Marshal writes
// them; "prev" is empty for an organisation's first receipt):
//
//	{"callee":"echo@globex",
//	 "callee_proof":{"index":3,"path":["sha256:…",…],"root":{"hash":"sha256:…",
//	   "org":"globex","role":"callee","sig":"ed25519:…","size":17,"ts":1800000000005}},
//	 "caller":"assistant@acme",
//	 "caller_proof":{"index":0,"path":[…],"root":{…,"org":"acme","role":"caller",…}},
//	 "code":"","consent_id":"c-17","outcome":"success","prev":"sha256:…",
//	 "reply_digest":"sha256:…","reply_id":"…","request_digest":"sha256:…",
//	 "request_id":"…","ts":1800000000000,"type":"moltgate.receipt.v2"}
//
// The body is the receipt without callee_proof and caller_proof; its leaf
// in both trees is merkle.LeafHash of "moltgate receipt v2\n" followed by
// the body's RFC 8785 form. A root's signature is its organisation's org
// key over "moltgate receipt root v1\n" followed by the RFC 8785 form of
// the root without sig: its role ("callee" or "caller") and organisation
// are signed with it, so that neither side's root passes for the other's.
package receipt

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/moltgate/moltgate/keys"
	"github.com/moltgate/moltgate/merkle"
	"github.com/moltgate/moltgate/wire"
)

// Type marks a receipt.
const Type = "moltgate.receipt.v2"

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
	// TS is when the callee made the receipt, unix milliseconds.
	TS int64 `json:"ts"`
	// Prev is the Hash of the callee's previous receipt, "" for its first.
	Prev string `json:"prev"`

	// CalleeProof and CallerProof place the receipt in a batch each side
	// signed; nil until that side has signed.
	CalleeProof *Proof `json:"callee_proof"`
	CallerProof *Proof `json:"caller_proof"`
}

const leafDomain = "moltgate receipt v2\n"

// Digest is how a receipt names a message: "sha256:" and the hex SHA-256
// of the RFC 8785 form of the whole signed message, sig included, so that
// both sides compute it from the message as they parsed it, whatever its
// envelope.
func Digest(m wire.Value) string {
	bp := digestBufs.Get().(*[]byte)
	b := wire.AppendCanonical((*bp)[:0], m)
	sum := sha256.Sum256(b)
	if cap(b) <= maxDigestBuf {
		*bp = b
	}
	digestBufs.Put(bp)
	var out [7 + 64]byte
	copy(out[:], "sha256:")
	hex.Encode(out[7:], sum[:])
	return string(out[:])
}

// digestBufs recycles the buffers messages are encoded in to be digested:
// each side digests every request and reply of an exchange, and the
// encoding lives only until it is hashed.
var digestBufs = sync.Pool{New: func() any { b := make([]byte, 0, 4096); return &b }}

// maxDigestBuf bounds the buffers kept for reuse.
const maxDigestBuf = 64 << 10

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
	case r.Type == "moltgate.receipt.v1":
		return bad("type", "is moltgate.receipt.v1, a receipt signed alone, which this version does not check; want %s", Type)
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

// body is the RFC 8785 form of the receipt without its proofs.
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

// appendJSON appends the receipt's RFC 8785 form, with the proofs it has if
// proofs is set. Its members are written in RFC 8785's order by hand, each
// value by wire.AppendCanonical: a receipt is encoded several times on
// each side of every exchange, and reflection over it cost more than its
// hashing (FuzzCanonicalForm holds this to the generic encoding).
func (r *Receipt) appendJSON(b []byte, proofs bool) []byte {
	str := func(key, v string) {
		b = append(b, key...)
		b = wire.AppendCanonical(b, wire.StringValue(v))
	}
	str(`{"callee":`, r.Callee)
	if proofs && r.CalleeProof != nil {
		b = r.CalleeProof.appendJSON(append(b, `,"callee_proof":`...))
	}
	str(`,"caller":`, r.Caller)
	if proofs && r.CallerProof != nil {
		b = r.CallerProof.appendJSON(append(b, `,"caller_proof":`...))
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

// Leaf is the receipt's leaf in the trees both sides sign: its members are
// checked, and the leaf is merkle.LeafHash of leafDomain and its body. The
// body is written after the domain into a recycled buffer: each side takes
// a receipt's leaf at least twice, and the body lives only until hashed.
func (r *Receipt) Leaf() (merkle.Hash, error) {
	if err := r.check(); err != nil {
		return merkle.Hash{}, err
	}
	if err := r.validUTF8(); err != nil {
		return merkle.Hash{}, err
	}
	bp := digestBufs.Get().(*[]byte)
	b := r.appendJSON(append((*bp)[:0], leafDomain...), false)
	leaf := merkle.LeafHash(b)
	if cap(b) <= maxDigestBuf {
		*bp = b
	}
	digestBufs.Put(bp)
	return leaf, nil
}

// Hash names the receipt in the next one's prev: its Leaf, as
// "sha256:" and hex. It is known as soon as the body is, before either
// side has signed.
func (r *Receipt) Hash() (string, error) {
	l, err := r.Leaf()
	if err != nil {
		return "", err
	}
	return l.String(), nil
}

// KeyOf returns the org key trusted for an organisation.
type KeyOf func(org string) (keys.Ed25519Public, bool)

func orgOf(ref string) string {
	_, org, _ := strings.Cut(ref, "@")
	return org
}

// VerifyCallee checks the receipt's members and the callee's proof: that
// it leads from the receipt's leaf to a root signed, as callee, by the org
// key keyOf gives for the callee's organisation. roots, if not nil, keeps
// the roots it has checked, so that the next receipt of the same batch
// costs no signature check.
func (r *Receipt) VerifyCallee(keyOf KeyOf, roots *Roots) error {
	return r.verify(RoleCallee, "callee_proof", orgOf(r.Callee), r.CalleeProof, keyOf, roots)
}

// VerifyCaller checks the receipt's members and the caller's proof, as
// VerifyCallee does the callee's.
func (r *Receipt) VerifyCaller(keyOf KeyOf, roots *Roots) error {
	return r.verify(RoleCaller, "caller_proof", orgOf(r.Caller), r.CallerProof, keyOf, roots)
}

// Verify checks the whole receipt: its members, the callee's proof and
// the caller's, each against the key keyOf gives for the organisation of
// the side that signed.
func (r *Receipt) Verify(keyOf KeyOf) error {
	if err := r.VerifyCallee(keyOf, nil); err != nil {
		return err
	}
	return r.VerifyCaller(keyOf, nil)
}

func (r *Receipt) verify(role, field, org string, p *Proof, keyOf KeyOf, roots *Roots) error {
	leaf, err := r.Leaf()
	if err != nil {
		return err
	}
	if p == nil {
		return bad(field, "the %s has not signed", role)
	}
	if p.Root.Role != role || p.Root.Org != org {
		return bad(field+".root", "is signed by %s as %s; want %s as %s", p.Root.Org, p.Root.Role, org, role)
	}
	if err := p.Includes(leaf); err != nil {
		return bad(field, "%v", err)
	}
	k, ok := keyOf(org)
	if !ok {
		return bad(field+".root", "no org key for %s: give its peer document", org)
	}
	if err := roots.Verify(&p.Root, k); err != nil {
		return bad(field+".root.sig", "%v", err)
	}
	return nil
}

// Marshal returns the receipt's RFC 8785 JSON form.
func (r *Receipt) Marshal() ([]byte, error) {
	return r.AppendMarshal(make([]byte, 0, marshalSize))
}

// AppendMarshal appends the receipt's RFC 8785 JSON form to b, as Marshal
// returns it: a gateway writes each receipt it keeps into a buffer it
// recycles.
func (r *Receipt) AppendMarshal(b []byte) ([]byte, error) {
	if err := r.validUTF8(); err != nil {
		return b, err
	}
	return r.appendJSON(b, true), nil
}

// marshalSize is room for a receipt with both proofs of batches of some
// thousand receipts each: Marshal's buffer grows no more than once.
const marshalSize = 3 << 10

// Parse reads a receipt's JSON form strictly: the members' types are
// checked and its members validated, but not its signatures.
func Parse(b []byte) (*Receipt, error) {
	v, err := wire.Parse(b, 4)
	if err != nil {
		return nil, fmt.Errorf("receipt: %w", err)
	}
	return FromValue(v)
}

// FromValue is Parse of a receipt already parsed as a JSON tree, such as
// the member of a message that carries it.
func FromValue(v wire.Value) (*Receipt, error) {
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
	for _, p := range []struct {
		field string
		p     *Proof
	}{{"callee_proof", r.CalleeProof}, {"caller_proof", r.CallerProof}} {
		if p.p != nil {
			if err := p.p.check(p.field); err != nil {
				return nil, err
			}
		}
	}
	return r, nil
}
