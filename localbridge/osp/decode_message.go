package osp

import (
	"bytes"
	"unicode/utf8"
)

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
