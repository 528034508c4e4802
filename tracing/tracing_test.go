package tracing

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"
)

// fileSpan is what the file exporter writes of a span, as far as the
// tests look.
type fileSpan struct {
	Name         string `json:"name"`
	TraceID      string `json:"trace_id"`
	SpanID       string `json:"span_id"`
	ParentSpanID string `json:"parent_span_id"`
	Links        []struct {
		TraceID string `json:"trace_id"`
	} `json:"links"`
	Attributes map[string]any `json:"attributes"`
}

func readSpans(t *testing.T, path string) []fileSpan {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []fileSpan
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<16), 1<<20)
	for sc.Scan() {
		var s fileSpan
		if err := json.Unmarshal(sc.Bytes(), &s); err != nil {
			t.Fatalf("%s: a line is not one span of JSON: %v", path, err)
		}
		out = append(out, s)
	}
	return out
}

func fileTracing(t *testing.T, org, peerTraces string) (*Tracing, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), org+".spans")
	tr, err := New(context.Background(), Config{Exporter: ExporterFile, Path: path, PeerTraces: peerTraces}, "moltgate", org)
	if err != nil {
		t.Fatal(err)
	}
	return tr, path
}

// call plays one call across two gateways: acme's span, the context in
// the message, globex's spans under it.
func call(t *testing.T, acme, globex *Tracing, trusted bool) {
	t.Helper()
	const payload = "jane.doe@example.com wants the forecast"
	ctx, span := acme.Tracer().Start(context.Background(), "peer.call",
		trace.WithAttributes(attribute.String("moltspeak.op", "tool"), attribute.Int("moltspeak.payload_bytes", len(payload))))
	c := Inject(ctx)
	if c.IsZero() {
		t.Fatal("a recording span injected no context")
	}
	b, _ := json.Marshal(map[string]Carrier{ExtKey: c}) // as it travels in ext
	var got map[string]Carrier
	json.Unmarshal(b, &got)
	rctx, rspan := globex.StartRemote(context.Background(), "face.message", got[ExtKey], trusted)
	for _, step := range []string{"decode", "signature", "replay", "trust", "capability", "classification", "pii", "route"} {
		_, s := globex.Tracer().Start(rctx, step)
		s.End()
	}
	rspan.End()
	span.End()
}

func TestTraceCrossesOrganisations(t *testing.T) {
	acme, acmePath := fileTracing(t, "acme", "")
	globex, globexPath := fileTracing(t, "globex", "")
	call(t, acme, globex, true)
	for _, tr := range []*Tracing{acme, globex} {
		if err := tr.Shutdown(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	spans := append(readSpans(t, acmePath), readSpans(t, globexPath)...)
	if len(spans) != 10 {
		t.Fatalf("%d spans; want 10 (acme's call, globex's message and its 8 steps)", len(spans))
	}
	trace := spans[0].TraceID
	for _, s := range spans {
		if s.TraceID != trace {
			t.Errorf("span %s is in trace %s; want every span in %s", s.Name, s.TraceID, trace)
		}
		for k, a := range s.Attributes {
			if v, ok := a.(string); ok && strings.Contains(v, "jane") {
				t.Errorf("span %s carries content in %s", s.Name, k)
			}
		}
	}
	raw, _ := os.ReadFile(globexPath)
	if bytes.Contains(raw, []byte("jane")) {
		t.Fatal("the span file holds the payload")
	}
}

// TestLinkPolicy: a gateway set to link starts its own trace and links
// the peer's; an untrusted sender's context is only ever linked.
func TestLinkPolicy(t *testing.T) {
	for _, tc := range []struct {
		name       string
		peerTraces string
		trusted    bool
	}{{"link", PeerLink, true}, {"untrusted", PeerContinue, false}} {
		t.Run(tc.name, func(t *testing.T) {
			acme, acmePath := fileTracing(t, "acme", "")
			globex, globexPath := fileTracing(t, "globex", tc.peerTraces)
			call(t, acme, globex, tc.trusted)
			acme.Shutdown(context.Background())
			globex.Shutdown(context.Background())
			a, g := readSpans(t, acmePath), readSpans(t, globexPath)
			peerTrace := a[0].TraceID
			var root *fileSpan
			for i := range g {
				if g[i].Name == "face.message" {
					root = &g[i]
				}
				if g[i].TraceID == peerTrace {
					t.Fatalf("globex's span %s continues acme's trace", g[i].Name)
				}
			}
			if root == nil || len(root.Links) != 1 || root.Links[0].TraceID != peerTrace {
				t.Fatalf("globex's message span does not link acme's trace: %+v", root)
			}
		})
	}
}

func TestOTLPHTTPExport(t *testing.T) {
	var mu sync.Mutex
	var posts []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		mu.Lock()
		posts = append(posts, r.Method+" "+r.URL.Path+" "+r.Header.Get("Content-Type"))
		mu.Unlock()
	}))
	defer srv.Close()
	tr, err := New(context.Background(), Config{Exporter: ExporterOTLPHTTP, Endpoint: srv.URL}, "moltgate", "acme")
	if err != nil {
		t.Fatal(err)
	}
	_, s := tr.Tracer().Start(context.Background(), "peer.call")
	s.End()
	if err := tr.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(posts) == 0 || posts[0] != "POST /v1/traces application/x-protobuf" {
		t.Fatalf("collector saw %q; want a POST of protobuf spans to /v1/traces", posts)
	}
}

func TestNoneStillPassesContextOn(t *testing.T) {
	off, err := New(context.Background(), Config{}, "moltgate", "globex")
	if err != nil {
		t.Fatal(err)
	}
	acme, _ := fileTracing(t, "acme", "")
	ctx, span := acme.Tracer().Start(context.Background(), "peer.call")
	defer span.End()
	in := Inject(ctx)
	rctx, rspan := off.StartRemote(context.Background(), "face.message", in, true)
	defer rspan.End()
	out := Inject(rctx)
	if Remote(out).TraceID() != Remote(in).TraceID() {
		t.Fatal("a gateway with tracing off broke the trace the caller started")
	}
}

func TestMalformedContextIgnored(t *testing.T) {
	tr, _ := fileTracing(t, "globex", "")
	for _, tp := range []string{"", "garbage", "00-00000000000000000000000000000000-0000000000000000-01", "ff-" + strings.Repeat("a", 32) + "-" + strings.Repeat("b", 16) + "-01"} {
		ctx, s := tr.StartRemote(context.Background(), "face.message", Carrier{TraceParent: tp}, true)
		if !trace.SpanContextFromContext(ctx).IsValid() {
			t.Errorf("traceparent %q: no span started", tp)
		}
		s.End()
	}
}

func TestConfigCheck(t *testing.T) {
	half, two := 0.5, 2.0
	for _, tc := range []struct {
		c    Config
		want string
	}{
		{Config{}, ""},
		{Config{Exporter: ExporterFile, Path: "x", SampleRatio: &half, PeerTraces: PeerLink}, ""},
		{Config{Exporter: "jaeger"}, "tracing.exporter"},
		{Config{Exporter: ExporterOTLPHTTP}, "tracing.endpoint"},
		{Config{Exporter: ExporterOTLPGRPC, Endpoint: "ftp://x"}, "tracing.endpoint"},
		{Config{Exporter: ExporterFile}, "tracing.path"},
		{Config{SampleRatio: &two}, "tracing.sample_ratio"},
		{Config{PeerTraces: "adopt"}, "tracing.peer_traces"},
	} {
		err := tc.c.Check()
		if (tc.want == "") != (err == nil) || (err != nil && !strings.HasPrefix(err.Error(), tc.want+":")) {
			t.Errorf("%+v: Check = %v; want %q", tc.c, err, tc.want)
		}
	}
}

func TestLogHandlerCorrelates(t *testing.T) {
	tr, _ := fileTracing(t, "acme", "")
	var buf bytes.Buffer
	log := slog.New(LogHandler(slog.NewJSONHandler(&buf, nil))).With("face", "http")
	ctx, s := tr.Tracer().Start(context.Background(), "face.message")
	log.InfoContext(ctx, "message refused", "code", "E_SIGNATURE")
	s.End()
	log.Info("no span")
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	var first, second map[string]any
	json.Unmarshal([]byte(lines[0]), &first)
	json.Unmarshal([]byte(lines[1]), &second)
	if first["trace_id"] != s.SpanContext().TraceID().String() || first["span_id"] != s.SpanContext().SpanID().String() || first["face"] != "http" {
		t.Fatalf("with a span: %s", lines[0])
	}
	if _, ok := second["trace_id"]; ok {
		t.Fatalf("without a span: %s", lines[1])
	}
}
