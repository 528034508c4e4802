package osp

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"time"
	"unicode/utf8"
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

// Marshal encodes a message with header h and payload p. A nil payload is sent as {}.
func Marshal(h *Header, p any) ([]byte, error) {
	if p == nil {
		p = struct{}{}
	}
	return json.Marshal(struct {
		*Header
		Payload any `json:"payload"`
	}{h, p})
}

// Decode parses one frame into an Envelope. Failures are *Error values with code
// CodeInvalidFrame (not UTF-8, too deep, not a JSON object), CodeInvalidMessage (required
// envelope fields missing or of the wrong type) or CodeUnsupportedVersion.
func Decode(frame []byte) (*Envelope, error) {
	if !utf8.Valid(frame) {
		return nil, Errorf(CodeInvalidFrame, "frame is not valid UTF-8")
	}
	if !DepthOK(frame, MaxDepth) {
		return nil, Errorf(CodeInvalidFrame, "frame nests deeper than %d levels", MaxDepth)
	}
	b := bytes.TrimLeft(frame, " \t\r\n")
	if len(b) == 0 || b[0] != '{' {
		return nil, Errorf(CodeInvalidFrame, "frame is not a JSON object")
	}
	var e Envelope
	if err := json.Unmarshal(frame, &e); err != nil {
		if _, ok := err.(*json.SyntaxError); ok {
			return nil, Errorf(CodeInvalidFrame, "frame is not valid JSON")
		}
		return nil, Errorf(CodeInvalidMessage, "envelope field has the wrong type")
	}
	switch {
	case e.V != Version:
		return nil, Errorf(CodeUnsupportedVersion, "protocol version %d is not supported", e.V)
	case e.Type == "":
		return nil, Errorf(CodeInvalidMessage, "envelope lacks type")
	case e.ID == "":
		return nil, Errorf(CodeInvalidMessage, "envelope lacks id")
	}
	if p := bytes.TrimLeft(e.Payload, " \t\r\n"); len(p) > 0 && p[0] != '{' && !bytes.Equal(p, []byte("null")) {
		return nil, Errorf(CodeInvalidMessage, "payload is not a JSON object")
	}
	return &e, nil
}

// DecodePayload decodes the envelope's payload into v. Unknown fields are ignored.
func (e *Envelope) DecodePayload(v any) error {
	p := e.Payload
	if len(p) == 0 {
		p = []byte("{}")
	}
	if err := json.Unmarshal(p, v); err != nil {
		return Errorf(CodeInvalidMessage, "payload of %s does not match its schema", e.Type)
	}
	return nil
}

// DepthOK reports whether arrays and objects in the JSON text b nest at most max levels. It
// does not check that b is valid JSON.
func DepthOK(b []byte, max int) bool {
	depth := 0
	for i := 0; i < len(b); i++ {
		switch b[i] {
		case '"':
			// Skip the string; a backslash escapes the byte after it.
			for i++; i < len(b); i++ {
				if b[i] == '\\' {
					i++
				} else if b[i] == '"' {
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
	return string(s[:]), nil
}

// Timestamp formats t as the RFC 3339 timestamp the envelope's ts carries (UTC, milliseconds).
func Timestamp(t time.Time) string {
	return t.UTC().Format("2006-01-02T15:04:05.000Z07:00")
}
