package tracing

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/exporters/stdout/stdouttrace"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
)

// recordedSpans makes spans of every shape a gateway's are: a root with a
// remote parent's link, children, attributes of each type, an error
// status, an event.
func recordedSpans(t testing.TB) []sdktrace.ReadOnlySpan {
	t.Helper()
	mem := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(mem),
		sdktrace.WithResource(resource.NewSchemaless(attribute.String("service.name", "moltgate"), attribute.String("service.namespace", "acme"))))
	tr := tp.Tracer("github.com/moltgate/moltgate")
	remote := trace.NewSpanContext(trace.SpanContextConfig{TraceID: trace.TraceID{1, 2, 3}, SpanID: trace.SpanID{4, 5}, TraceFlags: trace.FlagsSampled, Remote: true})
	ctx, root := tr.Start(context.Background(), "moltspeak tool", trace.WithSpanKind(trace.SpanKindServer),
		trace.WithLinks(trace.Link{SpanContext: remote, Attributes: []attribute.KeyValue{attribute.String("moltgate.link", "peer")}}),
		trace.WithAttributes(attribute.String("rpc.system", "moltspeak"), attribute.String("q", "a \"quoted\" <tag> & é\u2028"),
			attribute.Int("n", -42), attribute.Bool("ok", true), attribute.Float64("f", 1.5), attribute.StringSlice("l", []string{"x", "y"})))
	for _, step := range []string{"decode", "signature", "route"} {
		_, s := tr.Start(ctx, step, trace.WithAttributes(attribute.String("moltgate.step", step)))
		if step == "route" {
			s.SetStatus(codes.Error, "E_RATE_LIMIT")
			s.AddEvent("refused", trace.WithAttributes(attribute.String("error.type", "E_RATE_LIMIT")), trace.WithTimestamp(time.Unix(1800000000, 5)))
		}
		s.End()
	}
	root.End()
	// Taken before Shutdown, which empties the exporter.
	spans := mem.GetSpans().Snapshots()
	if len(spans) != 4 {
		t.Fatalf("%d spans recorded, want 4", len(spans))
	}
	if err := tp.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	return spans
}

func decodeLines(t *testing.T, b []byte) []any {
	t.Helper()
	var out []any
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var v any
		if err := json.Unmarshal(sc.Bytes(), &v); err != nil {
			t.Fatalf("line %q: %v", sc.Bytes(), err)
		}
		out = append(out, v)
	}
	return out
}

// TestFileExporterLines: the file exporter writes each span, one a line,
// with every member the span has: ids, parent, kind, times, attributes of
// each type, events, links, status and resource.
func TestFileExporterLines(t *testing.T) {
	spans := recordedSpans(t)
	var got bytes.Buffer
	f := newFileSpans(&got)
	for _, s := range spans {
		f.OnEnd(s)
	}
	if err := f.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	lines := decodeLines(t, got.Bytes())
	if len(lines) != len(spans) {
		t.Fatalf("%d lines, want %d", len(lines), len(spans))
	}
	for i, s := range spans {
		sc, p := s.SpanContext(), s.Parent()
		want := map[string]any{
			"name": s.Name(), "trace_id": sc.TraceID().String(), "span_id": sc.SpanID().String(), "kind": kindName(s.SpanKind()),
			"start_unix_nano": float64(s.StartTime().UnixNano()), "end_unix_nano": float64(s.EndTime().UnixNano()),
			"resource": map[string]any{"service.name": "moltgate", "service.namespace": "acme"},
		}
		if p.HasSpanID() {
			want["parent_span_id"] = p.SpanID().String()
		}
		attrs := map[string]any{}
		for _, kv := range s.Attributes() {
			attrs[string(kv.Key)] = jsonOf(t, kv.Value.AsInterface())
		}
		if len(attrs) > 0 {
			want["attributes"] = attrs
		}
		for _, ev := range s.Events() {
			want["events"] = []any{map[string]any{"name": ev.Name, "time_unix_nano": float64(ev.Time.UnixNano()),
				"attributes": map[string]any{"error.type": "E_RATE_LIMIT"}}}
		}
		for _, l := range s.Links() {
			want["links"] = []any{map[string]any{"trace_id": l.SpanContext.TraceID().String(), "span_id": l.SpanContext.SpanID().String(),
				"attributes": map[string]any{"moltgate.link": "peer"}}}
		}
		if st := s.Status(); st.Code == codes.Error {
			want["status"] = map[string]any{"code": "error", "description": st.Description}
		}
		if !reflect.DeepEqual(lines[i], want) {
			gb, _ := json.Marshal(lines[i])
			wb, _ := json.Marshal(want)
			t.Fatalf("span %d:\n got %s\nwant %s", i, gb, wb)
		}
	}
	if n := strings.Count(got.String(), `"status"`); n != 1 {
		t.Fatalf("%d spans with a status; want 1 (unset is left out)", n)
	}
}

// jsonOf is v as encoding/json reads it back.
func jsonOf(t *testing.T, v any) any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// The span file is written once enough has gathered, at Shutdown, and on
// ForceFlush; a span that ends after Shutdown is not written; spans beyond
// what may wait are dropped, and ForceFlush says how many.
func TestFileSpansFlushAndDrop(t *testing.T) {
	spans := recordedSpans(t)
	var mu sync.Mutex
	var out bytes.Buffer
	w := writerFunc(func(b []byte) (int, error) { mu.Lock(); defer mu.Unlock(); return out.Write(b) })
	written := func() int {
		mu.Lock()
		defer mu.Unlock()
		return strings.Count(out.String(), "\n")
	}
	f := newFileSpans(w)
	f.flushBytes = 1
	f.OnEnd(spans[0])
	for deadline := time.Now().Add(10 * time.Second); written() != 1; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d lines written once a span's bytes were enough; want 1", written())
		}
	}
	f.flushBytes, f.maxBytes = 1<<20, 1
	f.OnEnd(spans[1])
	f.OnEnd(spans[2]) // beyond maxBytes
	if err := f.ForceFlush(context.Background()); err == nil || !strings.Contains(err.Error(), "1 spans dropped") {
		t.Fatalf("ForceFlush: %v; want 1 span dropped", err)
	}
	if written() != 2 {
		t.Fatalf("%d lines written; want 2", written())
	}
	f.maxBytes = 1 << 20
	f.OnEnd(spans[3])
	if err := f.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	f.OnEnd(spans[0])
	if err := f.ForceFlush(context.Background()); err != nil || written() != 3 {
		t.Fatalf("after Shutdown: %d lines written (%v); want 3", written(), err)
	}
}

type writerFunc func([]byte) (int, error)

func (w writerFunc) Write(b []byte) (int, error) { return w(b) }

// BenchmarkFileExporter is the encoding of spans as the span file writes
// them, against the SDK's stdout exporter, whose form the file had first.
func BenchmarkFileExporter(b *testing.B) {
	spans := recordedSpans(b)
	b.Run("file", func(b *testing.B) {
		var buf bytes.Buffer
		f := newFileSpans(&buf)
		defer f.Shutdown(context.Background())
		for b.Loop() {
			for _, s := range spans {
				f.OnEnd(s)
			}
			f.ForceFlush(context.Background())
			buf.Reset()
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(spans)), "ns/span")
		for _, s := range spans {
			f.OnEnd(s)
		}
		f.ForceFlush(context.Background())
		b.ReportMetric(float64(buf.Len())/float64(len(spans)), "bytes/span")
	})
	b.Run("stdout", func(b *testing.B) {
		var buf bytes.Buffer
		e, _ := stdouttrace.New(stdouttrace.WithWriter(&buf))
		for b.Loop() {
			buf.Reset()
			e.ExportSpans(context.Background(), spans)
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(spans)), "ns/span")
		b.ReportMetric(float64(buf.Len())/float64(len(spans)), "bytes/span")
	})
}
