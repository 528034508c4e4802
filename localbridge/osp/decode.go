package osp

import (
	"bytes"
	"unicode/utf16"
)

// The envelope and the payloads exchanged for every call are decoded here in one pass that
// both validates and extracts, without reflection. Validation is as strict as the reflective
// decoder's (github.com/go-json-experiment/json): the JSON grammar, escapes and surrogate
// pairs, no member named twice in an object, and UTF-8, which the caller checks first. What
// it extracts is what that decoder produces: names match exactly, unknown members are
// ignored, null leaves a field at its zero value, and a value of the wrong kind is an error.
// A fuzz target holds the two to each other.

// parser reads one JSON text. A syntax error stops it; a value of the wrong kind for its field
// is recorded, skipped, and reported only if the rest of the text is well formed.
type parser struct {
	b        []byte
	s        string // b as a string, if decoded strings may share it; else ""
	i        int
	depth    int
	maxDepth int
	syntax   bool // the text is not valid JSON, or nests too deep
	tooDeep  bool
	kind     bool // a member's value has the wrong kind
	nameAt   int  // where the name members last passed to its fn starts in b; -1 if unquoted
}

// shareLimit is the largest text whose decoded strings share one copy of it rather than
// taking one allocation each. Larger texts keep them apart, so that a short string kept
// for long (a call id) does not hold a frame of megabytes.
const shareLimit = 4 << 10

// name returns the member name members just passed to fn, as a string.
func (p *parser) name(name []byte) string {
	if p.s != "" && p.nameAt >= 0 {
		return p.s[p.nameAt : p.nameAt+len(name)]
	}
	return string(name)
}

func (p *parser) fail() { p.syntax = true }

func (p *parser) ws() {
	for p.i < len(p.b) {
		switch p.b[p.i] {
		case ' ', '\t', '\r', '\n':
			p.i++
		default:
			return
		}
	}
}

// next returns the first byte of the next value, or 0 at the end.
func (p *parser) next() byte {
	p.ws()
	if p.i < len(p.b) {
		return p.b[p.i]
	}
	return 0
}

// strPlain marks the bytes that may appear in a string as they are. Bytes from 0x80 are
// parts of UTF-8 sequences, checked beforehand.
var strPlain = func() (t [256]bool) {
	for c := 0x20; c < 256; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// string validates the string at p.i and returns its literal, quotes included, and whether
// it holds escapes.
func (p *parser) string() ([]byte, bool) {
	start := p.i
	p.i++
	escaped := false
	for {
		p.i += plainBytes(p.b[p.i:])
		if p.i >= len(p.b) {
			p.fail()
			return nil, false
		}
		switch c := p.b[p.i]; {
		case c == '"':
			p.i++
			return p.b[start:p.i], escaped
		case c == '\\':
			escaped = true
			if !p.escape() {
				p.fail()
				return nil, false
			}
		default: // a control character
			p.fail()
			return nil, false
		}
	}
}

// escape validates the escape sequence at p.i.
func (p *parser) escape() bool {
	if p.i+1 >= len(p.b) {
		return false
	}
	switch p.b[p.i+1] {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		p.i += 2
		return true
	case 'u':
		r, ok := p.hex4(p.i + 2)
		if !ok {
			return false
		}
		p.i += 6
		if !utf16.IsSurrogate(r) {
			return true
		}
		// A high surrogate must be followed by an escaped low one.
		if r >= 0xDC00 || p.i+1 >= len(p.b) || p.b[p.i] != '\\' || p.b[p.i+1] != 'u' {
			return false
		}
		r2, ok := p.hex4(p.i + 2)
		if !ok || r2 < 0xDC00 || r2 > 0xDFFF {
			return false
		}
		p.i += 6
		return true
	}
	return false
}

func (p *parser) hex4(at int) (rune, bool) {
	if at+4 > len(p.b) {
		return 0, false
	}
	var r rune
	for _, c := range p.b[at : at+4] {
		r <<= 4
		switch {
		case c >= '0' && c <= '9':
			r |= rune(c - '0')
		case c >= 'a' && c <= 'f':
			r |= rune(c - 'a' + 10)
		case c >= 'A' && c <= 'F':
			r |= rune(c - 'A' + 10)
		default:
			return 0, false
		}
	}
	return r, true
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// number validates the number at p.i: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func (p *parser) number() {
	b, i := p.b, p.i
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && b[i] >= '1' && b[i] <= '9':
		for i < len(b) && isDigit(b[i]) {
			i++
		}
	default:
		p.fail()
		return
	}
	if i < len(b) && b[i] == '.' {
		i++
		if i >= len(b) || !isDigit(b[i]) {
			p.fail()
			return
		}
		for i < len(b) && isDigit(b[i]) {
			i++
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if i >= len(b) || !isDigit(b[i]) {
			p.fail()
			return
		}
		for i < len(b) && isDigit(b[i]) {
			i++
		}
	}
	p.i = i
}

func (p *parser) literal(word string) {
	if bytes.HasPrefix(p.b[p.i:], []byte(word)) {
		p.i += len(word)
	} else {
		p.fail()
	}
}

// value validates the next value and returns its bytes.
func (p *parser) value() []byte {
	c := p.next()
	start := p.i
	switch {
	case p.syntax:
		return nil
	case c == '"':
		p.string()
	case c == '{':
		p.members(func([]byte) { p.value() })
	case c == '[':
		p.elements()
	case c == 't':
		p.literal("true")
	case c == 'f':
		p.literal("false")
	case c == 'n':
		p.literal("null")
	case c == '-' || isDigit(c):
		p.number()
	default:
		p.fail()
	}
	if p.syntax {
		return nil
	}
	return p.b[start:p.i]
}

func (p *parser) enter() bool {
	p.depth++
	if p.depth > p.maxDepth {
		p.tooDeep = true
		p.fail()
		return false
	}
	return true
}

func (p *parser) elements() {
	if !p.enter() {
		return
	}
	defer func() { p.depth-- }()
	p.i++ // [
	if p.next() == ']' {
		p.i++
		return
	}
	for !p.syntax {
		p.value()
		switch p.next() {
		case ',':
			p.i++
		case ']':
			p.i++
			return
		default:
			p.fail()
		}
	}
}

// members validates the object at p.i and calls fn with each member's name; fn must read the
// member's value. A value that is not an object is of the wrong kind, except null, which
// has no members.
func (p *parser) members(fn func(name []byte)) {
	switch p.next() {
	case '{':
	case 'n':
		p.literal("null")
		return
	default:
		p.kind = true
		p.value()
		return
	}
	if !p.enter() {
		return
	}
	defer func() { p.depth-- }()
	p.i++ // {
	if p.next() == '}' {
		p.i++
		return
	}
	// Names seen so far, as offsets into the text: no pointers, so no write barriers. A
	// name with escapes, or a seventeenth name, moves the check to a map.
	var offs [16][2]int32
	n := 0
	var many map[string]bool
	for !p.syntax {
		if p.next() != '"' {
			p.fail()
			return
		}
		at := p.i
		lit, esc := p.string()
		if p.syntax {
			return
		}
		name := lit[1 : len(lit)-1]
		p.nameAt = at + 1
		if esc {
			name = []byte(unquote(lit))
			p.nameAt = -1
		}
		// A member named twice is an error, as it is for the reflective decoder.
		if many == nil && (esc || n == len(offs)) {
			many = make(map[string]bool, 2*len(offs))
			for _, o := range offs[:n] {
				many[string(p.b[o[0]:o[1]])] = true
			}
		}
		if many != nil {
			if many[string(name)] {
				p.fail()
				return
			}
			many[string(name)] = true
		} else {
			for _, o := range offs[:n] {
				if int(o[1]-o[0]) == len(name) && string(p.b[o[0]:o[1]]) == string(name) {
					p.fail()
					return
				}
			}
			offs[n] = [2]int32{int32(at + 1), int32(at + 1 + len(name))}
			n++
		}
		if p.next() != ':' {
			p.fail()
			return
		}
		p.i++
		fn(name)
		switch p.next() {
		case ',':
			p.i++
		case '}':
			p.i++
			return
		default:
			p.fail()
			return
		}
	}
}

// end checks that nothing but whitespace follows the value.
func (p *parser) end() {
	if p.next() != 0 || p.i != len(p.b) {
		p.fail()
	}
}
