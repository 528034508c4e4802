package wire

import (
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
	SenderPublic keys.X25519Public // sealed envelopes
	Nonce        []byte            // sealed envelopes: 24 bytes for AlgBox
	Ciphertext   []byte            // sealed envelopes

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
	t, info, perr := parse(b, c.limits.MaxDepth+1)
	if perr != nil {
		return nil, perr
	}
	env, err := c.DecodeEnvelopeTree(t)
	if err != nil {
		return nil, err
	}
	if env.Bare {
		env.Message.setRaw(info)
	}
	return env, nil
}

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
	if alg != AlgBox {
		return nil, Errorf(ErrInvalidParam, "envelope.algorithm", "unsupported algorithm (want %s)", AlgBox)
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
