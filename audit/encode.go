package audit

import (
	"bytes"
	"encoding/json"

	"github.com/moltgate/moltgate/internal/jsonw"
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
	b = jsonw.String(b, e.SpecVersion)
	b = append(b, `,"id":`...)
	b = jsonw.String(b, e.ID)
	b = append(b, `,"source":`...)
	b = jsonw.String(b, e.Source)
	b = append(b, `,"type":`...)
	b = jsonw.String(b, e.Type)
	b = append(b, `,"time":`...)
	b = jsonw.Time(b, e.Time)
	if e.Subject != "" {
		b = append(b, `,"subject":`...)
		b = jsonw.String(b, e.Subject)
	}
	if e.DataContentType != "" {
		b = append(b, `,"datacontenttype":`...)
		b = jsonw.String(b, e.DataContentType)
	}
	if e.TraceParent != "" {
		b = append(b, `,"traceparent":`...)
		b = jsonw.String(b, e.TraceParent)
	}
	if len(e.Data) > 0 {
		b = append(b, `,"data":`...)
		if e.marshalled {
			// Written as encoding/json writes it: compact and escaped.
			b = append(b, e.Data...)
		} else {
			b = appendCompact(b, e.Data)
		}
	}
	return append(b, '}')
}

// appendDecision appends d's JSON form, as json.Marshal writes it, to b.
func appendDecision(b []byte, d *Decision) []byte {
	b = append(b, `{"direction":`...)
	b = jsonw.String(b, d.Direction)
	for _, f := range [...]struct{ key, v string }{
		{`,"face":`, d.Face}, {`,"op":`, d.Op}, {`,"message_id":`, d.MessageID}, {`,"from":`, d.From},
		{`,"to":`, d.To}, {`,"peer":`, d.Peer}, {`,"class":`, d.Class}, {`,"code":`, d.Code},
		{`,"reason":`, d.Reason}, {`,"consent_id":`, d.ConsentID},
	} {
		if f.v != "" {
			b = append(b, f.key...)
			b = jsonw.String(b, f.v)
		}
	}
	if len(d.PIITypes) > 0 {
		b = append(b, `,"pii_types":[`...)
		for i, t := range d.PIITypes {
			if i > 0 {
				b = append(b, ',')
			}
			b = jsonw.String(b, t)
		}
		b = append(b, ']')
	}
	if d.NoStorage {
		b = append(b, `,"no_storage":true`...)
	}
	return append(b, '}')
}

// appendCompact appends raw JSON as json.Marshal writes a RawMessage:
// without insignificant space and with HTML characters and U+2028/U+2029
// escaped. Raw JSON with none of those, as NewEvent makes, is copied.
func appendCompact(b, raw []byte) []byte {
	// A receipt is some 2 KB, and holds none of the bytes after which a
	// rewrite may be needed: eight vectorised searches for them cost a
	// tenth of a look-up a byte.
	if !anyCompactStop(raw) {
		return append(b, raw...)
	}
	for i, c := range raw {
		if !compactStop[c] || c == 0xE2 && (i+2 >= len(raw) || raw[i+1] != 0x80 || raw[i+2] != 0xA8 && raw[i+2] != 0xA9) {
			continue
		}
		out, err := json.Marshal(json.RawMessage(raw))
		if err != nil {
			return append(b, raw...)
		}
		return append(b, out...)
	}
	return append(b, raw...)
}

// anyCompactStop reports whether raw holds any byte compactStop marks.
func anyCompactStop(raw []byte) bool {
	for _, c := range compactStops {
		if bytes.IndexByte(raw, c) >= 0 {
			return true
		}
	}
	return false
}

// compactStops are the bytes compactStop marks.
var compactStops = [...]byte{' ', '\t', '\n', '\r', '<', '>', '&', 0xE2}

// compactStop marks the bytes after which raw JSON may need rewriting:
// space, the HTML characters, and 0xE2, the first byte of U+2028 and
// U+2029.
var compactStop = [256]bool{' ': true, '\t': true, '\n': true, '\r': true, '<': true, '>': true, '&': true, 0xE2: true}
