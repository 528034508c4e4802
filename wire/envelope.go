package wire

import (
	"bytes"
	"encoding/base64"
	"strconv"

	fastb64 "github.com/segmentio/asm/base64"

	"github.com/moltgate/moltgate/keys"
)

// AlgBox is the algorithm of an envelope sealed with NaCl box.
const AlgBox = "x25519-xsalsa20-poly1305"

// BoxOverhead is the bytes NaCl box adds to a plaintext.
const BoxOverhead = 16

// Envelope is a decoded transport envelope, or a bare message.
//
// A plain envelope is
//
//	{"moltspeak":"0.1","envelope":{"encrypted":false,...},"message":{...}}
//
// and a sealed one
//
//	{"moltspeak":"0.1","envelope":{"encrypted":true,"algorithm":"x25519-xsalsa20-poly1305",
//	 "sender_public":"x25519:…","nonce":"base64:…"},"ciphertext":"base64:…"}
//
// where the ciphertext is NaCl box of the signed message's bytes.
type Envelope struct {
	// Bare is set when the input was a message with no envelope.
	Bare bool
	// Header is the "envelope" object as received, unknown members
	// included.
	Header Value

	Encrypted    bool
	Algorithm    string
	SenderPublic keys.X25519Public // sealed envelopes (AlgBox)
	Nonce        []byte            // sealed envelopes: 24 bytes for AlgBox
	Ciphertext   []byte            // sealed envelopes
	SessionID    string            // session-sealed envelopes (AlgSession)
	Counter      uint64            // session-sealed envelopes (AlgSession)

	// Message is the message of a plain envelope or a bare message; nil
	// for a sealed envelope until it is opened.
	Message *Message
}

// DecodeEnvelope parses an envelope or a bare message. It checks the
// envelope's shape and, for a plain envelope or bare message, decodes the
// message; it does not open sealed envelopes or verify signatures.
func (c *Codec) DecodeEnvelope(b []byte) (*Envelope, error) {
	// A sealed envelope carries the message as base64, a third larger.
	if limit := c.limits.MaxMessage/3*4 + 4096; len(b) > limit {
		return nil, Errorf(ErrTooLarge, "", "envelope of %d bytes exceeds the limit of %d", len(b), limit)
	}
	if env, ok := c.decodeSessionCanonical(b); ok {
		return env, nil
	}
	if env, ok := c.decodeBoxCanonical(b); ok {
		return env, nil
	}
	t, info, perr := parse(b, c.limits.MaxDepth+1)
	if perr != nil {
		return nil, perr
	}
	env, err := c.DecodeEnvelopeTree(t)
	if err != nil {
		return nil, err
	}
	// Only a sealed envelope has the base64 allowance above: a message
	// that comes in the clear is held to MaxMessage, with room for a plain
	// envelope's header.
	if limit := c.limits.MaxMessage + plainHeaderRoom; !env.Encrypted && (env.Bare && len(b) > c.limits.MaxMessage || len(b) > limit) {
		return nil, Errorf(ErrTooLarge, "", "message of %d bytes exceeds the limit of %d", len(b), c.limits.MaxMessage)
	}
	if env.Bare {
		env.Message.setRaw(info)
	}
	return env, nil
}

// plainHeaderRoom is what a plain envelope may add to its message.
const plainHeaderRoom = 1024

// DecodeEnvelopeTree is DecodeEnvelope for an already parsed value.
func (c *Codec) DecodeEnvelopeTree(t Value) (*Envelope, error) {
	if t.kind != Object {
		return nil, Errorf(ErrSchema, "", "envelope must be a JSON object, got %s", t.kind)
	}
	ver := t.Get("moltspeak")
	if ver.kind == Absent {
		// A bare message: its depth limit is one less than an envelope's.
		if depth(t) > c.limits.MaxDepth {
			return nil, Errorf(ErrParse, "", "nesting deeper than %d", c.limits.MaxDepth)
		}
		m, err := c.DecodeTree(t)
		if err != nil {
			return nil, err
		}
		return &Envelope{Bare: true, Message: m}, nil
	}
	if s, ok := ver.Str(); !ok {
		return nil, typeErr("moltspeak", "string", ver.kind)
	} else if s != Version {
		return nil, Errorf(ErrVersion, "moltspeak", "version not supported (this gateway speaks %s)", Version).
			WithSuggestion(Suggestion{Action: ActionUpgrade})
	}
	env := &Envelope{Header: t.Get("envelope")}
	switch env.Header.kind {
	case Absent:
		return nil, Errorf(ErrMissingField, "envelope", "required field missing")
	case Object:
	default:
		return nil, typeErr("envelope", "object", env.Header.kind)
	}
	for _, m := range t.items {
		switch m.Key {
		case "moltspeak", "envelope", "message", "ciphertext":
		default:
			return nil, Errorf(ErrSchema, JoinPath("", m.Key), "unknown envelope member")
		}
	}
	h := env.Header
	if enc := h.Get("encrypted"); enc.kind != Absent {
		b, ok := enc.Bool()
		if !ok {
			return nil, typeErr("envelope.encrypted", "boolean", enc.kind)
		}
		env.Encrypted = b
	}
	if !env.Encrypted {
		if t.Get("ciphertext").kind != Absent {
			return nil, Errorf(ErrSchema, "ciphertext", "ciphertext in an unencrypted envelope")
		}
		mv := t.Get("message")
		if mv.kind == Absent {
			return nil, Errorf(ErrMissingField, "message", "required field missing")
		}
		m, err := c.DecodeTree(mv)
		if err != nil {
			if we, ok := err.(*Error); ok {
				return nil, we.prefixField("message")
			}
			return nil, err
		}
		env.Message = m
		return env, nil
	}
	if t.Get("message").kind != Absent {
		return nil, Errorf(ErrSchema, "message", "clear message in an encrypted envelope")
	}
	alg, ok := h.Get("algorithm").Str()
	if !ok {
		if h.Get("algorithm").kind == Absent {
			return nil, Errorf(ErrMissingField, "envelope.algorithm", "required field missing")
		}
		return nil, typeErr("envelope.algorithm", "string", h.Get("algorithm").kind)
	}
	env.Algorithm = alg
	if alg == AlgSession {
		return c.decodeSessionSealed(t, env)
	}
	if alg != AlgBox {
		return nil, Errorf(ErrInvalidParam, "envelope.algorithm", "unsupported algorithm (want %s or %s)", AlgBox, AlgSession)
	}
	sp, ok := h.Get("sender_public").Str()
	if !ok {
		return nil, Errorf(ErrMissingField, "envelope.sender_public", "required string field missing")
	}
	pub, err := keys.ParseX25519Public(sp)
	if err != nil {
		return nil, &Error{Code: ErrInvalidParam, Field: "envelope.sender_public", Message: "malformed x25519 key: " + err.(*keys.ParseError).Err.Error()}
	}
	env.SenderPublic = pub
	ns, ok := h.Get("nonce").Str()
	if !ok {
		return nil, Errorf(ErrMissingField, "envelope.nonce", "required string field missing")
	}
	nonce, err := keys.DecodeBytes(ns, 24)
	if err != nil || len(nonce) != 24 {
		return nil, Errorf(ErrInvalidParam, "envelope.nonce", "want base64: and exactly 24 bytes")
	}
	env.Nonce = nonce
	cs, ok := t.Get("ciphertext").Str()
	if !ok {
		return nil, Errorf(ErrMissingField, "ciphertext", "required string field missing")
	}
	ct, err := keys.DecodeBytes(cs, c.limits.MaxMessage+BoxOverhead)
	if err != nil {
		return nil, Errorf(ErrInvalidParam, "ciphertext", "want base64: within the message size limit")
	}
	if len(ct) < BoxOverhead {
		return nil, Errorf(ErrInvalidParam, "ciphertext", "too short")
	}
	env.Ciphertext = ct
	return env, nil
}

func depth(v Value) int {
	if v.kind != Object && v.kind != Array {
		return 0
	}
	d := 0
	for i := range v.items {
		d = max(d, depth(v.items[i].Value))
	}
	return d + 1
}

// AppendSealed appends a sealed envelope for the given header fields.
func AppendSealed(dst []byte, sender keys.X25519Public, nonce, ciphertext []byte) []byte {
	dst = append(dst, `{"ciphertext":"`...)
	dst = appendB64(dst, ciphertext)
	dst = append(dst, `","envelope":{"algorithm":"`+AlgBox+`","encrypted":true,"nonce":"`...)
	dst = appendB64(dst, nonce)
	dst = append(dst, `","sender_public":"`...)
	dst, _ = sender.AppendText(dst)
	dst = append(dst, `"},"moltspeak":"`+Version+`"}`...)
	return dst
}

// AppendPlain appends a plain (unencrypted) envelope around the wire form of
// m.
func AppendPlain(dst []byte, m *Message) ([]byte, error) {
	dst = append(dst, `{"envelope":{"compressed":false,"encoding":"utf-8","encrypted":false},"message":`...)
	dst, err := m.AppendWire(dst)
	if err != nil {
		return dst, err
	}
	return append(dst, `,"moltspeak":"`+Version+`"}`...), nil
}

func appendB64(dst, b []byte) []byte { return keys.AppendBytes(dst, b) }

// AlgSession is the algorithm of an envelope sealed inside a handshake
// session: ChaCha20-Poly1305 (RFC 8439) under the session key of the
// sender's direction, with the counter as nonce.
const AlgSession = "session-chacha20-poly1305"

// MaxSessionCounter is the largest counter a session envelope may carry:
// 2^53-1, the largest integer every JSON implementation reads exactly.
const MaxSessionCounter uint64 = 1<<53 - 1

// A session-sealed envelope is
//
//	{"ciphertext":"base64:…","envelope":{"algorithm":"session-chacha20-poly1305",
//	 "counter":7,"encrypted":true,"session":"…"},"moltspeak":"0.1"}
//
// where session names the session ([A-Za-z0-9_-], 16 to 128 bytes), counter
// is the sender's message number in its direction (an integer from 0 to
// MaxSessionCounter), and the ciphertext seals the signed message's bytes
// with the envelope object's RFC 8785 form as associated data. The header
// has no nonce: the counter is the nonce.
func (c *Codec) decodeSessionSealed(t Value, env *Envelope) (*Envelope, error) {
	h := env.Header
	sv := h.Get("session")
	sid, ok := sv.Str()
	if !ok {
		if sv.kind == Absent {
			return nil, Errorf(ErrMissingField, "envelope.session", "required field missing")
		}
		return nil, typeErr("envelope.session", "string", sv.kind)
	}
	if len(sid) < 16 || !ValidName(sid) {
		return nil, Errorf(ErrInvalidParam, "envelope.session", "want 16 to 128 characters of [A-Za-z0-9_-]")
	}
	cv := h.Get("counter")
	if cv.kind == Absent {
		return nil, Errorf(ErrMissingField, "envelope.counter", "required field missing")
	}
	lit, ok := cv.NumberText()
	if !ok || !isIntLiteral(lit) {
		return nil, typeErr("envelope.counter", "integer", cv.kind)
	}
	n, err := strconv.ParseUint(lit, 10, 64)
	if err != nil || n > MaxSessionCounter || (len(lit) > 1 && lit[0] == '0') {
		return nil, Errorf(ErrInvalidParam, "envelope.counter", "want an integer from 0 to 2^53-1")
	}
	cs, ok := t.Get("ciphertext").Str()
	if !ok {
		return nil, Errorf(ErrMissingField, "ciphertext", "required string field missing")
	}
	ct, err := keys.DecodeBytes(cs, c.limits.MaxMessage+SessionOverhead)
	if err != nil {
		return nil, Errorf(ErrInvalidParam, "ciphertext", "want base64: within the message size limit")
	}
	if len(ct) < SessionOverhead {
		return nil, Errorf(ErrInvalidParam, "ciphertext", "too short")
	}
	env.SessionID, env.Counter, env.Ciphertext = sid, n, ct
	return env, nil
}

// SessionOverhead is the bytes ChaCha20-Poly1305 adds to a plaintext.
const SessionOverhead = 16

// AppendSessionHeader appends the RFC 8785 form of a session envelope's
// header object, which is also the associated data of its ciphertext.
func AppendSessionHeader(dst []byte, session string, counter uint64) []byte {
	dst = append(dst, `{"algorithm":"`+AlgSession+`","counter":`...)
	dst = strconv.AppendUint(dst, counter, 10)
	dst = append(dst, `,"encrypted":true,"session":"`...)
	dst = append(dst, session...)
	return append(dst, `"}`...)
}

// AppendSessionSealed appends a session-sealed envelope. session must be a
// valid session id: it is written without escaping.
func AppendSessionSealed(dst []byte, session string, counter uint64, ciphertext []byte) []byte {
	dst = append(dst, `{"ciphertext":"`...)
	dst = appendB64(dst, ciphertext)
	dst = append(dst, `","envelope":`...)
	dst = AppendSessionHeader(dst, session, counter)
	return append(dst, `,"moltspeak":"`+Version+`"}`...)
}

// The canonical session envelope, as AppendSessionSealed writes it, in the
// pieces between its three variable parts.
const (
	sessionPrefix = `{"ciphertext":"` + keys.Base64Prefix
	sessionMiddle = `","envelope":{"algorithm":"` + AlgSession + `","counter":`
	sessionAfter  = `,"encrypted":true,"session":"`
	sessionSuffix = `"},"moltspeak":"` + Version + `"}`
)

// fastStrict decodes ciphertexts with vector instructions, as strictly as
// keys.DecodeBytes: padding bits must be zero.
var fastStrict = fastb64.StdEncoding.Strict()

// decodeSessionCanonical decodes a session envelope written exactly in its
// canonical form, the form every sender of this package writes, without
// the general JSON parser: session traffic is the bulk of a gateway's
// traffic. It reports false for any other input, which then takes the
// general path; for input it accepts, the general path would return the
// same envelope.
func (c *Codec) decodeSessionCanonical(b []byte) (*Envelope, bool) {
	rest, ok := bytes.CutPrefix(b, []byte(sessionPrefix))
	if !ok {
		return nil, false
	}
	q := bytes.IndexByte(rest, '"')
	if q < 0 {
		return nil, false
	}
	b64 := rest[:q]
	if rest, ok = bytes.CutPrefix(rest[q:], []byte(sessionMiddle)); !ok {
		return nil, false
	}
	n := 0
	for n < len(rest) && n < 17 && rest[n] >= '0' && rest[n] <= '9' {
		n++
	}
	digits := string(rest[:n])
	if n == 0 || n > 16 || (n > 1 && digits[0] == '0') {
		return nil, false
	}
	ctr, err := strconv.ParseUint(digits, 10, 64)
	if err != nil || ctr > MaxSessionCounter {
		return nil, false
	}
	if rest, ok = bytes.CutPrefix(rest[n:], []byte(sessionAfter)); !ok {
		return nil, false
	}
	q = bytes.IndexByte(rest, '"')
	if q < 16 || !bytes.Equal(rest[q:], []byte(sessionSuffix)) {
		return nil, false
	}
	sid := string(rest[:q])
	if !ValidName(sid) {
		return nil, false
	}
	ct, ok := c.ciphertext(b64, SessionOverhead)
	if !ok {
		return nil, false
	}
	return &Envelope{
		Header: ObjectValue(
			Member{"algorithm", StringValue(AlgSession)},
			Member{"counter", Value{kind: Number, s: digits}},
			Member{"encrypted", BoolValue(true)},
			Member{"session", StringValue(sid)},
		),
		Encrypted:  true,
		Algorithm:  AlgSession,
		Ciphertext: ct,
		SessionID:  sid,
		Counter:    ctr,
	}, true
}

// ciphertext decodes the base64 ciphertext of a canonical envelope whose
// sealing adds overhead bytes to the message, refusing what the general
// path would refuse: a length outside [overhead, MaxMessage+overhead], and
// line breaks, which base64 decoders skip but keys.DecodeBytes refuses
// (JSON refuses them raw in a string anyway).
func (c *Codec) ciphertext(b64 []byte, overhead int) ([]byte, bool) {
	max := c.limits.MaxMessage + overhead
	if len(b64)%4 != 0 || base64.StdEncoding.DecodedLen(len(b64)) > max+2 || lineBreak(b64) {
		return nil, false
	}
	ct := make([]byte, base64.StdEncoding.DecodedLen(len(b64)))
	m, err := fastStrict.Decode(ct, b64)
	if err != nil || m < overhead || m > max {
		return nil, false
	}
	return ct[:m], true
}

// lineBreak reports whether b holds a CR or LF, which base64 decoders skip.
func lineBreak(b []byte) bool { return bytes.IndexByte(b, '\n') >= 0 || bytes.IndexByte(b, '\r') >= 0 }

const (
	boxMiddle = `","envelope":{"algorithm":"` + AlgBox + `","encrypted":true,"nonce":"` + keys.Base64Prefix
	boxKey    = `","sender_public":"`
	boxSuffix = `"},"moltspeak":"` + Version + `"}`
)

// decodeBoxCanonical decodes a box-sealed envelope written exactly as
// AppendSealed writes it, without the general JSON parser, as
// decodeSessionCanonical does for session envelopes. Any other input takes
// the general path, which would return the same envelope for input this
// accepts.
func (c *Codec) decodeBoxCanonical(b []byte) (*Envelope, bool) {
	rest, ok := bytes.CutPrefix(b, []byte(sessionPrefix))
	if !ok {
		return nil, false
	}
	q := bytes.IndexByte(rest, '"')
	if q < 0 {
		return nil, false
	}
	b64 := rest[:q]
	if rest, ok = bytes.CutPrefix(rest[q:], []byte(boxMiddle)); !ok {
		return nil, false
	}
	const nonceLen = 32 // base64 of 24 bytes
	if len(rest) < nonceLen {
		return nil, false
	}
	nonceText := rest[:nonceLen]
	if rest, ok = bytes.CutPrefix(rest[nonceLen:], []byte(boxKey)); !ok {
		return nil, false
	}
	const keyLen = len(keys.X25519Prefix) + 44
	if len(rest) < keyLen || !bytes.Equal(rest[keyLen:], []byte(boxSuffix)) {
		return nil, false
	}
	pub, err := keys.ParseX25519Public(string(rest[:keyLen]))
	if err != nil {
		return nil, false
	}
	nonce, err := keys.DecodeBytes(keys.Base64Prefix+string(nonceText), 24)
	if err != nil || len(nonce) != 24 {
		return nil, false
	}
	ct, ok := c.ciphertext(b64, BoxOverhead)
	if !ok {
		return nil, false
	}
	return &Envelope{
		Header: ObjectValue(
			Member{"algorithm", StringValue(AlgBox)},
			Member{"encrypted", BoolValue(true)},
			Member{"nonce", StringValue(keys.Base64Prefix + string(nonceText))},
			Member{"sender_public", StringValue(string(rest[:keyLen]))},
		),
		Encrypted:    true,
		Algorithm:    AlgBox,
		SenderPublic: pub,
		Nonce:        nonce,
		Ciphertext:   ct,
	}, true
}
