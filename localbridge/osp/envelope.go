package osp

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"sync"
	"unicode/utf8"

	jsonv2 "github.com/go-json-experiment/json"
)

// Version is the protocol version this package speaks.
const Version = 1

// MaxDepth is how deeply arrays and objects may nest in one frame. The envelope and payload
// take three levels; the rest is left to tool inputs and outputs.
const MaxDepth = 128

// Header holds the envelope fields of a message, everything but the payload.
type Header struct {
	V             int    `json:"v"`
	Type          string `json:"type"`
	ID            string `json:"id"`
	TS            string `json:"ts"`
	InReplyTo     string `json:"in_reply_to,omitempty"`
	RequestID     string `json:"request_id,omitempty"`
	CorrelationID string `json:"correlation_id,omitempty"`
	CausationID   string `json:"causation_id,omitempty"`
	Actor         *Actor `json:"actor,omitempty"`
	Error         *Error `json:"error,omitempty"`
}

// Envelope is a received message: its header and the still-encoded payload.
type Envelope struct {
	Header
	Payload json.RawMessage `json:"payload"`

	valid   bool // Payload is known to be valid JSON
	hot     any  // the payload, decoded with the envelope
	hotKind bool // a member of hot had a value of the wrong kind
}

// Actor attributes a message to a human, agent or system. It is metadata, never authority.
type Actor struct {
	Type    string `json:"type"`
	ID      string `json:"id"`
	Display string `json:"display,omitempty"`
}

// Error is the standard error object. Its text must never carry secrets or the content that
// was rejected.
type Error struct {
	Code      string          `json:"code"`
	Message   string          `json:"message"`
	Details   json.RawMessage `json:"details,omitempty"`
	Retryable bool            `json:"retryable,omitempty"`
	Where     string          `json:"where,omitempty"`
}

func (e *Error) Error() string {
	if e.Message == "" {
		return e.Code
	}
	return e.Code + ": " + e.Message
}

// Errorf returns an Error with the given code and formatted message.
func Errorf(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// Decode parses one frame into an Envelope. Failures are *Error values with code
// CodeInvalidFrame (not UTF-8, too deep, not one JSON object, a member name twice),
// CodeInvalidMessage (required envelope fields missing or of the wrong type) or
// CodeUnsupportedVersion. Member names match exactly; unknown members are ignored.
func Decode(frame []byte) (*Envelope, error) {
	if !utf8.Valid(frame) {
		return nil, Errorf(CodeInvalidFrame, "frame is not valid UTF-8")
	}
	// One copy of the frame, which the caller reuses: the payload and the raw values in it
	// point into it. The strings of a small frame share a second copy, made as a string, so
	// that they cost one allocation rather than one each.
	p := &parser{b: append([]byte(nil), frame...), maxDepth: MaxDepth}
	if len(frame) <= shareLimit {
		p.s = string(frame)
	}
	if p.next() != '{' {
		return nil, Errorf(CodeInvalidFrame, "frame is not a JSON object")
	}
	// e is filled where it is and moved to the heap once it is known to be good, together
	// with its payload when that was decoded in the same pass: one allocation for both.
	e := Envelope{valid: true}
	var home *Envelope
	decodeEnvelope(p, &e, &home)
	switch {
	case p.tooDeep:
		return nil, Errorf(CodeInvalidFrame, "frame nests deeper than %d levels", MaxDepth)
	case p.syntax:
		return nil, Errorf(CodeInvalidFrame, "frame is not valid JSON")
	case p.kind:
		return nil, Errorf(CodeInvalidMessage, "envelope field has the wrong type")
	case e.V != Version:
		return nil, Errorf(CodeUnsupportedVersion, "protocol version %d is not supported", e.V)
	case e.Type == "":
		return nil, Errorf(CodeInvalidMessage, "envelope lacks type")
	case e.ID == "":
		return nil, Errorf(CodeInvalidMessage, "envelope lacks id")
	}
	if p := e.Payload; len(p) > 0 && p[0] != '{' && !bytes.Equal(p, []byte("null")) {
		return nil, Errorf(CodeInvalidMessage, "payload is not a JSON object")
	}
	if home == nil {
		home = new(Envelope)
	}
	*home = e
	return home, nil
}

// DecodePayload decodes the envelope's payload into v. Member names match exactly; unknown
// members are ignored.
func (e *Envelope) DecodePayload(v any) error {
	if e.hot != nil && takeHot(e.hot, v) {
		if e.hotKind {
			return Errorf(CodeInvalidMessage, "payload of %s does not match its schema", e.Type)
		}
		return nil
	}
	p := e.Payload
	if len(p) == 0 || bytes.Equal(p, []byte("null")) {
		p = []byte("{}")
	}
	if e.valid || utf8.Valid(p) {
		if handled, _, ok := decodeFast(p, v); handled {
			if !ok {
				return Errorf(CodeInvalidMessage, "payload of %s does not match its schema", e.Type)
			}
			return nil
		}
	}
	if err := jsonv2.Unmarshal(p, v); err != nil {
		return Errorf(CodeInvalidMessage, "payload of %s does not match its schema", e.Type)
	}
	return nil
}

// PayloadOf returns the envelope's payload as a *T. The payloads of the call path, decoded
// with the envelope, are returned as they are, without the copy DecodePayload makes; others
// are decoded as DecodePayload does.
func PayloadOf[T any](e *Envelope) (*T, error) {
	if h, ok := e.hot.(*T); ok {
		if e.hotKind {
			return nil, Errorf(CodeInvalidMessage, "payload of %s does not match its schema", e.Type)
		}
		return h, nil
	}
	v := new(T)
	if err := e.DecodePayload(v); err != nil {
		return nil, err
	}
	return v, nil
}

// unmarshalRare decodes what the fast path leaves to the reflective decoder.
func unmarshalRare(b []byte, v any) error { return jsonv2.Unmarshal(b, v) }

// DepthOK reports whether arrays and objects in the JSON text b nest at most max levels. It
// does not check that b is valid JSON.
func DepthOK(b []byte, max int) bool {
	depth := 0
	for i := 0; i < len(b); i++ {
		switch b[i] {
		case '"':
			// Skip the string: find a quote not escaped by an odd run of backslashes.
			for {
				j := bytes.IndexByte(b[i+1:], '"')
				if j < 0 {
					return true
				}
				i += j + 1
				n := 0
				for k := i - 1; b[k] == '\\'; k-- {
					n++
				}
				if n%2 == 0 {
					break
				}
			}
		case '[', '{':
			depth++
			if depth > max {
				return false
			}
		case ']', '}':
			depth--
		}
	}
	return true
}

// NewID returns a random UUID (version 4) read from r.
func NewID(r io.Reader) (string, error) {
	var b [16]byte
	if _, err := io.ReadFull(r, b[:]); err != nil {
		return "", fmt.Errorf("read random id: %w", err)
	}
	return formatUUID(b), nil
}

// IDSource makes message and call ids: random UUIDs (version 4) drawn from a ChaCha8 stream
// seeded once from a random source, which costs far less than a read of the system's
// randomness per id. Ids are unique, not secret. It is safe for concurrent use.
type IDSource struct {
	mu sync.Mutex
	c  *rand.ChaCha8
}

// NewIDSource seeds an IDSource from r.
func NewIDSource(r io.Reader) (*IDSource, error) {
	var seed [32]byte
	if _, err := io.ReadFull(r, seed[:]); err != nil {
		return nil, fmt.Errorf("seed id source: %w", err)
	}
	return &IDSource{c: rand.NewChaCha8(seed)}, nil
}

// New returns a fresh id.
func (g *IDSource) New() string {
	var b [16]byte
	g.mu.Lock()
	g.c.Read(b[:])
	g.mu.Unlock()
	return formatUUID(b)
}

func formatUUID(b [16]byte) string {
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	var s [36]byte
	hex.Encode(s[0:8], b[0:4])
	s[8] = '-'
	hex.Encode(s[9:13], b[4:6])
	s[13] = '-'
	hex.Encode(s[14:18], b[6:8])
	s[18] = '-'
	hex.Encode(s[19:23], b[8:10])
	s[23] = '-'
	hex.Encode(s[24:], b[10:])
	return string(s[:])
}
