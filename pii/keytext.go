package pii

import "strings"

// keyText reports whether s is, whole, one of moltgate's key or signature text forms (package
// keys): ed25519:/x25519: + padded base64 of 32 bytes, or ed25519: + padded base64 of 64. Such
// a value is read whole (seed): a joined view leaves it out, as no part of a value split over
// fields, for its base64 beside its siblings spells tokens by chance ("…=acme" after a body
// that begins "ATATT" reads as an Atlassian token).
func keyText(s string) bool {
	rest, ok := strings.CutPrefix(s, "ed25519:")
	if !ok {
		if rest, ok = strings.CutPrefix(s, "x25519:"); !ok || len(rest) != 44 {
			return false
		}
	}
	// 32 bytes are 43 characters and '=', 64 bytes 86 and "==".
	body := strings.TrimRight(rest, "=")
	if len(rest) != 44 && len(rest) != 88 || len(rest)-len(body) != len(rest)/44 {
		return false
	}
	return span(body, 0, setB64, len(body)) == len(body)
}
