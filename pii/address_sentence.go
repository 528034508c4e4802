package pii

import "strings"

// sentenceEndWord reports whether the word q ends a sentence with a full stop rather than
// abbreviates one ("Vargas. ", not "St. " or "Dr. "): a street's name before it and a number after
// it in the next sentence ("Avenida Getúlio Vargas. Seat 28F", "chợ Bến Thành. Gate 12") make no
// address.
func sentenceEndWord(s string, q word) bool {
	e := q.b
	if e > q.a && s[e-1] == '.' {
		e--
	}
	return e-q.a >= 4 && e+1 < len(s) && s[e] == '.' && s[e+1] == ' ' && !strings.Contains(s[q.a:e], ".")
}
