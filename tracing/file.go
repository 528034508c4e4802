package tracing

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"io"
	"strconv"
	"sync"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/sdk/instrumentation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"

	"github.com/moltgate/moltgate/internal/jsonw"
)

// fileExporter writes spans as JSON lines, one span a line, in the form
// of the OpenTelemetry SDK's stdout exporter (SpanStub), which the file
// exporter wrote first: every member as it wrote it, so that readers of
// the file see no change. It encodes without reflection and writes each
// batch the SDK's batch processor hands it in one write: the stdout
// exporter's reflection and a write per span cost as much as the rest of
// a traced gateway.
type fileExporter struct {
	mu     sync.Mutex
	w      io.Writer
	buf    []byte
	closed bool
	// The resource and scope are the same for every span of a gateway:
	// encoded once.
	res      *resource.Resource
	resJSON  []byte
	scope    instrumentation.Scope
	scopeSet bool
	scopeJS  []byte
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
	b = append(b, `{"Name":`...)
	b = jsonw.String(b, s.Name())
	b = append(b, `,"SpanContext":`...)
	b = appendSpanContext(b, s.SpanContext())
	b = append(b, `,"Parent":`...)
	b = appendSpanContext(b, s.Parent())
	b = append(b, `,"SpanKind":`...)
	b = strconv.AppendInt(b, int64(s.SpanKind()), 10)
	b = append(b, `,"StartTime":`...)
	b = jsonw.Time(b, s.StartTime())
	b = append(b, `,"EndTime":`...)
	b = jsonw.Time(b, s.EndTime())
	b = append(b, `,"Attributes":`...)
	b = appendAttrs(b, s.Attributes())
	b = append(b, `,"Events":`...)
	if evs := s.Events(); evs == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i, ev := range evs {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"Name":`...)
			b = jsonw.String(b, ev.Name)
			b = append(b, `,"Attributes":`...)
			b = appendAttrs(b, ev.Attributes)
			b = append(b, `,"DroppedAttributeCount":`...)
			b = strconv.AppendInt(b, int64(ev.DroppedAttributeCount), 10)
			b = append(b, `,"Time":`...)
			b = jsonw.Time(b, ev.Time)
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	b = append(b, `,"Links":`...)
	if ls := s.Links(); ls == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i, l := range ls {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"SpanContext":`...)
			b = appendSpanContext(b, l.SpanContext)
			b = append(b, `,"Attributes":`...)
			b = appendAttrs(b, l.Attributes)
			b = append(b, `,"DroppedAttributeCount":`...)
			b = strconv.AppendInt(b, int64(l.DroppedAttributeCount), 10)
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	st := s.Status()
	b = append(b, `,"Status":{"Code":`...)
	b = jsonw.String(b, st.Code.String())
	b = append(b, `,"Description":`...)
	b = jsonw.String(b, st.Description)
	b = append(b, `},"DroppedAttributes":`...)
	b = strconv.AppendInt(b, int64(s.DroppedAttributes()), 10)
	b = append(b, `,"DroppedEvents":`...)
	b = strconv.AppendInt(b, int64(s.DroppedEvents()), 10)
	b = append(b, `,"DroppedLinks":`...)
	b = strconv.AppendInt(b, int64(s.DroppedLinks()), 10)
	b = append(b, `,"ChildSpanCount":`...)
	b = strconv.AppendInt(b, int64(s.ChildSpanCount()), 10)
	b = append(b, `,"Resource":`...)
	if r := s.Resource(); r != e.res || e.resJSON == nil {
		e.res = r
		e.resJSON = appendAttrs(e.resJSON[:0], r.Attributes())
		if r == nil {
			e.resJSON = append(e.resJSON[:0], "null"...)
		}
	}
	b = append(b, e.resJSON...)
	if sc := s.InstrumentationScope(); !e.scopeSet || !sameScope(sc, e.scope) {
		e.scope, e.scopeSet = sc, true
		e.scopeJS = appendScope(e.scopeJS[:0], sc)
	}
	b = append(b, `,"InstrumentationScope":`...)
	b = append(b, e.scopeJS...)
	b = append(b, `,"InstrumentationLibrary":`...)
	b = append(b, e.scopeJS...)
	return append(b, '}')
}

func sameScope(a, b instrumentation.Scope) bool {
	return a.Name == b.Name && a.Version == b.Version && a.SchemaURL == b.SchemaURL && a.Attributes.Equals(&b.Attributes)
}

func appendScope(b []byte, sc instrumentation.Scope) []byte {
	b = append(b, `{"Name":`...)
	b = jsonw.String(b, sc.Name)
	b = append(b, `,"Version":`...)
	b = jsonw.String(b, sc.Version)
	b = append(b, `,"SchemaURL":`...)
	b = jsonw.String(b, sc.SchemaURL)
	b = append(b, `,"Attributes":`...)
	b = appendAttrs(b, sc.Attributes.ToSlice())
	return append(b, '}')
}

// appendSpanContext writes sc as trace.SpanContext's MarshalJSON does.
func appendSpanContext(b []byte, sc trace.SpanContext) []byte {
	tid, sid := sc.TraceID(), sc.SpanID()
	b = append(b, `{"TraceID":"`...)
	b = hex.AppendEncode(b, tid[:])
	b = append(b, `","SpanID":"`...)
	b = hex.AppendEncode(b, sid[:])
	b = append(b, `","TraceFlags":"`...)
	b = hex.AppendEncode(b, []byte{byte(sc.TraceFlags())})
	b = append(b, `","TraceState":`...)
	b = jsonw.String(b, sc.TraceState().String())
	b = append(b, `,"Remote":`...)
	b = strconv.AppendBool(b, sc.IsRemote())
	return append(b, '}')
}

// appendAttrs writes attributes as attribute.KeyValue's JSON form:
// [{"Key":…,"Value":{"Type":"STRING","Value":…}}], null for none.
func appendAttrs(b []byte, kvs []attribute.KeyValue) []byte {
	if kvs == nil {
		return append(b, "null"...)
	}
	b = append(b, '[')
	for i, kv := range kvs {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"Key":`...)
		b = jsonw.String(b, string(kv.Key))
		b = append(b, `,"Value":{"Type":`...)
		b = jsonw.String(b, kv.Value.Type().String())
		b = append(b, `,"Value":`...)
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
		b = append(b, "}}"...)
	}
	return append(b, ']')
}
