package tracing

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"reflect"
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

// TestFileExporterAsStdout: the file exporter writes each span, one a
// line, as the SDK's stdout exporter writes it: the same members with the
// same values.
func TestFileExporterAsStdout(t *testing.T) {
	spans := recordedSpans(t)
	var want, got bytes.Buffer
	std, err := stdouttrace.New(stdouttrace.WithWriter(&want))
	if err != nil {
		t.Fatal(err)
	}
	if err := std.ExportSpans(context.Background(), spans); err != nil {
		t.Fatal(err)
	}
	if err := newFileExporter(&got).ExportSpans(context.Background(), spans); err != nil {
		t.Fatal(err)
	}
	w, g := decodeLines(t, want.Bytes()), decodeLines(t, got.Bytes())
	if len(g) != len(spans) || len(w) != len(g) {
		t.Fatalf("%d lines, want %d", len(g), len(w))
	}
	for i := range w {
		if !reflect.DeepEqual(w[i], g[i]) {
			wb, _ := json.Marshal(w[i])
			gb, _ := json.Marshal(g[i])
			t.Fatalf("span %d:\n got %s\nwant %s", i, gb, wb)
		}
	}
}

// BenchmarkFileExporter is the encoding of a batch of spans as the file
// exporter writes them, against the SDK's stdout exporter.
func BenchmarkFileExporter(b *testing.B) {
	spans := recordedSpans(b)
	b.Run("file", func(b *testing.B) {
		var buf bytes.Buffer
		e := newFileExporter(&buf)
		for b.Loop() {
			buf.Reset()
			e.ExportSpans(context.Background(), spans)
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(spans)), "ns/span")
	})
	b.Run("stdout", func(b *testing.B) {
		var buf bytes.Buffer
		e, _ := stdouttrace.New(stdouttrace.WithWriter(&buf))
		for b.Loop() {
			buf.Reset()
			e.ExportSpans(context.Background(), spans)
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(spans)), "ns/span")
	})
}
