package osp

import (
	"encoding/json"
	"errors"
	"strconv"
	"time"

	"github.com/moltgate/moltgate/internal/jsonw"
)

// The messages exchanged for every call are encoded here by hand: they are the bridge's hot
// path, and encoding/json's reflection costs more than the rest of a call. The output is what
// encoding/json produces for the same values, less its HTML escaping (fuzzed against it); the
// strings are written by jsonw.StringNoHTML.

var errInvalidRaw = errors.New("osp: raw JSON value is not valid")

// Marshal encodes a message with header h and payload p. A nil payload is sent as {}.
func Marshal(h *Header, p any) ([]byte, error) { return AppendMarshal(make([]byte, 0, 512), h, p) }

// AppendMarshal appends the encoding of a message to b.
func AppendMarshal(b []byte, h *Header, p any) ([]byte, error) {
	b = append(b, `{"v":`...)
	b = strconv.AppendInt(b, int64(h.V), 10)
	b = append(b, `,"type":`...)
	b = jsonw.StringNoHTML(b, h.Type)
	b = append(b, `,"id":`...)
	b = jsonw.StringNoHTML(b, h.ID)
	b = append(b, `,"ts":`...)
	b = jsonw.StringNoHTML(b, h.TS)
	b = appendOptString(b, "in_reply_to", h.InReplyTo)
	b = appendOptString(b, "request_id", h.RequestID)
	b = appendOptString(b, "correlation_id", h.CorrelationID)
	b = appendOptString(b, "causation_id", h.CausationID)
	var err error
	if h.Actor != nil {
		b = append(b, `,"actor":`...)
		if b, err = appendStd(b, h.Actor); err != nil {
			return nil, err
		}
	}
	if h.Error != nil {
		b = append(b, `,"error":`...)
		if b, err = appendError(b, h.Error); err != nil {
			return nil, err
		}
	}
	b = append(b, `,"payload":`...)
	if b, err = appendPayload(b, p); err != nil {
		return nil, err
	}
	return append(b, '}'), nil
}

func appendPayload(b []byte, p any) ([]byte, error) {
	switch v := p.(type) {
	case nil:
		return append(b, "{}"...), nil
	case ToolCall:
		return v.appendJSON(b)
	case *ToolCall:
		return v.appendJSON(b)
	case ToolStream:
		return v.appendJSON(b)
	case *ToolStream:
		return v.appendJSON(b)
	case ToolResult:
		return v.appendJSON(b)
	case *ToolResult:
		return v.appendJSON(b)
	case ToolCancel:
		return v.appendJSON(b)
	case CancelAck:
		return v.appendJSON(b)
	case Heartbeat:
		return v.appendJSON(b)
	case json.RawMessage:
		if len(v) == 0 {
			return append(b, "{}"...), nil
		}
		return appendRaw(b, v)
	}
	return appendStd(b, p)
}

func appendStd(b []byte, v any) ([]byte, error) {
	e, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return append(b, e...), nil
}

func (c ToolCall) appendJSON(b []byte) ([]byte, error) {
	var err error
	b = append(b, `{"call_id":`...)
	b = jsonw.StringNoHTML(b, c.CallID)
	b = append(b, `,"tool_id":`...)
	b = jsonw.StringNoHTML(b, c.ToolID)
	b = append(b, `,"input":`...)
	if len(c.Input) == 0 {
		b = append(b, "null"...)
	} else if b, err = appendRaw(b, c.Input); err != nil {
		return nil, err
	}
	b = appendOptInt(b, "timeout_ms", c.TimeoutMS)
	b = appendOptString(b, "idempotency_key", c.IdempotencyKey)
	if c.Caller != nil {
		b = append(b, `,"caller":{"type":`...)
		b = jsonw.StringNoHTML(b, c.Caller.Type)
		b = append(b, `,"id":`...)
		b = jsonw.StringNoHTML(b, c.Caller.ID)
		b = append(b, '}')
	}
	if b, err = appendOptRaw(b, "context", c.Context); err != nil {
		return nil, err
	}
	return append(b, '}'), nil
}

func (s ToolStream) appendJSON(b []byte) ([]byte, error) {
	var err error
	b = append(b, `{"call_id":`...)
	b = jsonw.StringNoHTML(b, s.CallID)
	b = append(b, `,"seq":`...)
	b = strconv.AppendInt(b, s.Seq, 10)
	b = append(b, `,"channel":`...)
	b = jsonw.StringNoHTML(b, s.Channel)
	b = append(b, `,"data":{`...)
	mark := len(b)
	if s.Data.Text != "" {
		b = append(b, `"text":`...)
		b = jsonw.StringNoHTML(b, s.Data.Text)
	}
	if len(s.Data.JSON) > 0 {
		if len(b) > mark {
			b = append(b, ',')
		}
		b = append(b, `"json":`...)
		if b, err = appendRaw(b, s.Data.JSON); err != nil {
			return nil, err
		}
	}
	b = append(b, '}')
	if s.Done {
		b = append(b, `,"done":true`...)
	}
	return append(b, '}'), nil
}

func (r ToolResult) appendJSON(b []byte) ([]byte, error) {
	var err error
	b = append(b, `{"call_id":`...)
	b = jsonw.StringNoHTML(b, r.CallID)
	b = append(b, `,"status":`...)
	b = jsonw.StringNoHTML(b, r.Status)
	if b, err = appendOptRaw(b, "output", r.Output); err != nil {
		return nil, err
	}
	if r.Error != nil {
		b = append(b, `,"error":`...)
		if b, err = appendError(b, r.Error); err != nil {
			return nil, err
		}
	}
	b = appendOptString(b, "started_at", r.StartedAt)
	b = appendOptString(b, "finished_at", r.FinishedAt)
	if b, err = appendOptRaw(b, "metrics", r.Metrics); err != nil {
		return nil, err
	}
	return append(b, '}'), nil
}

func (c ToolCancel) appendJSON(b []byte) ([]byte, error) {
	b = append(b, `{"call_id":`...)
	b = jsonw.StringNoHTML(b, c.CallID)
	b = appendOptString(b, "reason", c.Reason)
	b = appendOptInt(b, "deadline_ms", c.DeadlineMS)
	return append(b, '}'), nil
}

func (a CancelAck) appendJSON(b []byte) ([]byte, error) {
	b = append(b, `{"call_id":`...)
	b = jsonw.StringNoHTML(b, a.CallID)
	b = append(b, `,"accepted":`...)
	b = strconv.AppendBool(b, a.Accepted)
	b = appendOptString(b, "note", a.Note)
	return append(b, '}'), nil
}

func (h Heartbeat) appendJSON(b []byte) ([]byte, error) {
	b = append(b, `{"session_id":`...)
	b = jsonw.StringNoHTML(b, h.SessionID)
	b = append(b, `,"uptime_ms":`...)
	b = strconv.AppendInt(b, h.UptimeMS, 10)
	b = append(b, `,"inflight_calls":`...)
	b = strconv.AppendInt(b, int64(h.InflightCalls), 10)
	b = append(b, `,"status":`...)
	b = jsonw.StringNoHTML(b, h.Status)
	b, err := appendOptRaw(b, "details", h.Details)
	if err != nil {
		return nil, err
	}
	return append(b, '}'), nil
}

func appendError(b []byte, e *Error) ([]byte, error) {
	var err error
	b = append(b, `{"code":`...)
	b = jsonw.StringNoHTML(b, e.Code)
	b = append(b, `,"message":`...)
	b = jsonw.StringNoHTML(b, e.Message)
	if b, err = appendOptRaw(b, "details", e.Details); err != nil {
		return nil, err
	}
	if e.Retryable {
		b = append(b, `,"retryable":true`...)
	}
	b = appendOptString(b, "where", e.Where)
	return append(b, '}'), nil
}

func appendOptString(b []byte, name, v string) []byte {
	if v == "" {
		return b
	}
	b = append(b, ',', '"')
	b = append(b, name...)
	b = append(b, '"', ':')
	return jsonw.StringNoHTML(b, v)
}

func appendOptInt(b []byte, name string, v int64) []byte {
	if v == 0 {
		return b
	}
	b = append(b, ',', '"')
	b = append(b, name...)
	b = append(b, '"', ':')
	return strconv.AppendInt(b, v, 10)
}

func appendOptRaw(b []byte, name string, v json.RawMessage) ([]byte, error) {
	if len(v) == 0 {
		return b, nil
	}
	b = append(b, ',', '"')
	b = append(b, name...)
	b = append(b, '"', ':')
	return appendRaw(b, v)
}

// appendRaw appends a JSON value after checking that it is one, as json.Marshal does for a
// json.RawMessage; like the decoder at the other end, it refuses a member named twice.
func appendRaw(b []byte, v json.RawMessage) ([]byte, error) {
	if !validValue(v) {
		return nil, errInvalidRaw
	}
	return append(b, v...), nil
}

// Timestamp formats t as the RFC 3339 timestamp the envelope's ts carries, in UTC with
// milliseconds: 2026-01-16T12:00:00.000Z.
func Timestamp(t time.Time) string {
	var buf [24]byte
	return string(AppendTimestamp(buf[:0], t))
}

// AppendTimestamp appends Timestamp(t) to b.
func AppendTimestamp(b []byte, t time.Time) []byte {
	t = t.UTC()
	year, month, day := t.Date()
	hour, minute, sec := t.Clock()
	if year < 0 || year > 9999 {
		return t.AppendFormat(b, "2006-01-02T15:04:05.000Z07:00")
	}
	ms := t.Nanosecond() / 1e6
	b = append(b, byte('0'+year/1000), byte('0'+year/100%10), byte('0'+year/10%10), byte('0'+year%10), '-',
		byte('0'+int(month)/10), byte('0'+int(month)%10), '-', byte('0'+day/10), byte('0'+day%10), 'T',
		byte('0'+hour/10), byte('0'+hour%10), ':', byte('0'+minute/10), byte('0'+minute%10), ':',
		byte('0'+sec/10), byte('0'+sec%10), '.', byte('0'+ms/100), byte('0'+ms/10%10), byte('0'+ms%10), 'Z')
	return b
}
