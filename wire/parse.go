package wire

import (
	"bytes"
	"encoding/binary"
	"math"
	"strconv"
	"sync"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"
)

// maxSafeInteger is 2^53-1, the largest integer every float64 holds exactly.
const maxSafeInteger = 1<<53 - 1

// MaxDepth is the default limit on nesting: a message object is depth 1, its
// payload object depth 2, and so on.
const MaxDepth = 64

// Parse parses exactly one JSON value from b, strictly: it refuses invalid
// UTF-8, lone surrogate escapes, duplicate object keys, numbers outside the
// float64 range, integers beyond ±(2^53-1), a byte order mark, nesting
// deeper than maxDepth (0 means MaxDepth) and anything after the value but
// whitespace. Every refusal is an *Error with code E_PARSE and the path of
// the offending value.
//
// The returned Value does not alias b.
func Parse(b []byte, maxDepth int) (Value, error) {
	v, _, err := parse(b, maxDepth)
	if err != nil {
		return Value{}, err
	}
	return v, nil
}

// parseInfo tells what a parse learnt about the input beyond its value.
type parseInfo struct {
	// canonical is set when the input is exactly its own RFC 8785 form.
	canonical bool
	// own is the parser's private copy of the input; parsed strings point
	// into it.
	own []byte
	// sigStart and sigEnd delimit the top-level "sig" member in own,
	// together with one comma, so that own without them is the object
	// without "sig". Both are zero if there is no such member.
	sigStart, sigEnd int
}

func parse(b []byte, maxDepth int) (Value, parseInfo, *Error) {
	if maxDepth <= 0 {
		maxDepth = MaxDepth
	}
	// One private copy of the input: every unescaped string is a view of
	// it, with no further allocation. The copy is never written after
	// this, which is what makes the views safe.
	own := make([]byte, len(b))
	copy(own, b)
	p := parser{b: own, maxDepth: maxDepth, canonical: true}
	sp := parseStacks.Get().(*[]Member)
	p.stack = (*sp)[:0]
	p.skipSpace()
	v, err := p.value()
	if cap(p.stack) <= maxPooledStack {
		// Members point into own: none may be kept past this parse.
		clear(p.stack[:cap(p.stack)])
		*sp = p.stack[:0]
		parseStacks.Put(sp)
	}
	if err != nil {
		return Value{}, parseInfo{}, err
	}
	p.skipSpace()
	if p.i != len(p.b) {
		return Value{}, parseInfo{}, p.fail("unexpected data after the JSON value")
	}
	return v, parseInfo{canonical: p.canonical, own: own, sigStart: p.sigStart, sigEnd: p.sigEnd}, nil
}

// parseStacks recycles the parser's stack of members: it lives for one
// parse (each object's and array's members are copied out when it ends),
// and allocating it afresh was a tenth of the bytes a gateway allocates.
var parseStacks = sync.Pool{New: func() any { s := make([]Member, 0, 32); return &s }}

// maxPooledStack bounds the stacks kept for reuse.
const maxPooledStack = 1024

type parser struct {
	b        []byte
	i        int
	depth    int
	maxDepth int
	scratch  []byte   // for strings with escapes
	stack    []Member // members of the objects and arrays being parsed

	canonical        bool
	sigStart, sigEnd int
}

// view returns b[i:j] as a string without copying. Safe because p.b is the
// parser's own copy and is never modified.
func (p *parser) view(i, j int) string {
	if i == j {
		return ""
	}
	return unsafe.String(&p.b[i], j-i)
}

func (p *parser) fail(msg string) *Error {
	return &Error{Code: ErrParse, Message: msg + " at byte " + strconv.Itoa(p.i)}
}

func (p *parser) skipSpace() {
	start := p.i
	for p.i < len(p.b) {
		switch p.b[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			if p.i != start {
				p.canonical = false
			}
			return
		}
	}
	if p.i != start {
		p.canonical = false
	}
}

func (p *parser) value() (Value, *Error) {
	if p.i >= len(p.b) {
		return Value{}, p.fail("unexpected end of input")
	}
	switch c := p.b[p.i]; {
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
	case c == 0xEF && len(p.b) > p.i+2 && p.b[p.i+1] == 0xBB && p.b[p.i+2] == 0xBF:
		return Value{}, p.fail("byte order mark")
	default:
		return Value{}, p.fail("unexpected character " + strconv.QuoteRune(rune(c)))
	}
}

func (p *parser) literal(word string, v Value) (Value, *Error) {
	if len(p.b)-p.i < len(word) || string(p.b[p.i:p.i+len(word)]) != word {
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

// finish moves the members collected on the stack since base into a slice
// of their own and returns it.
func (p *parser) finish(base int) []Member {
	out := make([]Member, len(p.stack)-base)
	copy(out, p.stack[base:])
	p.stack = p.stack[:base]
	return out
}

func (p *parser) object() (Value, *Error) {
	if err := p.enter(); err != nil {
		return Value{}, err
	}
	top := p.depth == 1
	p.i++ // {
	p.skipSpace()
	base := len(p.stack)
	var seen map[string]struct{}
	if p.i < len(p.b) && p.b[p.i] == '}' {
		p.i++
		p.depth--
		return Value{kind: Object, items: []Member{}}, nil
	}
	for {
		if p.i >= len(p.b) || p.b[p.i] != '"' {
			return Value{}, p.fail("expected a string key")
		}
		memberStart := p.i
		key, err := p.str()
		if err != nil {
			return Value{}, err
		}
		// Duplicate keys make a message mean different things to
		// different parsers; refuse them.
		members := p.stack[base:]
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
		if p.canonical && len(members) > 0 && !lessUTF16(members[len(members)-1].Key, key) {
			p.canonical = false
		}
		p.skipSpace()
		if p.i >= len(p.b) || p.b[p.i] != ':' {
			return Value{}, p.fail("expected ':'")
		}
		p.i++
		p.skipSpace()
		v, err := p.value()
		if err != nil {
			return Value{}, err.prefixField(JoinPath("", key))
		}
		if top && key == "sig" {
			if len(members) > 0 {
				p.sigStart, p.sigEnd = memberStart-1, p.i // with the comma before
			} else {
				p.sigStart, p.sigEnd = memberStart, p.i+1 // with the comma after
			}
		}
		p.stack = append(p.stack, Member{key, v})
		p.skipSpace()
		if p.i >= len(p.b) {
			return Value{}, p.fail("unexpected end of input in object")
		}
		switch p.b[p.i] {
		case ',':
			p.i++
			p.skipSpace()
		case '}':
			p.i++
			p.depth--
			if top && p.sigEnd > p.i {
				p.sigStart, p.sigEnd = 0, 0 // "sig" was the only member
			}
			return Value{kind: Object, items: p.finish(base)}, nil
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
	base := len(p.stack)
	if p.i < len(p.b) && p.b[p.i] == ']' {
		p.i++
		p.depth--
		return Value{kind: Array, items: []Member{}}, nil
	}
	for {
		idx := len(p.stack) - base
		v, err := p.value()
		if err != nil {
			return Value{}, err.prefixField(IndexPath("", idx))
		}
		p.stack = append(p.stack, Member{Value: v})
		p.skipSpace()
		if p.i >= len(p.b) {
			return Value{}, p.fail("unexpected end of input in array")
		}
		switch p.b[p.i] {
		case ',':
			p.i++
			p.skipSpace()
		case ']':
			p.i++
			p.depth--
			return Value{kind: Array, items: p.finish(base)}, nil
		default:
			return Value{}, p.fail("expected ',' or ']'")
		}
	}
}

// str parses a string starting at the opening quote.
func (p *parser) str() (string, *Error) {
	p.i++ // opening quote
	start := p.i
	// Find the closing quote and any backslash with the runtime's vector
	// search, then check the span between for control characters and
	// non-ASCII bytes a word at a time. A string without escapes (the
	// common case) is a view of the input, with no copy.
	q := bytes.IndexByte(p.b[start:], '"')
	if q < 0 {
		p.i = len(p.b)
		return "", p.fail("unterminated string")
	}
	span := p.b[start : start+q]
	if bs := bytes.IndexByte(span, '\\'); bs >= 0 {
		if err := p.checkPlain(span[:bs], start); err != nil {
			return "", err
		}
		p.i = start + bs
		return p.escapedStr(start)
	}
	if err := p.checkPlain(span, start); err != nil {
		return "", err
	}
	p.i = start + q + 1
	return p.view(start, start+q), nil
}

// checkPlain checks a run of string content without quotes or backslashes:
// no control characters, and valid UTF-8. at is the run's offset, for the
// error position.
func (p *parser) checkPlain(b []byte, at int) *Error {
	var ctrl, high uint64
	i := 0
	for ; i+8 <= len(b); i += 8 {
		x := binary.LittleEndian.Uint64(b[i:])
		ctrl |= hasBelow(x, 0x20)
		high |= x
	}
	for ; i < len(b); i++ {
		x := uint64(b[i])
		ctrl |= hasBelow(x, 0x20) & 0x80
		high |= x
	}
	if (ctrl|high)&hi8 == 0 {
		return nil
	}
	// Something needs a closer look: find it byte by byte.
	for j := 0; j < len(b); {
		c := b[j]
		switch {
		case c < 0x20:
			p.i = at + j
			return p.fail("control character in string")
		case c < 0x80:
			j++
		default:
			r, n := utf8.DecodeRune(b[j:])
			if r == utf8.RuneError && n <= 1 {
				p.i = at + j
				return p.fail("invalid UTF-8 in string")
			}
			j += n
		}
	}
	return nil
}

// escapedStr decodes the rest of a string that has escapes; p.i is at the
// first backslash and start at the first byte of the string.
func (p *parser) escapedStr(start int) (string, *Error) {
	buf := append(p.scratch[:0], p.b[start:p.i]...)
	for {
		if p.i >= len(p.b) {
			return "", p.fail("unterminated string")
		}
		c := p.b[p.i]
		switch {
		case c == '"':
			// The canonical form escapes only what it must, in one
			// spelling; compare this string's spelling with it.
			if p.canonical {
				want := appendJCSString(nil, string(buf))
				if string(want[1:len(want)-1]) != string(p.b[start:p.i]) {
					p.canonical = false
				}
			}
			p.i++
			p.scratch = buf
			return string(buf), nil
		case c < 0x20:
			return "", p.fail("control character in string")
		case c < 0x80 && c != '\\':
			buf = append(buf, c)
			p.i++
		case c >= 0x80:
			r, n := utf8.DecodeRune(p.b[p.i:])
			if r == utf8.RuneError && n <= 1 {
				return "", p.fail("invalid UTF-8 in string")
			}
			buf = append(buf, p.b[p.i:p.i+n]...)
			p.i += n
		default: // backslash
			if p.i+1 >= len(p.b) {
				return "", p.fail("unterminated escape")
			}
			e := p.b[p.i+1]
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
					if r >= 0xDC00 || p.i+1 >= len(p.b) || p.b[p.i] != '\\' || p.b[p.i+1] != 'u' {
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
	if len(p.b)-p.i < 4 {
		return 0, false
	}
	var r rune
	for j := 0; j < 4; j++ {
		c := p.b[p.i+j]
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
	if p.b[p.i] == '-' {
		p.i++
	}
	digits := func() int {
		n := 0
		for p.i < len(p.b) && p.b[p.i] >= '0' && p.b[p.i] <= '9' {
			p.i++
			n++
		}
		return n
	}
	switch {
	case p.i < len(p.b) && p.b[p.i] == '0':
		p.i++
	case digits() == 0:
		return Value{}, p.fail("invalid number")
	}
	simple := true
	if p.i < len(p.b) && p.b[p.i] == '.' {
		p.i++
		simple = false
		if digits() == 0 {
			return Value{}, p.fail("invalid number")
		}
	}
	if p.i < len(p.b) && (p.b[p.i] == 'e' || p.b[p.i] == 'E') {
		p.i++
		simple = false
		if p.i < len(p.b) && (p.b[p.i] == '+' || p.b[p.i] == '-') {
			p.i++
		}
		if digits() == 0 {
			return Value{}, p.fail("invalid number")
		}
	}
	if p.i < len(p.b) && p.b[p.i] >= '0' && p.b[p.i] <= '9' {
		return Value{}, p.fail("invalid number (leading zero)")
	}
	lit := p.view(start, p.i)
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
		if p.canonical && string(AppendES6Float(nil, f)) != lit {
			p.canonical = false
		}
	} else if lit == "-0" {
		p.canonical = false
	}
	return Value{kind: Number, s: lit}, nil
}

// Word-at-a-time tests (after the classic "has zero byte" trick): each
// reports whether any of the eight bytes of x is of a kind.
const (
	lo8 = 0x0101010101010101
	hi8 = 0x8080808080808080
)

func hasByte(x uint64, c byte) uint64  { y := x ^ (lo8 * uint64(c)); return (y - lo8) & ^y }
func hasBelow(x uint64, n byte) uint64 { return (x - lo8*uint64(n)) & ^x }

// noEscape8 reports whether none of eight bytes needs escaping in canonical
// JSON (bytes of multi-byte UTF-8 characters are >= 0x80 and pass).
func noEscape8(x uint64) bool {
	return (hasBelow(x, 0x20)|hasByte(x, '"')|hasByte(x, '\\'))&hi8 == 0
}
