package pii

import (
	"strings"
	"unicode/utf8"
)

// Escapes. A value leaves as surely written as the escapes of a programming language or of a
// mail body as in plain text: "jane\u0040example.com" (JSON, JavaScript, Java, Python), "\x40"
// (C, Python bytes), "\u{40}" (JavaScript, Rust), and quoted-printable "jane=40example.com"
// (MIME bodies, where "=" at a line's end joins it to the next), C's octal "\100" (printf, shell
// $'...') and CSS's "\40 " (a content property: up to six hex digits, a space ending them when a
// hex digit or another escape could follow). The escapes view decodes the first kinds, with the
// character escapes \n \t \r \" \\ \/ that come with them; the
// quoted-printable view decodes =XX (upper-case hex, as the encoding writes it) and drops soft
// line breaks. Each runs only when the text holds such an escape: a backslash before u, U or x
// and a hex digit, or before a digit and a hex digit, or =XX as noteQP tells it.

// hasEscape reports whether s holds a backslash before 'u', 'U' or 'x' and a hex digit, before
// '{' after 'u', or before a digit and a hex digit (octal or CSS).
func hasEscape(s string) bool {
	for {
		i := strings.IndexByte(s, '\\')
		if i < 0 || i+2 >= len(s) {
			return false
		}
		switch s[i+1] {
		case 'u', 'U', 'x':
			if isHex(s[i+2]) || s[i+1] == 'u' && s[i+2] == '{' {
				return true
			}
		default:
			if isDigit(s[i+1]) && isHex(s[i+2]) {
				return true
			}
		}
		s = s[i+1:]
	}
}

// numericEscape reads an octal or CSS escape at s[i] (a backslash before a digit): three octal
// digits, the first at most 3, are a byte as C writes it; two to six hex digits are a character
// as CSS writes it, a space after them belonging to the escape (one digit is a regular
// expression's back-reference). Three octal digits opening with 0
// are C's (CSS does not pad), and read so before a space too. It returns the rune or byte, how
// many bytes of s the escape takes, and whether it is a byte; n is 0 when s[i:] is neither.
func numericEscape(s string, i int) (r rune, n int, isByte bool) {
	octal := i+3 < len(s) && s[i+1] <= '3' && isOctal(s[i+1]) && isOctal(s[i+2]) && isOctal(s[i+3])
	if octal && s[i+1] == '0' {
		return rune(s[i+2]-'0')<<3 | rune(s[i+3]-'0'), 4, true
	}
	r, k := hexRun(s, i+1, 6)
	if k >= 2 && i+1+k < len(s) && s[i+1+k] == ' ' && r > 0 && utf8.ValidRune(r) {
		return r, k + 2, false
	}
	if octal {
		return rune(s[i+1]-'0')<<6 | rune(s[i+2]-'0')<<3 | rune(s[i+3]-'0'), 4, true
	}
	if k >= 2 && r > 0 && utf8.ValidRune(r) {
		return r, k + 1, false
	}
	return 0, 0, false
}

func isOctal(c byte) bool { return c >= '0' && c <= '7' }

// hexRun reads up to n hex digits at s[i:] and returns their value and how many there were.
func hexRun(s string, i, n int) (rune, int) {
	var r rune
	k := 0
	for k < n && i+k < len(s) && isHex(s[i+k]) {
		r = r<<4 | rune(unhex(s[i+k]))
		k++
	}
	return r, k
}

// escapeView decodes the escapes of s; a nil map when nothing changed.
func escapeView(s string) (string, []int32) {
	b := make([]byte, 0, len(s))
	at := make([]int32, 0, len(s)+1)
	put := func(r rune, from int) {
		n := len(b)
		b = utf8.AppendRune(b, r)
		for ; n < len(b); n++ {
			at = append(at, int32(from))
		}
	}
	changed := false
	for i := 0; i < len(s); {
		c := s[i]
		if c != '\\' || i+1 >= len(s) {
			b = append(b, c)
			at = append(at, int32(i))
			i++
			continue
		}
		switch e := s[i+1]; e {
		case 'u', 'U':
			if e == 'u' && i+2 < len(s) && s[i+2] == '{' {
				r, k := hexRun(s, i+3, 6)
				if k > 0 && i+3+k < len(s) && s[i+3+k] == '}' && utf8.ValidRune(r) {
					put(r, i)
					i, changed = i+4+k, true
					continue
				}
				break
			}
			want := 4
			if e == 'U' {
				want = 8
			}
			r, k := hexRun(s, i+2, want)
			if k != want {
				break
			}
			next := i + 2 + want
			if r >= 0xd800 && r < 0xdc00 && next+6 <= len(s) && s[next] == '\\' && s[next+1] == 'u' {
				// A surrogate pair, as JSON and JavaScript write a character beyond the BMP.
				if lo, k := hexRun(s, next+2, 4); k == 4 && lo >= 0xdc00 && lo < 0xe000 {
					r = 0x10000 + (r-0xd800)<<10 + (lo - 0xdc00)
					next += 6
				}
			}
			if !utf8.ValidRune(r) {
				break
			}
			put(r, i)
			i, changed = next, true
			continue
		case 'x':
			// \xXX is a byte: Python writes the UTF-8 of a character as several.
			if _, k := hexRun(s, i+2, 2); k == 2 {
				b = append(b, unhex(s[i+2])<<4|unhex(s[i+3]))
				at = append(at, int32(i))
				i, changed = i+4, true
				continue
			}
		case '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
			if r, n, isByte := numericEscape(s, i); n > 0 {
				if isByte {
					b = append(b, byte(r))
					at = append(at, int32(i))
				} else {
					put(r, i)
				}
				i, changed = i+n, true
				continue
			}
		case 'n', 't', 'r', '"', '\\', '/', '\'':
			ch := map[byte]byte{'n': '\n', 't': '\t', 'r': '\r'}[e]
			if ch == 0 {
				ch = e
			}
			b = append(b, ch)
			at = append(at, int32(i))
			i += 2
			continue
		}
		b = append(b, c)
		at = append(at, int32(i))
		i++
	}
	if !changed {
		return "", nil
	}
	return string(b), append(at, int32(len(s)))
}

func isUpperHex(c byte) bool { return isDigit(c) || c >= 'A' && c <= 'F' }

// noteQP is told of each '=' the scan meets, at s[i], and notes whether it opens a
// quoted-printable escape (=XX, upper-case hex) as an encoder writes them, not as "rows=1532" or
// "id=42" do: two in a row, or "=40" ('@') after a letter or a digit, unless it opens a UUID
// ("id=4020445f-…"). The scan stops at every '=' already, so prose with none pays nothing.
func (x *scanCtx) noteQP(i int) {
	s := x.s
	if i+3 < len(s) && isUpperHex(s[i+1]) && isUpperHex(s[i+2]) &&
		(s[i+3] == '=' || s[i+1] == '4' && s[i+2] == '0' && i > 0 && isAlnum(s[i-1]) && uuidAt(s, i+1) == i+1) {
		x.qp = true
	}
}

// qpView decodes the =XX escapes of s and drops its soft line breaks ("=" at a line's end).
func qpView(s string) (string, []int32) {
	b := make([]byte, 0, len(s))
	at := make([]int32, 0, len(s)+1)
	for i := 0; i < len(s); {
		c := s[i]
		if c == '=' {
			switch {
			case i+2 < len(s) && isUpperHex(s[i+1]) && isUpperHex(s[i+2]):
				b = append(b, unhex(s[i+1])<<4|unhex(s[i+2]))
				at = append(at, int32(i))
				i += 3
				continue
			case i+1 < len(s) && s[i+1] == '\n':
				i += 2
				continue
			case i+2 < len(s) && s[i+1] == '\r' && s[i+2] == '\n':
				i += 3
				continue
			}
		}
		b = append(b, c)
		at = append(at, int32(i))
		i++
	}
	return string(b), append(at, int32(len(s)))
}
