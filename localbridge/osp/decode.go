package osp

import (
	"bytes"
	"encoding/json"
	"unicode/utf16"
	"unicode/utf8"
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

// decodeEnvelope validates frame and fills e. When the payload is of the call path, it is
// decoded into a value allocated together with the Envelope that is to hold e: *home.
func decodeEnvelope(p *parser, e *Envelope, home **Envelope) {
	p.members(func(name []byte) {
		switch string(name) {
		case "v":
			p.int(&e.V)
		case "type":
			p.str(&e.Type)
		case "id":
			p.str(&e.ID)
		case "ts":
			p.str(&e.TS)
		case "in_reply_to":
			p.str(&e.InReplyTo)
		case "request_id":
			p.str(&e.RequestID)
		case "correlation_id":
			p.str(&e.CorrelationID)
		case "causation_id":
			p.str(&e.CausationID)
		case "actor":
			// Through a variable of its own, so that e stays where its caller put it.
			var a *Actor
			p.rare(&a)
			e.Actor = a
		case "error":
			var x *Error
			p.rare(&x)
			e.Error = x
		case "payload":
			// The type is usually known by now (moltgate sends it first): the payload of a
			// message of the call path is decoded in the same pass.
			start := p.i
			if hot, h := hotPayload(e.Type); hot != nil && p.next() == '{' {
				*home = h
				kind := p.kind
				p.kind = false
				decodeInto(p, hot)
				e.hot, e.hotKind = hot, p.kind
				p.kind = kind
			} else {
				p.value()
			}
			if !p.syntax {
				e.Payload = bytes.TrimLeft(p.b[start:p.i], " \t\r\n")
			}
		default:
			p.value()
		}
	})
	p.end()
}

// rawMaxDepth bounds the nesting of a raw value checked on its own, as the reflective
// decoders bound it; the frame that carries it is held to MaxDepth by its receiver.
const rawMaxDepth = 10000

// validValue reports whether b is one JSON value, with surrounding whitespace allowed, by
// the rules the decoder applies to frames: UTF-8, the grammar, no member named twice. It is
// what jsontext.Value.IsValid reports, at a fraction of the cost (fuzzed against it).
func validValue(b []byte) bool {
	if !utf8.Valid(b) {
		return false
	}
	p := &parser{b: b, maxDepth: rawMaxDepth}
	p.value()
	p.end()
	return !p.syntax
}

// decodeFast decodes the payloads of the call path, validating as it goes; it reports false
// for other types. It returns whether the payload was valid JSON and whether every member had
// the right kind.
func decodeFast(b []byte, v any) (handled, valid, ok bool) {
	p := &parser{b: b, maxDepth: MaxDepth}
	if !decodeInto(p, v) {
		return false, false, false
	}
	p.end()
	return true, !p.syntax, !p.syntax && !p.kind
}

// decodeInto decodes the next value into v, if v is a payload of the call path.
func decodeInto(p *parser, v any) bool {
	switch v := v.(type) {
	case *ToolCall:
		p.members(func(name []byte) {
			switch string(name) {
			case "call_id":
				p.str(&v.CallID)
			case "tool_id":
				p.str(&v.ToolID)
			case "input":
				p.raw(&v.Input)
			case "timeout_ms":
				p.int64(&v.TimeoutMS)
			case "idempotency_key":
				p.str(&v.IdempotencyKey)
			case "caller":
				if p.next() == 'n' {
					p.literal("null")
					v.Caller = nil
					return
				}
				if v.Caller == nil && p.next() == '{' {
					v.Caller = new(Caller)
				}
				p.members(func(name []byte) {
					switch string(name) {
					case "type":
						p.str(&v.Caller.Type)
					case "id":
						p.str(&v.Caller.ID)
					default:
						p.value()
					}
				})
			case "context":
				p.raw(&v.Context)
			default:
				p.value()
			}
		})
	case *ToolResult:
		p.members(func(name []byte) {
			switch string(name) {
			case "call_id":
				p.str(&v.CallID)
			case "status":
				p.str(&v.Status)
			case "output":
				p.raw(&v.Output)
			case "error":
				p.rare(&v.Error)
			case "started_at":
				p.str(&v.StartedAt)
			case "finished_at":
				p.str(&v.FinishedAt)
			case "metrics":
				p.raw(&v.Metrics)
			default:
				p.value()
			}
		})
	case *ToolStream:
		p.members(func(name []byte) {
			switch string(name) {
			case "call_id":
				p.str(&v.CallID)
			case "seq":
				p.int64(&v.Seq)
			case "channel":
				p.str(&v.Channel)
			case "data":
				p.members(func(name []byte) {
					switch string(name) {
					case "text":
						p.str(&v.Data.Text)
					case "json":
						p.raw(&v.Data.JSON)
					default:
						p.value()
					}
				})
			case "done":
				p.bool(&v.Done)
			default:
				p.value()
			}
		})
	case *Heartbeat:
		p.members(func(name []byte) {
			switch string(name) {
			case "session_id":
				p.str(&v.SessionID)
			case "uptime_ms":
				p.int64(&v.UptimeMS)
			case "inflight_calls":
				p.int(&v.InflightCalls)
			case "status":
				p.str(&v.Status)
			case "details":
				p.raw(&v.Details)
			default:
				p.value()
			}
		})
	case *CancelAck:
		p.members(func(name []byte) {
			switch string(name) {
			case "call_id":
				p.str(&v.CallID)
			case "accepted":
				p.bool(&v.Accepted)
			case "note":
				p.str(&v.Note)
			default:
				p.value()
			}
		})
	case *ToolCancel:
		p.members(func(name []byte) {
			switch string(name) {
			case "call_id":
				p.str(&v.CallID)
			case "reason":
				p.str(&v.Reason)
			case "deadline_ms":
				p.int64(&v.DeadlineMS)
			default:
				p.value()
			}
		})
	default:
		return false
	}
	return true
}

// hotPayload returns a value to decode the payload of a message of type typ into while the
// envelope is read, for the messages of the call path, and the Envelope allocated with it.
func hotPayload(typ string) (any, *Envelope) {
	switch typ {
	case TypeToolCall:
		h := new(struct {
			e Envelope
			p ToolCall
		})
		return &h.p, &h.e
	case TypeToolResult:
		h := new(struct {
			e Envelope
			p ToolResult
		})
		return &h.p, &h.e
	case TypeToolStream:
		h := new(struct {
			e Envelope
			p ToolStream
		})
		return &h.p, &h.e
	case TypeHeartbeat:
		h := new(struct {
			e Envelope
			p Heartbeat
		})
		return &h.p, &h.e
	case TypeCancelAck:
		h := new(struct {
			e Envelope
			p CancelAck
		})
		return &h.p, &h.e
	case TypeToolCancel:
		h := new(struct {
			e Envelope
			p ToolCancel
		})
		return &h.p, &h.e
	}
	return nil, nil
}

// takeHot copies a payload decoded with the envelope into v, if it is of v's type.
func takeHot(hot, v any) bool {
	switch v := v.(type) {
	case *ToolCall:
		if h, ok := hot.(*ToolCall); ok {
			*v = *h
			return true
		}
	case *ToolResult:
		if h, ok := hot.(*ToolResult); ok {
			*v = *h
			return true
		}
	case *ToolStream:
		if h, ok := hot.(*ToolStream); ok {
			*v = *h
			return true
		}
	case *Heartbeat:
		if h, ok := hot.(*Heartbeat); ok {
			*v = *h
			return true
		}
	case *CancelAck:
		if h, ok := hot.(*CancelAck); ok {
			*v = *h
			return true
		}
	case *ToolCancel:
		if h, ok := hot.(*ToolCancel); ok {
			*v = *h
			return true
		}
	}
	return false
}

// intern returns the protocol's own words without allocating.
func intern(b []byte) string {
	switch string(b) {
	case TypeToolCall:
		return TypeToolCall
	case TypeToolStream:
		return TypeToolStream
	case TypeToolResult:
		return TypeToolResult
	case TypeHeartbeat:
		return TypeHeartbeat
	case TypeToolCancel:
		return TypeToolCancel
	case TypeCancelAck:
		return TypeCancelAck
	case StatusSucceeded:
		return StatusSucceeded
	case StatusFailed:
		return StatusFailed
	case StatusCanceled:
		return StatusCanceled
	case ChannelStdout:
		return ChannelStdout
	case ChannelStderr:
		return ChannelStderr
	case ChannelLog:
		return ChannelLog
	case ChannelStatus:
		return ChannelStatus
	case ChannelPartialResult:
		return ChannelPartialResult
	case HealthOK:
		return HealthOK
	}
	return string(b)
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
