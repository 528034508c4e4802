package audit

import (
	"encoding/json"
	"time"
	"unicode/utf8"
)

// The ledger hashes each event's bytes as they were written, so how an
// event is encoded is fixed by the first write; these encoders write
// exactly what encoding/json writes for Event and Decision (FuzzEncode
// holds them to it), without its reflection, which was a tenth of a
// busy ledger's CPU.

// appendEvent appends e's JSON form, as json.Marshal writes it, to b. Data
// must be valid JSON (NewEvent makes it so; Append checks others).
func appendEvent(b []byte, e *Event) []byte {
	b = append(b, `{"specversion":`...)
	b = appendString(b, e.SpecVersion)
	b = append(b, `,"id":`...)
	b = appendString(b, e.ID)
	b = append(b, `,"source":`...)
	b = appendString(b, e.Source)
	b = append(b, `,"type":`...)
	b = appendString(b, e.Type)
	b = append(b, `,"time":`...)
	b = appendTime(b, e.Time)
	if e.Subject != "" {
		b = append(b, `,"subject":`...)
		b = appendString(b, e.Subject)
	}
	if e.DataContentType != "" {
		b = append(b, `,"datacontenttype":`...)
		b = appendString(b, e.DataContentType)
	}
	if e.TraceParent != "" {
		b = append(b, `,"traceparent":`...)
		b = appendString(b, e.TraceParent)
	}
	if len(e.Data) > 0 {
		b = append(b, `,"data":`...)
		b = appendCompact(b, e.Data)
	}
	return append(b, '}')
}

// appendDecision appends d's JSON form, as json.Marshal writes it, to b.
func appendDecision(b []byte, d *Decision) []byte {
	b = append(b, `{"direction":`...)
	b = appendString(b, d.Direction)
	for _, f := range [...]struct{ key, v string }{
		{`,"face":`, d.Face}, {`,"op":`, d.Op}, {`,"message_id":`, d.MessageID}, {`,"from":`, d.From},
		{`,"to":`, d.To}, {`,"peer":`, d.Peer}, {`,"class":`, d.Class}, {`,"code":`, d.Code},
		{`,"reason":`, d.Reason}, {`,"consent_id":`, d.ConsentID},
	} {
		if f.v != "" {
			b = append(b, f.key...)
			b = appendString(b, f.v)
		}
	}
	if len(d.PIITypes) > 0 {
		b = append(b, `,"pii_types":[`...)
		for i, t := range d.PIITypes {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendString(b, t)
		}
		b = append(b, ']')
	}
	if d.NoStorage {
		b = append(b, `,"no_storage":true`...)
	}
	return append(b, '}')
}

// appendTime writes t as time.Time's MarshalJSON does.
func appendTime(b []byte, t time.Time) []byte {
	b = append(b, '"')
	b = t.AppendFormat(b, time.RFC3339Nano)
	return append(b, '"')
}

// appendCompact appends raw JSON as json.Marshal writes a RawMessage:
// without insignificant space and with HTML characters and U+2028/U+2029
// escaped. Raw JSON with none of those, as NewEvent makes, is copied.
func appendCompact(b, raw []byte) []byte {
	for i, c := range raw {
		switch {
		case c == ' ', c == '\t', c == '\n', c == '\r', c == '<', c == '>', c == '&',
			c == 0xE2 && i+2 < len(raw) && raw[i+1] == 0x80 && (raw[i+2] == 0xA8 || raw[i+2] == 0xA9):
			out, err := json.Marshal(json.RawMessage(raw))
			if err != nil {
				return append(b, raw...)
			}
			return append(b, out...)
		}
	}
	return append(b, raw...)
}

const hexDigits = "0123456789abcdef"

// appendString writes s as a JSON string as encoding/json does: HTML
// characters, control characters, U+2028 and U+2029 escaped, invalid
// UTF-8 replaced by U+FFFD.
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '\\', '"':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
