package wire

import (
	"crypto/sha256"
	"slices"
	"strings"
	"sync"

	"github.com/moltgate/moltgate/keys"
)

// Version is the protocol version moltgate speaks.
const Version = "0.1"

// Op is a MoltSpeak operation.
type Op string

// The operations moltgate speaks.
const (
	OpHello              Op = "hello"
	OpHelloAck           Op = "hello_ack"
	OpVerify             Op = "verify"
	OpVerifyResponse     Op = "verify_response"
	OpSessionEstablished Op = "session_established"
	OpQuery              Op = "query"
	OpRespond            Op = "respond"
	OpTask               Op = "task"
	OpStream             Op = "stream"
	OpTool               Op = "tool"
	OpConsent            Op = "consent"
	OpError              Op = "error"
	OpRegister           Op = "register"
	OpDiscover           Op = "discover"
	OpPing               Op = "ping"
	OpPong               Op = "pong"
	// OpSecurityAlert tells a peer that the sender's organisation no
	// longer vouches for some of its keys: the security model's incident
	// response operation.
	OpSecurityAlert Op = "security_alert"
)

// Ops lists every operation, in the order above.
func Ops() []Op {
	return []Op{OpHello, OpHelloAck, OpVerify, OpVerifyResponse, OpSessionEstablished,
		OpQuery, OpRespond, OpTask, OpStream, OpTool, OpConsent, OpError,
		OpRegister, OpDiscover, OpPing, OpPong, OpSecurityAlert}
}

// Known reports whether op is one of the operations moltgate speaks.
func (op Op) Known() bool { return newPayload(op) != nil }

// Class is a data classification. Classes are ordered: Pub < Int < Conf <
// PII < Sec. The zero Class is not a valid classification.
type Class uint8

// The classification levels.
const (
	Pub Class = iota + 1
	Int
	Conf
	PII
	Sec
)

var classTags = [...]string{"", "pub", "int", "conf", "pii", "sec"}

// ParseClass accepts the wire tags (pub int conf pii sec) and the long forms
// public, internal, confidential and secret.
func ParseClass(s string) (Class, bool) {
	switch s {
	case "pub", "public":
		return Pub, true
	case "int", "internal":
		return Int, true
	case "conf", "confidential":
		return Conf, true
	case "pii":
		return PII, true
	case "sec", "secret":
		return Sec, true
	}
	return 0, false
}

// Classes lists the levels from lowest to highest.
func Classes() []Class { return []Class{Pub, Int, Conf, PII, Sec} }

// String gives the wire tag; the long forms are never emitted.
func (c Class) String() string {
	if c >= Pub && c <= Sec {
		return classTags[c]
	}
	return "invalid"
}

// Valid reports whether c is one of the five levels.
func (c Class) Valid() bool { return c >= Pub && c <= Sec }

// MarshalText implements encoding.TextMarshaler.
func (c Class) MarshalText() ([]byte, error) {
	if !c.Valid() {
		return nil, Errorf(ErrInvalidParam, "cls", "invalid classification")
	}
	return []byte(c.String()), nil
}

// UnmarshalText implements encoding.TextUnmarshaler.
func (c *Class) UnmarshalText(b []byte) error {
	v, ok := ParseClass(string(b))
	if !ok {
		return Errorf(ErrInvalidParam, "", "unknown classification (want pub, int, conf, pii or sec)")
	}
	*c = v
	return nil
}

// Ref names an agent of an organisation.
type Ref struct {
	Agent string `json:"agent"`
	Org   string `json:"org"`
}

// String gives "agent@org".
func (r Ref) String() string { return r.Agent + "@" + r.Org }

// ParseRef parses "agent@org".
func ParseRef(s string) (Ref, error) {
	a, o, ok := strings.Cut(s, "@")
	if !ok || !ValidName(a) || !ValidName(o) {
		return Ref{}, Errorf(ErrInvalidParam, "", "want agent@org, each of [A-Za-z0-9_-]{1,128}")
	}
	return Ref{a, o}, nil
}

// ValidName reports whether s is a valid agent or org name:
// ^[A-Za-z0-9_-]{1,128}$.
func ValidName(s string) bool {
	if len(s) == 0 || len(s) > 128 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c == '_' || c == '-' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// Sender is the "from" object: who sent the message and with which keys.
type Sender struct {
	Agent  string
	Org    string
	Key    keys.Ed25519Public
	EncKey keys.X25519Public // zero if absent
}

// Ref returns the sender's name.
func (s Sender) Ref() Ref { return Ref{s.Agent, s.Org} }

// PIIMeta is the "pii_meta" object.
type PIIMeta struct {
	Types      []string `json:"types" validate:"required,min=1,max=16,dive,oneof=email phone name address ssn dob financial health location other"`
	Consent    *Consent `json:"consent" validate:"required"`
	MaskFields []string `json:"mask_fields,omitempty" validate:"max=256,dive,max=256"`
}

// Consent is pii_meta's consent object.
type Consent struct {
	GrantedBy string `json:"granted_by" validate:"required,max=256"`
	Purpose   string `json:"purpose" validate:"required,max=256"`
	Proof     string `json:"proof" validate:"required,max=8192"`
	Expires   int64  `json:"expires,omitempty" validate:"gte=0"`
	Scope     string `json:"scope,omitempty" validate:"max=256"`
}

// Message is one MoltSpeak message. A decoded Message is read-only: its
// fields mirror the parsed tree, which is what signatures cover.
type Message struct {
	V    string // "0.1"
	ID   string // UUID v4, lower case
	TS   int64  // unix milliseconds
	Op   Op
	From Sender
	To   Ref
	// Payload is a pointer to the typed payload of Op, for instance
	// *QueryPayload for OpQuery.
	Payload any
	Cls     Class
	Sig     keys.Signature // zero if unsigned
	Re      string         // the id this message answers, if any
	Exp     int64          // unix milliseconds; 0 if absent
	Cap     []string
	Ext     Value // object of namespaced extensions; Absent if none
	PIIMeta *PIIMeta
	// Extra holds top-level members this version does not know. A decoded
	// message keeps them in its tree; set Extra to send some.
	Extra []Member
	// SignedDigest, if set, receives at each signing (SignWith,
	// AppendSignedWith) the SHA-256 of the wire bytes signed, "sig"
	// included: a sender that must name later what it sent (a receipt
	// does) has it without encoding the message again. Default nil.
	SignedDigest *[32]byte

	tree    Value  // the message object as received or as built
	raw     []byte // the bytes decoded, if any; the tree's strings share them
	decoded bool
	// canon is set when raw is exactly the canonical form: the signing
	// bytes are then raw without the span [sigStart, sigEnd).
	canon            bool
	sigStart, sigEnd int
	// fresh is set by Codec.Check: tree was built from the fields just now,
	// and the next SignWith may use it without building it again.
	fresh bool
}

// Decoded reports whether m came from Decode (and is read-only).
func (m *Message) Decoded() bool { return m.decoded }

// Canonical reports whether m was decoded from bytes that are exactly its
// RFC 8785 form, sig included: Raw is then its wire form as well.
func (m *Message) Canonical() bool { return m.decoded && m.canon }

// Raw returns the bytes m was decoded from, or nil. They must not be
// modified: the decoded message's strings share their memory.
func (m *Message) Raw() []byte { return m.raw }

// Tree returns m as a JSON tree: the parsed tree of a decoded message, or
// one built from the fields.
func (m *Message) Tree() (Value, error) {
	if m.decoded {
		return m.tree, nil
	}
	return m.build()
}

// Signed reports whether m carries a signature.
func (m *Message) Signed() bool { return !m.Sig.IsZero() }

// AppendSigningBytes appends the canonical bytes that m's signature covers:
// the RFC 8785 form of the whole message object without "sig".
func (m *Message) AppendSigningBytes(dst []byte) ([]byte, error) {
	if m.canon {
		// The input was already canonical: cut "sig" out of it rather
		// than serialise the tree again.
		if m.sigEnd == 0 {
			return append(dst, m.raw...), nil
		}
		dst = append(dst, m.raw[:m.sigStart]...)
		return append(dst, m.raw[m.sigEnd:]...), nil
	}
	t, err := m.Tree()
	if err != nil {
		return dst, err
	}
	return appendTop(dst, t, "sig", nil), nil
}

// AppendPythonSigningBytes appends the form the reference Python SDK signs:
// json.dumps(m without "sig", sort_keys=True, separators=(",", ":")).
func (m *Message) AppendPythonSigningBytes(dst []byte) ([]byte, error) {
	t, err := m.Tree()
	if err != nil {
		return dst, err
	}
	return appendPython(dst, t, "sig"), nil
}

// AppendWire appends m as sent: its canonical form, with "sig" if signed.
func (m *Message) AppendWire(dst []byte) ([]byte, error) {
	t, err := m.Tree()
	if err != nil {
		return dst, err
	}
	if !m.Signed() {
		return appendTop(dst, t, "sig", nil), nil
	}
	sig := Member{Key: "sig", Value: StringValue(m.Sig.String())}
	return appendTop(dst, t, "sig", &sig), nil
}

// signingBufs recycles the buffers signing bytes are built in: they live
// for one signature, and a message's bytes are then copied out with the
// signature spliced in.
var signingBufs = sync.Pool{New: func() any { b := make([]byte, 0, 4096); return &b }}

// maxPooledSigning bounds the buffers kept for reuse.
const maxPooledSigning = 64 << 10

// SignWith signs m: it gives sign the signing bytes and returns m's wire
// bytes with the signature it returned, which it also sets in m.Sig. The
// signature is spliced into the canonical bytes rather than serialising the
// message twice. sign must not keep signingBytes: the buffer is reused.
func (m *Message) SignWith(sign func(signingBytes []byte) keys.Signature) ([]byte, error) {
	return m.AppendSignedWith(nil, sign)
}

// AppendSignedWith is SignWith, appending the wire bytes to dst: a caller
// that seals them and is then done with them can sign into a buffer it
// reuses.
func (m *Message) AppendSignedWith(dst []byte, sign func(signingBytes []byte) keys.Signature) ([]byte, error) {
	t := m.tree
	if !m.fresh && !m.decoded {
		var err error
		if t, err = m.build(); err != nil {
			return nil, err
		}
	}
	m.fresh = false
	bp := signingBufs.Get().(*[]byte)
	defer signingBufs.Put(bp)
	buf, mark, before, after := appendTopMarked((*bp)[:0], t)
	if cap(buf) <= maxPooledSigning {
		*bp = buf
	}
	m.Sig = sign(buf)
	var member [112]byte
	ins := member[:0]
	if before {
		ins = append(ins, ',')
	}
	ins = append(ins, `"sig":"`...)
	ins, _ = m.Sig.AppendText(ins)
	ins = append(ins, '"')
	if after && !before {
		ins = append(ins, ',')
	}
	// Room for a session's tag: sealing then encrypts in place.
	out := slices.Grow(dst, len(buf)+len(ins)+SessionOverhead)
	out = append(out, buf[:mark]...)
	out = append(out, ins...)
	out = append(out, buf[mark:]...)
	if m.SignedDigest != nil {
		*m.SignedDigest = sha256.Sum256(out[len(dst):])
	}
	return out, nil
}

// Reply starts a message answering m: from m's recipient to m's sender,
// with re set to m's id and m's classification. A reply to a pii message
// carries the request's pii_meta: it travels under the same consent.
func (m *Message) Reply(op Op, payload any) *Message {
	r := &Message{
		V:       Version,
		Op:      op,
		To:      m.From.Ref(),
		Re:      m.ID,
		Cls:     m.Cls,
		Payload: payload,
	}
	if m.Cls == PII {
		r.PIIMeta = m.PIIMeta
	}
	return r
}
