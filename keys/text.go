package keys

import (
	"encoding/base64"
	"errors"
	"strings"

	fastb64 "github.com/segmentio/asm/base64"
)

// Text-form prefixes.
const (
	Ed25519Prefix = "ed25519:"
	X25519Prefix  = "x25519:"
	// Base64Prefix introduces opaque bytes (nonces, ciphertexts) on the wire.
	Base64Prefix = "base64:"
)

// Errors returned when a key or signature text is refused. They are wrapped
// in a *ParseError that names what was being parsed.
var (
	ErrPrefix   = errors.New("wrong prefix")
	ErrLength   = errors.New("wrong length")
	ErrEncoding = errors.New("not canonical padded base64")
	ErrLowOrder = errors.New("X25519 public key of low order")
)

// ParseError reports why a key, signature or byte string was refused.
type ParseError struct {
	What string // "ed25519 public key", "x25519 public key", "signature", ...
	Err  error  // one of ErrPrefix, ErrLength, ErrEncoding, ErrLowOrder
}

func (e *ParseError) Error() string { return "parse " + e.What + ": " + e.Err.Error() }
func (e *ParseError) Unwrap() error { return e.Err }

var strictB64 = base64.StdEncoding.Strict()

// fastStrict decodes long values (ciphertexts) with vector instructions; it
// is as strict as strictB64 (padding bits must be zero).
var fastStrict = fastb64.StdEncoding.Strict()

// decodeFixed parses prefix + padded base64 of exactly n bytes into dst.
func decodeFixed(dst []byte, s, prefix, what string) error {
	rest, ok := strings.CutPrefix(s, prefix)
	if !ok {
		return &ParseError{what, ErrPrefix}
	}
	if len(rest) != base64.StdEncoding.EncodedLen(len(dst)) {
		return &ParseError{what, ErrLength}
	}
	// Decode writes up to DecodedLen bytes, which exceeds len(dst) by the
	// padding; decode into a scratch buffer large enough for any fixed key.
	var scratch [72]byte
	if hasLineBreak(rest) {
		return &ParseError{what, ErrEncoding}
	}
	n, err := strictB64.Decode(scratch[:], []byte(rest))
	if err != nil || n != len(dst) {
		return &ParseError{what, ErrEncoding}
	}
	copy(dst, scratch[:n])
	clear(scratch[:])
	return nil
}

func encodeFixed(prefix string, b []byte) string {
	// Written in place in the string's own memory: every message a gateway
	// signs spells out its sender's keys, and a []byte then converted would
	// be allocated twice.
	var sb strings.Builder
	sb.Grow(len(prefix) + base64.StdEncoding.EncodedLen(len(b)))
	sb.WriteString(prefix)
	var enc [64]byte
	if n := base64.StdEncoding.EncodedLen(len(b)); n <= len(enc) {
		base64.StdEncoding.Encode(enc[:n], b)
		sb.Write(enc[:n])
	} else {
		sb.WriteString(base64.StdEncoding.EncodeToString(b))
	}
	return sb.String()
}

// AppendText appends prefix and the padded base64 of b to dst.
func appendText(dst []byte, prefix string, b []byte) []byte {
	dst = append(dst, prefix...)
	return base64.StdEncoding.AppendEncode(dst, b)
}

// EncodeBytes gives the "base64:" text form of b, used for nonces and
// ciphertexts.
func EncodeBytes(b []byte) string { return string(AppendBytes(nil, b)) }

// AppendBytes appends the "base64:" text form of b to dst.
func AppendBytes(dst, b []byte) []byte {
	dst = append(dst, Base64Prefix...)
	n := len(dst)
	dst = append(dst, make([]byte, base64.StdEncoding.EncodedLen(len(b)))...)
	fastb64.StdEncoding.Encode(dst[n:], b)
	return dst
}

// DecodeBytes parses the "base64:" text form. It refuses a missing prefix and
// non-canonical base64: the wrong alphabet, missing padding, non-zero
// padding bits, and line breaks (which base64 decoders otherwise skip). max
// bounds the decoded length; 0 means no bound.
func DecodeBytes(s string, max int) ([]byte, error) {
	rest, ok := strings.CutPrefix(s, Base64Prefix)
	if !ok {
		return nil, &ParseError{"base64 bytes", ErrPrefix}
	}
	if max > 0 && base64.StdEncoding.DecodedLen(len(rest)) > max+2 {
		return nil, &ParseError{"base64 bytes", ErrLength}
	}
	if len(rest)%4 != 0 || hasLineBreak(rest) {
		return nil, &ParseError{"base64 bytes", ErrEncoding}
	}
	b := make([]byte, base64.StdEncoding.DecodedLen(len(rest)))
	n, err := fastStrict.Decode(b, []byte(rest))
	if err != nil {
		return nil, &ParseError{"base64 bytes", ErrEncoding}
	}
	b = b[:n]
	if max > 0 && len(b) > max {
		return nil, &ParseError{"base64 bytes", ErrLength}
	}
	return b, nil
}

// Signature is an Ed25519 signature.
type Signature [64]byte

// String gives the "ed25519:" text form (88 base64 characters).
func (s Signature) String() string { return encodeFixed(Ed25519Prefix, s[:]) }

// AppendText implements encoding.TextAppender.
func (s Signature) AppendText(b []byte) ([]byte, error) {
	return appendText(b, Ed25519Prefix, s[:]), nil
}

// ParseSignature parses the "ed25519:" text form of a signature.
func ParseSignature(s string) (Signature, error) {
	var sig Signature
	if err := decodeFixed(sig[:], s, Ed25519Prefix, "signature"); err != nil {
		return Signature{}, err
	}
	return sig, nil
}

// MarshalText implements encoding.TextMarshaler.
func (s Signature) MarshalText() ([]byte, error) { return s.AppendText(nil) }

// UnmarshalText implements encoding.TextUnmarshaler with ParseSignature.
func (s *Signature) UnmarshalText(b []byte) error {
	p, err := ParseSignature(string(b))
	if err != nil {
		return err
	}
	*s = p
	return nil
}

// IsZero reports whether s is the zero value (no signature).
func (s Signature) IsZero() bool { return s == Signature{} }

// hasLineBreak reports whether s has a CR or LF, which base64 decoders skip
// even in strict mode; refusing them keeps one spelling per value.
func hasLineBreak(s string) bool {
	return strings.IndexByte(s, '\n') >= 0 || strings.IndexByte(s, '\r') >= 0
}
