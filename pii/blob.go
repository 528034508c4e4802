package pii

import (
	"strings"

	"encoding/base32"
	"encoding/base64"
	"encoding/hex"
	"unicode/utf8"
)

// Blobs. A card number, a key or an address sent as base64, base32 or hex is the value all the
// same. The scan records the long words it stops at; each is extended over the base64 alphabet
// (both of them, and '=' padding) and decoded as hex, then base32, then base64, and the first
// decoding that reads as text (see textual) is scanned as a view placed on the whole blob.
// Hashes, random ids and binary payloads decode to bytes that do not read as text, and a look
// at their first 48 decoded bytes is enough to leave them.

// blobViews scans the blob and digit-group candidates recorded from hm on.
func (x *scanCtx) blobViews(hm int) {
	s := x.s
	last := -1
	for k := hm; k+2 < len(x.hints) && k < hm+3*maxHints; k += 3 {
		i, j, kind := int(x.hints[k]), int(x.hints[k+1]), x.hints[k+2]
		if kind == hintDigits {
			x.digitView(i, j)
			continue
		}
		if i < last {
			continue
		}
		a, b := i, j
		for a > 0 && isB64(s[a-1]) {
			a--
		}
		for b < len(s) && isB64(s[b]) {
			b++
		}
		for p := 0; b < len(s) && s[b] == '=' && p < 2; p++ {
			b++
		}
		last = b
		if !x.room(b - a) {
			return
		}
		if text, st := decodeBlob(s[a:b]); st != 0 {
			if t := strings.TrimSpace(text); t != "" && (t[0] == '{' || t[0] == '[') {
				// A document of its own: read as one (see jsonText).
				x.scanView(text, nil, a, b, st, nil)
			} else {
				x.blobInContext(text, a, b, st)
			}
		}
	}
}

// Context around a blob: the words before it say what it is ("the password is c2VjcmV0…",
// "card MzUy…"), so a blob's decoding is scanned in place, between up to blobBefore bytes of the
// text before it and blobAfter after it (cut at a space), and what the view finds on the decoded
// bytes is placed on the whole blob.
const (
	blobBefore = 64
	blobAfter  = 32
)

// blobInContext scans text, the decoding of the blob s[a:b], in place.
func (x *scanCtx) blobInContext(text string, a, b int, st Stage) {
	s := x.s
	lo, hi := max(0, a-blobBefore), min(len(s), b+blobAfter)
	if lo > 0 {
		if k := strings.IndexByte(s[lo:a], ' '); k >= 0 {
			lo += k + 1
		} else {
			lo = a
		}
	}
	if hi < len(s) {
		if k := strings.LastIndexByte(s[b:hi], ' '); k >= 0 {
			hi = b + k
		} else {
			hi = b
		}
	}
	v := make([]byte, 0, a-lo+len(text)+hi-b)
	at := make([]int32, 0, cap(v)+1)
	for i := lo; i < a; i++ {
		v = append(v, s[i])
		at = append(at, int32(i))
	}
	// The decoding stands apart from what touches the blob ("b64:", "=", quotes).
	if a > lo && !isSpaceByte(s[a-1]) {
		v = append(v, ' ')
		at = append(at, int32(a))
	}
	d0 := len(v)
	v = append(v, text...)
	for range len(text) {
		at = append(at, int32(a))
	}
	d1 := len(v)
	if b < hi && !isSpaceByte(s[b]) {
		v = append(v, ' ')
		at = append(at, int32(b))
	}
	for i := b; i < hi; i++ {
		v = append(v, s[i])
		at = append(at, int32(i))
	}
	at = append(at, int32(hi))
	// The decoded bytes all map to the blob's start; scanView stretches a finding that takes
	// any of them over the whole blob.
	x.blobAt = [2]int{a, b}
	x.scanView(string(v), at, 0, 0, st, func(_ string, f Finding) bool { return f.Start < d1 && f.End > d0 })
}

func isB64(c byte) bool { return isAlnum(c) || c == '+' || c == '/' || c == '-' || c == '_' }

// decodeBlob returns the text blob decodes to and the stage that decoded it, or stage 0.
func decodeBlob(blob string) (string, Stage) {
	core := blob
	for len(core) > 0 && core[len(core)-1] == '=' {
		core = core[:len(core)-1]
	}
	if len(core) < minBlobWord {
		return "", 0
	}
	if len(core) > 2 && core[0] == '0' && core[1]|0x20 == 'x' {
		if t, st := decodeBlob(core[2:]); st == StageHex {
			return t, st
		}
	}
	var hexOK, b32OK, std, url = len(core)%2 == 0, true, false, false
	for k := 0; k < len(core); k++ {
		c := core[k]
		if !isHex(c) {
			hexOK = false
		}
		if !(isUpper(c) || c >= '2' && c <= '7') {
			b32OK = false
		}
		switch c {
		case '+', '/':
			std = true
		case '-', '_':
			url = true
		}
	}
	if hexOK && len(core) == len(blob) {
		if t, ok := tryDecode(core, hex.DecodedLen(len(core)), func(d []byte, src string) (int, error) {
			return hex.Decode(d, []byte(src))
		}, 2); ok {
			return t, StageHex
		}
	}
	if b32OK && !std && !url {
		enc := base32.StdEncoding.WithPadding(base32.NoPadding)
		if t, ok := tryDecode(core, enc.DecodedLen(len(core)), func(d []byte, src string) (int, error) {
			return enc.Decode(d, []byte(src))
		}, 8); ok {
			return t, StageBase32
		}
	}
	if std && url || len(core)%4 == 1 {
		return "", 0
	}
	enc := base64.RawStdEncoding
	if url {
		enc = base64.RawURLEncoding
	}
	if t, ok := tryDecode(core, enc.DecodedLen(len(core)), func(d []byte, src string) (int, error) {
		return enc.Decode(d, []byte(src))
	}, 4); ok {
		return t, StageBase64
	}
	return "", 0
}

// tryDecode decodes src with dec (quantum: the input bytes of one whole output group) when its
// first 64 characters, then the whole of it, decode to text.
func tryDecode(src string, n int, dec func(d []byte, src string) (int, error), quantum int) (string, bool) {
	if head := 64 - 64%quantum; len(src) > head {
		var buf [64]byte
		m, err := dec(buf[:], src[:head])
		if err != nil || !textual(buf[:m]) {
			return "", false
		}
	}
	d := make([]byte, n)
	m, err := dec(d, src)
	if err != nil || !textual(d[:m]) {
		return "", false
	}
	return string(d[:m]), true
}

// textual reports whether b reads as text: at least 6 bytes, valid UTF-8, and at least 90% of
// its characters printable or white space. Random bytes pass one time in many thousands.
func textual(b []byte) bool {
	if len(b) < 6 {
		return false
	}
	n, bad := 0, 0
	for i := 0; i < len(b); {
		c := b[i]
		if c < 0x80 {
			if c < 0x20 && c != '\t' && c != '\n' && c != '\r' || c == 0x7f {
				bad++
			}
			n++
			i++
			continue
		}
		r, w := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && w <= 1 {
			if len(b)-i < utf8.UTFMax && !utf8.FullRune(b[i:]) {
				break // cut by the sample's end
			}
			return false
		}
		n++
		i += w
	}
	return bad*10 <= n
}
