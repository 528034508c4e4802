package tracing

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"io"
	"strconv"
	"sync"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"

	"github.com/moltgate/moltgate/internal/jsonw"
)

// fileExporter writes spans as JSON lines, one span a line, each an object
// of the span's own members alone:
//
//	{"name":"moltspeak tool","trace_id":"4bf9…","span_id":"00f0…","parent_span_id":"7a3c…",
//	 "kind":"server","start_unix_nano":1795738154989000000,"end_unix_nano":1795738154990100000,
//	 "attributes":{"rpc.method":"tool","moltgate.face":"websocket"},
//	 "status":{"code":"error","description":"E_RATE_LIMIT"},
//	 "resource":{"service.name":"moltgate","service.namespace":"acme"}}
//
// parent_span_id (with "parent_remote":true when the parent is another
// process's), trace_state, events, links, status and the dropped counts
// appear only when the span has them; an attribute's value is a JSON
// string, number, boolean or array. The resource, the same for every span
// of a gateway, is encoded once. Spans are encoded without reflection,
// and each batch the SDK's batch processor hands over is one write: the
// SDK's stdout exporter, whose form (SpanStub) this file had first, wrote
// some 1,000 bytes a span where this writes some 350, and its reflection
// cost as much as the rest of a traced gateway.
type fileExporter struct {
	mu     sync.Mutex
	w      io.Writer
	buf    []byte
	closed bool
	// The resource is the same for every span of a gateway: encoded once.
	res     *resource.Resource
	resJSON []byte
}

func newFileExporter(w io.Writer) *fileExporter { return &fileExporter{w: w} }

// ExportSpans implements sdktrace.SpanExporter.
func (e *fileExporter) ExportSpans(ctx context.Context, spans []sdktrace.ReadOnlySpan) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed || len(spans) == 0 {
		return nil
	}
	b := e.buf[:0]
	for _, s := range spans {
		b = e.appendSpan(b, s)
		b = append(b, '\n')
	}
	e.buf = b
	_, err := e.w.Write(b)
	return err
}

// Shutdown implements sdktrace.SpanExporter.
func (e *fileExporter) Shutdown(context.Context) error {
	e.mu.Lock()
	e.closed = true
	e.mu.Unlock()
	return nil
}

func (e *fileExporter) appendSpan(b []byte, s sdktrace.ReadOnlySpan) []byte {
	sc := s.SpanContext()
	b = append(b, `{"name":`...)
	b = jsonw.String(b, s.Name())
	b = appendIDs(append(b, ','), sc)
	if ts := sc.TraceState(); ts.Len() > 0 {
		b = append(b, `,"trace_state":`...)
		b = jsonw.String(b, ts.String())
	}
	if p := s.Parent(); p.HasSpanID() {
		sid := p.SpanID()
		b = append(b, `,"parent_span_id":"`...)
		b = hex.AppendEncode(b, sid[:])
		b = append(b, '"')
		if p.IsRemote() {
			b = append(b, `,"parent_remote":true`...)
		}
	}
	b = append(b, `,"kind":"`...)
	b = append(b, kindName(s.SpanKind())...)
	b = append(b, `","start_unix_nano":`...)
	b = strconv.AppendInt(b, s.StartTime().UnixNano(), 10)
	b = append(b, `,"end_unix_nano":`...)
	b = strconv.AppendInt(b, s.EndTime().UnixNano(), 10)
	if kvs := s.Attributes(); len(kvs) > 0 {
		b = appendAttrs(append(b, `,"attributes":`...), kvs)
	}
	if evs := s.Events(); len(evs) > 0 {
		b = append(b, `,"events":[`...)
		for i, ev := range evs {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"name":`...)
			b = jsonw.String(b, ev.Name)
			b = append(b, `,"time_unix_nano":`...)
			b = strconv.AppendInt(b, ev.Time.UnixNano(), 10)
			if len(ev.Attributes) > 0 {
				b = appendAttrs(append(b, `,"attributes":`...), ev.Attributes)
			}
			b = appendDropped(b, "dropped_attributes", ev.DroppedAttributeCount)
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	if ls := s.Links(); len(ls) > 0 {
		b = append(b, `,"links":[`...)
		for i, l := range ls {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendIDs(append(b, '{'), l.SpanContext)
			if len(l.Attributes) > 0 {
				b = appendAttrs(append(b, `,"attributes":`...), l.Attributes)
			}
			b = appendDropped(b, "dropped_attributes", l.DroppedAttributeCount)
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	if st := s.Status(); st.Code != codes.Unset {
		b = append(b, `,"status":{"code":"`...)
		if st.Code == codes.Error {
			b = append(b, "error"...)
		} else {
			b = append(b, "ok"...)
		}
		b = append(b, '"')
		if st.Description != "" {
			b = append(b, `,"description":`...)
			b = jsonw.String(b, st.Description)
		}
		b = append(b, '}')
	}
	b = appendDropped(b, "dropped_attributes", s.DroppedAttributes())
	b = appendDropped(b, "dropped_events", s.DroppedEvents())
	b = appendDropped(b, "dropped_links", s.DroppedLinks())
	if r := s.Resource(); r != e.res || e.resJSON == nil {
		e.res = r
		e.resJSON = append(e.resJSON[:0], `,"resource":`...)
		e.resJSON = appendAttrs(e.resJSON, r.Attributes())
	}
	b = append(b, e.resJSON...)
	return append(b, '}')
}

// appendIDs writes sc's ids as members: `"trace_id":"…","span_id":"…"`.
func appendIDs(b []byte, sc trace.SpanContext) []byte {
	tid, sid := sc.TraceID(), sc.SpanID()
	b = append(b, `"trace_id":"`...)
	b = hex.AppendEncode(b, tid[:])
	b = append(b, `","span_id":"`...)
	b = hex.AppendEncode(b, sid[:])
	return append(b, '"')
}

// kindName is a span kind as the file names it.
func kindName(k trace.SpanKind) string {
	switch k {
	case trace.SpanKindServer:
		return "server"
	case trace.SpanKindClient:
		return "client"
	case trace.SpanKindProducer:
		return "producer"
	case trace.SpanKindConsumer:
		return "consumer"
	}
	return "internal"
}

// appendDropped writes `,"name":n` if n is not 0.
func appendDropped(b []byte, name string, n int) []byte {
	if n == 0 {
		return b
	}
	b = append(b, `,"`...)
	b = append(b, name...)
	b = append(b, `":`...)
	return strconv.AppendInt(b, int64(n), 10)
}

// appendAttrs writes attributes as one object, {"key": value, …}: a
// string, number, boolean or array of them.
func appendAttrs(b []byte, kvs []attribute.KeyValue) []byte {
	b = append(b, '{')
	for i, kv := range kvs {
		if i > 0 {
			b = append(b, ',')
		}
		b = jsonw.String(b, string(kv.Key))
		b = append(b, ':')
		switch kv.Value.Type() {
		case attribute.STRING:
			b = jsonw.String(b, kv.Value.AsString())
		case attribute.INT64:
			b = strconv.AppendInt(b, kv.Value.AsInt64(), 10)
		case attribute.BOOL:
			b = strconv.AppendBool(b, kv.Value.AsBool())
		default:
			// Floats and slices, which no span of a gateway carries: as
			// encoding/json writes them.
			v, err := json.Marshal(kv.Value.AsInterface())
			if err != nil {
				v = []byte("null")
			}
			b = append(b, v...)
		}
	}
	return append(b, '}')
}
