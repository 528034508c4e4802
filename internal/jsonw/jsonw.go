// Package jsonw appends JSON values to byte slices exactly as
// encoding/json writes them, without its reflection: for the encoders of
// hot paths that write many small records (the local bridge's messages,
// audit events, spans).
package jsonw

import (
	"math/bits"
	"time"
	"unicode/utf8"
)

const hexDigits = "0123456789abcdef"

// String appends s as a JSON string as encoding/json does: HTML
// characters, control characters, U+2028 and U+2029 escaped, invalid
// UTF-8 replaced by U+FFFD.
func String(b []byte, s string) []byte { return appendString(b, s, true) }

// StringNoHTML appends s as a JSON string as an encoding/json Encoder does
// with SetEscapeHTML(false): as String, but <, > and & stand as they are.
func StringNoHTML(b []byte, s string) []byte { return appendString(b, s, false) }

func appendString(b []byte, s string, html bool) []byte {
	b = append(b, '"')
	start, i := 0, 0
	for {
		i += plain(s[i:], html)
		if i == len(s) {
			break
		}
		c := s[i]
		if c >= utf8.RuneSelf {
			r, size := utf8.DecodeRuneInString(s[i:])
			switch {
			case r == utf8.RuneError && size == 1:
				b = append(b, s[start:i]...)
				b = append(b, `\ufffd`...)
			case r == '\u2028' || r == '\u2029':
				b = append(b, s[start:i]...)
				b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
			default:
				i += size
				continue
			}
			i += size
			start = i
			continue
		}
		b = append(b, s[start:i]...)
		switch c {
		case '"', '\\':
			b = append(b, '\\', c)
		case '\n':
			b = append(b, '\\', 'n')
		case '\r':
			b = append(b, '\\', 'r')
		case '\t':
			b = append(b, '\\', 't')
		case '\b':
			b = append(b, '\\', 'b')
		case '\f':
			b = append(b, '\\', 'f')
		default: // the other control characters, and <, > and & with html
			b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
		}
		i++
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// Eight bytes at a time, SWAR style: whether any byte of a word is below
// 0x20, a quote, a backslash, 0x80 or above, or (with html) <, > or &. The
// tests are exact for the lowest such byte: a borrow can only mark bytes
// above a true one.

const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
)

func hasZero(w uint64) uint64 { return (w - ones) & ^w & highs }

// plain returns how many leading bytes of s are ASCII that a JSON string
// holds as they are.
func plain(s string, html bool) int {
	i := 0
	for ; i+8 <= len(s); i += 8 {
		_ = s[i+7] // one bounds check, so the eight loads combine into one
		w := uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
			uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
		m := (w-0x20*ones)&^w&highs | hasZero(w^('"'*ones)) | hasZero(w^('\\'*ones)) | w&highs
		if html {
			m |= hasZero(w^('<'*ones)) | hasZero(w^('>'*ones)) | hasZero(w^('&'*ones))
		}
		if m != 0 {
			return i + bits.TrailingZeros64(m)>>3
		}
	}
	table := &noEscape
	if html {
		table = &noEscapeHTML
	}
	for ; i < len(s) && table[s[i]]; i++ {
	}
	return i
}

// noEscape and noEscapeHTML mark the bytes that stand for themselves in a
// JSON string, without and with HTML escaping.
var noEscape, noEscapeHTML = func() (t, h [256]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\'
		h[c] = t[c] && c != '<' && c != '>' && c != '&'
	}
	return t, h
}()

// Time appends t as time.Time's MarshalJSON writes it.
func Time(b []byte, t time.Time) []byte {
	b = append(b, '"')
	b = t.AppendFormat(b, time.RFC3339Nano)
	return append(b, '"')
}
