package jsonrpc

import (
	"errors"
	"strings"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	jsonv1 "github.com/go-json-experiment/json/v1"
)

// Messages are encoded and decoded with encoding/json's rules (names
// matched without regard to case, the last of duplicate names winning, and
// so on) carried out by go-json-experiment/json. encoding/json checks a
// whole input with a byte-at-a-time state machine before decoding it in a
// second pass, and re-checks every raw value it encodes; here each is read
// once. On a 1 KiB query, JSON was over half of the face's CPU time.

// Unmarshal decodes b into v as encoding/json.Unmarshal does.
func Unmarshal(b []byte, v any) error {
	return jsonv2.Unmarshal(b, v, jsonv1.DefaultOptionsV1())
}

// unmarshalMembers decodes an object into a struct by JSON-RPC's own rules,
// not encoding/json's: member names match exactly, and the last of a name
// given twice wins. b is known to be valid UTF-8.
func unmarshalMembers(b []byte, v any) error {
	return jsonv2.Unmarshal(b, v, jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
}

// MarshalValue encodes v as encoding/json.Marshal does.
func MarshalValue(v any) ([]byte, error) {
	return jsonv2.Marshal(v, jsonv1.DefaultOptionsV1())
}

// Valid reports whether b is one JSON value, by encoding/json.Valid's rules.
func Valid(b []byte) bool {
	return jsontext.Value(b).IsValid(jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
}

// FieldOf names the member an Unmarshal error is about, "a.b" for b in a
// (array indices left out), as encoding/json's UnmarshalTypeError.Field
// does but spelt as the input spelt it; "" if it is not about a member.
func FieldOf(err error) string {
	var ptr string
	var te *jsonv1.UnmarshalTypeError
	var se *jsonv2.SemanticError
	switch {
	case errors.As(err, &te):
		ptr = "/" + strings.ReplaceAll(strings.TrimPrefix(te.Field, "."), ".", "/")
	case errors.As(err, &se):
		ptr = string(se.JSONPointer)
	default:
		return ""
	}
	var names []string
	for tok := range jsontext.Pointer(ptr).Tokens() {
		if tok == "" || strings.Trim(tok, "0123456789") == "" {
			continue // an array index
		}
		names = append(names, tok)
	}
	return strings.Join(names, ".")
}

// IsTypeError reports whether err says a value had the wrong type for
// where it was decoded, rather than that the input was not JSON.
func IsTypeError(err error) bool {
	var te *jsonv1.UnmarshalTypeError
	var se *jsonv2.SemanticError
	return errors.As(err, &te) || errors.As(err, &se)
}
