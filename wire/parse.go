package wire

import (
	"math"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// maxSafeInteger is 2^53-1, the largest integer every float64 holds exactly.
const maxSafeInteger = 1<<53 - 1

// MaxDepth is the default limit on nesting: a message object is depth 1, its
// payload object depth 2, and so on.
const MaxDepth = 64

// Parse parses exactly one JSON value from b, strictly: it refuses invalid
// UTF-8, lone surrogate escapes, duplicate object keys, numbers outside the
// float64 range, a byte order mark, nesting deeper than maxDepth (0 means
// MaxDepth) and anything after the value but whitespace. Every refusal is an
// *Error with code E_PARSE and the path of the offending value.
//
// The returned Value does not alias b.
func Parse(b []byte, maxDepth int) (Value, error) {
	if maxDepth <= 0 {
		maxDepth = MaxDepth
	}
	// One copy of the input: every unescaped string is then a substring of
	// it, with no further allocation.
	p := parser{s: string(b), maxDepth: maxDepth}
	p.skipSpace()
	v, err := p.value()
	if err != nil {
		return Value{}, err
	}
	p.skipSpace()
	if p.i != len(p.s) {
		return Value{}, p.fail("unexpected data after the JSON value")
	}
	return v, nil
}

type parser struct {
	s        string
	i        int
	depth    int
	maxDepth int
	buf      []byte // scratch for strings with escapes
}

func (p *parser) fail(msg string) *Error {
	return &Error{Code: ErrParse, Message: msg + " at byte " + strconv.Itoa(p.i)}
}

func (p *parser) skipSpace() {
	for p.i < len(p.s) {
		switch p.s[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

func (p *parser) value() (Value, *Error) {
	if p.i >= len(p.s) {
		return Value{}, p.fail("unexpected end of input")
	}
	switch c := p.s[p.i]; {
	case c == '{':
		return p.object()
	case c == '[':
		return p.array()
	case c == '"':
		s, err := p.str()
		return Value{kind: String, s: s}, err
	case c == '-' || c >= '0' && c <= '9':
		return p.number()
	case c == 't':
		return p.literal("true", Value{kind: True})
	case c == 'f':
		return p.literal("false", Value{kind: False})
	case c == 'n':
		return p.literal("null", Value{kind: Null})
	case c == 0xEF && len(p.s) > p.i+2 && p.s[p.i+1] == 0xBB && p.s[p.i+2] == 0xBF:
		return Value{}, p.fail("byte order mark")
	default:
		return Value{}, p.fail("unexpected character " + strconv.QuoteRune(rune(c)))
	}
}

func (p *parser) literal(word string, v Value) (Value, *Error) {
	if len(p.s)-p.i < len(word) || p.s[p.i:p.i+len(word)] != word {
		return Value{}, p.fail("invalid literal")
	}
	p.i += len(word)
	return v, nil
}

func (p *parser) enter() *Error {
	p.depth++
	if p.depth > p.maxDepth {
		return p.fail("nesting deeper than " + strconv.Itoa(p.maxDepth))
	}
	return nil
}

func (p *parser) object() (Value, *Error) {
	if err := p.enter(); err != nil {
		return Value{}, err
	}
	p.i++ // {
	p.skipSpace()
	var members []Member
	var seen map[string]struct{}
	if p.i < len(p.s) && p.s[p.i] == '}' {
		p.i++
		p.depth--
		return Value{kind: Object, items: []Member{}}, nil
	}
	for {
		if p.i >= len(p.s) || p.s[p.i] != '"' {
			return Value{}, p.fail("expected a string key")
		}
		key, err := p.str()
		if err != nil {
			return Value{}, err
		}
		// Duplicate keys make a message mean different things to
		// different parsers; refuse them.
		dup := false
		if seen != nil {
			_, dup = seen[key]
			seen[key] = struct{}{}
		} else {
			for j := range members {
				if members[j].Key == key {
					dup = true
					break
				}
			}
			if len(members) >= 16 {
				seen = make(map[string]struct{}, 2*len(members))
				for j := range members {
					seen[members[j].Key] = struct{}{}
				}
				seen[key] = struct{}{}
			}
		}
		if dup {
			e := p.fail("duplicate key")
			return Value{}, e.prefixField(JoinPath("", key))
		}
		p.skipSpace()
		if p.i >= len(p.s) || p.s[p.i] != ':' {
			return Value{}, p.fail("expected ':'")
		}
		p.i++
		p.skipSpace()
		v, err := p.value()
		if err != nil {
			return Value{}, err.prefixField(JoinPath("", key))
		}
		if members == nil {
			members = make([]Member, 0, 8)
		}
		members = append(members, Member{key, v})
		p.skipSpace()
		if p.i >= len(p.s) {
			return Value{}, p.fail("unexpected end of input in object")
		}
		switch p.s[p.i] {
		case ',':
			p.i++
			p.skipSpace()
		case '}':
			p.i++
			p.depth--
			return Value{kind: Object, items: members}, nil
		default:
			return Value{}, p.fail("expected ',' or '}'")
		}
	}
}

func (p *parser) array() (Value, *Error) {
	if err := p.enter(); err != nil {
		return Value{}, err
	}
	p.i++ // [
	p.skipSpace()
	var items []Member
	if p.i < len(p.s) && p.s[p.i] == ']' {
		p.i++
		p.depth--
		return Value{kind: Array, items: []Member{}}, nil
	}
	for {
		v, err := p.value()
		if err != nil {
			return Value{}, err.prefixField(IndexPath("", len(items)))
		}
		items = append(items, Member{Value: v})
		p.skipSpace()
		if p.i >= len(p.s) {
			return Value{}, p.fail("unexpected end of input in array")
		}
		switch p.s[p.i] {
		case ',':
			p.i++
			p.skipSpace()
		case ']':
			p.i++
			p.depth--
			return Value{kind: Array, items: items}, nil
		default:
			return Value{}, p.fail("expected ',' or ']'")
		}
	}
}

// str parses a string starting at the opening quote.
func (p *parser) str() (string, *Error) {
	p.i++ // opening quote
	start := p.i
	// First pass: find the end, validating UTF-8. A string without escapes
	// (the common case) is then a substring of the input, with no copy.
	for p.i < len(p.s) {
		// Skip plain ASCII eight bytes at a time, then byte by byte.
		for p.i+8 <= len(p.s) && plainASCII8(p.s[p.i:p.i+8]) {
			p.i += 8
		}
		for p.i < len(p.s) && plainASCII[p.s[p.i]] {
			p.i++
		}
		if p.i >= len(p.s) {
			break
		}
		c := p.s[p.i]
		switch {
		case c == '"':
			s := p.s[start:p.i]
			p.i++
			return s, nil
		case c == '\\':
			return p.escapedStr(start)
		case c < 0x20:
			return "", p.fail("control character in string")
		case c < 0x80:
			p.i++
		default:
			r, n := utf8.DecodeRuneInString(p.s[p.i:])
			if r == utf8.RuneError && n <= 1 {
				return "", p.fail("invalid UTF-8 in string")
			}
			p.i += n
		}
	}
	return "", p.fail("unterminated string")
}

// escapedStr decodes the rest of a string that has escapes; p.i is at the
// first backslash and start at the first byte of the string.
func (p *parser) escapedStr(start int) (string, *Error) {
	buf := append(p.buf[:0], p.s[start:p.i]...)
	for {
		if p.i >= len(p.s) {
			return "", p.fail("unterminated string")
		}
		c := p.s[p.i]
		switch {
		case c == '"':
			p.i++
			p.buf = buf
			return string(buf), nil
		case c < 0x20:
			return "", p.fail("control character in string")
		case c < 0x80 && c != '\\':
			buf = append(buf, c)
			p.i++
		case c >= 0x80:
			r, n := utf8.DecodeRuneInString(p.s[p.i:])
			if r == utf8.RuneError && n <= 1 {
				return "", p.fail("invalid UTF-8 in string")
			}
			buf = append(buf, p.s[p.i:p.i+n]...)
			p.i += n
		default: // backslash
			if p.i+1 >= len(p.s) {
				return "", p.fail("unterminated escape")
			}
			e := p.s[p.i+1]
			p.i += 2
			switch e {
			case '"', '\\', '/':
				buf = append(buf, e)
			case 'b':
				buf = append(buf, '\b')
			case 'f':
				buf = append(buf, '\f')
			case 'n':
				buf = append(buf, '\n')
			case 'r':
				buf = append(buf, '\r')
			case 't':
				buf = append(buf, '\t')
			case 'u':
				r, ok := p.hex4()
				if !ok {
					return "", p.fail("invalid \\u escape")
				}
				if utf16.IsSurrogate(r) {
					// Only a high surrogate followed by a low one
					// is a character; anything else is not Unicode.
					if r >= 0xDC00 || p.i+1 >= len(p.s) || p.s[p.i] != '\\' || p.s[p.i+1] != 'u' {
						return "", p.fail("lone surrogate in string")
					}
					p.i += 2
					r2, ok := p.hex4()
					if !ok || r2 < 0xDC00 || r2 > 0xDFFF {
						return "", p.fail("lone surrogate in string")
					}
					r = utf16.DecodeRune(r, r2)
				}
				buf = utf8.AppendRune(buf, r)
			default:
				return "", p.fail("invalid escape")
			}
		}
	}
}

func (p *parser) hex4() (rune, bool) {
	if len(p.s)-p.i < 4 {
		return 0, false
	}
	var r rune
	for j := 0; j < 4; j++ {
		c := p.s[p.i+j]
		switch {
		case c >= '0' && c <= '9':
			r = r<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	p.i += 4
	return r, true
}

func (p *parser) number() (Value, *Error) {
	start := p.i
	if p.s[p.i] == '-' {
		p.i++
	}
	digits := func() int {
		n := 0
		for p.i < len(p.s) && p.s[p.i] >= '0' && p.s[p.i] <= '9' {
			p.i++
			n++
		}
		return n
	}
	switch {
	case p.i < len(p.s) && p.s[p.i] == '0':
		p.i++
	case digits() == 0:
		return Value{}, p.fail("invalid number")
	}
	simple := true
	if p.i < len(p.s) && p.s[p.i] == '.' {
		p.i++
		simple = false
		if digits() == 0 {
			return Value{}, p.fail("invalid number")
		}
	}
	if p.i < len(p.s) && (p.s[p.i] == 'e' || p.s[p.i] == 'E') {
		p.i++
		simple = false
		if p.i < len(p.s) && (p.s[p.i] == '+' || p.s[p.i] == '-') {
			p.i++
		}
		if digits() == 0 {
			return Value{}, p.fail("invalid number")
		}
	}
	if p.i < len(p.s) && p.s[p.i] >= '0' && p.s[p.i] <= '9' {
		return Value{}, p.fail("invalid number (leading zero)")
	}
	lit := p.s[start:p.i]
	// RFC 8785 signs a number as its float64 value, so two integer literals
	// beyond 2^53 can share one canonical form and a signature: refuse
	// them (I-JSON's limit) rather than let a signed amount be swapped.
	if simple && len(lit) > 15 {
		n, err := strconv.ParseInt(lit, 10, 64)
		if err != nil || n > maxSafeInteger || n < -maxSafeInteger {
			return Value{}, p.fail("integer beyond ±(2^53-1) cannot be signed exactly; send it as a string")
		}
	}
	if !simple {
		f, err := strconv.ParseFloat(lit, 64)
		if err != nil && math.IsInf(f, 0) {
			return Value{}, p.fail("number outside the float64 range")
		}
	}
	return Value{kind: Number, s: lit}, nil
}

// plainASCII marks the bytes a string may hold as they are: printable
// ASCII other than '"' and '\\'.
var plainASCII = func() (t [256]bool) {
	for c := 0x20; c < 0x80; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// plainASCII8 reports whether all eight bytes of s are plain ASCII, with
// word-at-a-time arithmetic: no byte >= 0x80, < 0x20, '"' or '\\'.
func plainASCII8(s string) bool {
	x := uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
	const lo, hi = 0x0101010101010101, 0x8080808080808080
	// A byte is "bad" if it has the high bit, is below 0x20, or equals
	// 0x22 or 0x5c; hasZero-style tests find each case.
	below := (x - lo*0x20) & ^x
	quote := x ^ (lo * '"')
	bslash := x ^ (lo * '\\')
	bad := (x | below | ((quote - lo) & ^quote) | ((bslash - lo) & ^bslash)) & hi
	return bad == 0
}
