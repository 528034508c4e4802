package osp

import (
	"bytes"
	"encoding/json"
	"unicode/utf16"
	"unicode/utf8"
)

func (p *parser) str(dst *string) {
	switch p.next() {
	case '"':
		at := p.i
		lit, esc := p.string()
		switch {
		case p.syntax:
		case esc:
			*dst = unquote(lit)
		case p.s != "":
			*dst = p.s[at+1 : p.i-1]
		default:
			*dst = intern(lit[1 : len(lit)-1])
		}
		return
	case 'n':
		p.literal("null")
		return
	}
	p.kind = true
	p.value()
}

func (p *parser) int64(dst *int64) {
	v := p.value()
	if p.syntax || v[0] == 'n' {
		return
	}
	neg := v[0] == '-'
	if neg {
		v = v[1:]
	}
	var n uint64
	for _, d := range v {
		if d < '0' || d > '9' || n > (1<<63)/10 { // a fraction, an exponent, a string, too big
			p.kind = true
			return
		}
		n = n*10 + uint64(d-'0')
	}
	if n > 1<<63 || (!neg && n == 1<<63) {
		p.kind = true
		return
	}
	if neg {
		*dst = -int64(n)
	} else {
		*dst = int64(n)
	}
}

func (p *parser) int(dst *int) {
	var n int64
	p.int64(&n)
	if int64(int(n)) != n {
		p.kind = true
		return
	}
	*dst = int(n)
}

func (p *parser) bool(dst *bool) {
	v := p.value()
	if p.syntax {
		return
	}
	switch v[0] {
	case 't':
		*dst = true
	case 'f':
		*dst = false
	case 'n':
	default:
		p.kind = true
	}
}

// raw keeps the value's bytes, as a json.RawMessage field does (null included).
func (p *parser) raw(dst *json.RawMessage) {
	if v := p.value(); !p.syntax {
		*dst = v
	}
}

// rare decodes a member the fast path leaves to the reflective decoder.
func (p *parser) rare(dst any) {
	if v := p.value(); !p.syntax && unmarshalRare(v, dst) != nil {
		p.kind = true
	}
}

// unquote decodes a valid JSON string literal.
func unquote(lit []byte) string {
	s := lit[1 : len(lit)-1]
	if bytes.IndexByte(s, '\\') < 0 {
		return string(s)
	}
	out := make([]byte, 0, len(s))
	for i := 0; i < len(s); {
		if s[i] != '\\' {
			j := bytes.IndexByte(s[i:], '\\')
			if j < 0 {
				j = len(s) - i
			}
			out = append(out, s[i:i+j]...)
			i += j
			continue
		}
		switch e := s[i+1]; e {
		case 'u':
			r := rune(hex4(s[i+2 : i+6]))
			i += 6
			if utf16.IsSurrogate(r) && i+6 <= len(s) && s[i] == '\\' && s[i+1] == 'u' {
				if d := utf16.DecodeRune(r, rune(hex4(s[i+2:i+6]))); d != utf8.RuneError {
					r = d
					i += 6
				}
			}
			if utf16.IsSurrogate(r) {
				r = utf8.RuneError
			}
			out = utf8.AppendRune(out, r)
			continue
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		default: // " \ /
			out = append(out, e)
		}
		i += 2
	}
	return string(out)
}

func hex4(b []byte) uint16 {
	var v uint16
	for _, c := range b {
		v <<= 4
		switch {
		case c >= '0' && c <= '9':
			v |= uint16(c - '0')
		case c >= 'a' && c <= 'f':
			v |= uint16(c - 'a' + 10)
		default:
			v |= uint16(c - 'A' + 10)
		}
	}
	return v
}

// UnmarshalAny decodes a JSON text the way a JSON Schema validator needs it: objects as
// map[string]any, arrays as []any, numbers as json.Number, and strings, booleans and nil. It
// is as strict as Decode: UTF-8, the grammar, no member named twice, nesting at most
// MaxDepth.
func UnmarshalAny(b []byte) (any, error) {
	if !utf8.Valid(b) {
		return nil, Errorf(CodeInvalidInput, "not valid UTF-8")
	}
	// The value is short-lived (a validator reads it), so its strings always share one copy.
	p := &parser{b: b, s: string(b), maxDepth: MaxDepth}
	v := p.any()
	p.end()
	if p.syntax {
		return nil, Errorf(CodeInvalidInput, "not valid JSON")
	}
	return v, nil
}

func (p *parser) any() any {
	switch c := p.next(); {
	case c == '{':
		m := map[string]any{}
		p.members(func(name []byte) {
			k := p.name(name)
			m[k] = p.any()
		})
		return m
	case c == '[':
		a := []any{}
		if !p.enter() {
			return nil
		}
		p.i++
		if p.next() == ']' {
			p.i++
			p.depth--
			return a
		}
		for !p.syntax {
			a = append(a, p.any())
			switch p.next() {
			case ',':
				p.i++
			case ']':
				p.i++
				p.depth--
				return a
			default:
				p.fail()
			}
		}
		return nil
	case c == '"':
		var s string
		p.str(&s)
		return s
	case c == 't', c == 'f':
		var v bool
		p.bool(&v)
		return v
	case c == 'n':
		p.literal("null")
		return nil
	default:
		v := p.value()
		if p.syntax {
			return nil
		}
		return json.Number(v)
	}
}
