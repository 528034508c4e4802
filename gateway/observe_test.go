package gateway

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/moltgate/moltgate/gateway/pipeline"
	"github.com/moltgate/moltgate/localbridge"
	"github.com/moltgate/moltgate/tracing"
)

// spanLine is what the file exporter writes of a span, as far as these
// tests look.
type spanLine struct {
	Name         string         `json:"name"`
	TraceID      string         `json:"trace_id"`
	SpanID       string         `json:"span_id"`
	ParentSpanID string         `json:"parent_span_id"`
	Attributes   map[string]any `json:"attributes"`
}

func (s spanLine) attr(key string) string {
	if v, ok := s.Attributes[key]; ok {
		return fmt.Sprint(v)
	}
	return ""
}

func readSpanFile(t *testing.T, path string) []spanLine {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []spanLine
	dec := json.NewDecoder(bytes.NewReader(b))
	for {
		var s spanLine
		if err := dec.Decode(&s); err == io.EOF {
			break
		} else if err != nil {
			t.Fatalf("%s: not spans of JSON: %v", path, err)
		}
		out = append(out, s)
	}
	return out
}

// withFileTracing turns the file exporter on in d's configuration, with
// the path relative to the gateway directory.
func withFileTracing(t *testing.T, d Dir) string {
	t.Helper()
	setConfig(t, d, `exporter = "none"`, `exporter = "file"`)
	setConfig(t, d, `# path = "data/spans.jsonl"`, `path = "data/spans.jsonl"`)
	setConfig(t, d, `# sample_ratio = 1.0`, `sample_ratio = 1.0`)
	return d.path("data", "spans.jsonl")
}

// TestTraceAcrossGateways: one call from acme's local agent to globex's
// echo agent is one trace: acme's span of the call is the parent of
// globex's span of the message, under which each pipeline step has its
// span, and the bridge call to the agent, whose causation_id names the
// same trace. No span carries the call's text.
func TestTraceAcrossGateways(t *testing.T) {
	da, la := newTestDir(t, "acme", AddAgentOptions{ID: "client", MaxCls: "pii"})
	db, lb := newTestDir(t, "globex", AddAgentOptions{ID: "echo", Capabilities: []string{"echo.text"}, QueryTool: "echo", MaxCls: "pii"})
	trustEachOther(t, da, db, "pii")
	acmeSpans, globexSpans := withFileTracing(t, da), withFileTracing(t, db)
	acme, globex := start(t, da, la, TransportWebSocket), start(t, db, lb, TransportWebSocket)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	const text = "quarterly numbers for the board"
	out, err := acme.s.local.Query(ctx, localbridge.QueryRequest{From: "client", To: "echo@globex", Tool: "echo",
		Input: json.RawMessage(`{"text":"` + text + `","meta":true}`), Class: "conf"}, nil)
	if err != nil {
		t.Fatalf("call: %v", err)
	}
	var res struct {
		CausationID string `json:"causation_id"`
	}
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatal(err)
	}
	for _, g := range []*testGateway{acme, globex} {
		if err := g.s.Shutdown(ctx); err != nil { // exports what is buffered
			t.Fatal(err)
		}
	}
	as, gs := readSpanFile(t, acmeSpans), readSpanFile(t, globexSpans)
	var call *spanLine
	for i, s := range as {
		if s.Name == "moltspeak tool" && s.attr("rpc.method") == "tool" {
			call = &as[i]
		}
	}
	if call == nil {
		t.Fatalf("acme exported no span of its call among %d", len(as))
	}
	trace := call.TraceID
	steps := map[string]bool{}
	var server, bridge *spanLine
	for i, s := range gs {
		if s.TraceID != trace {
			continue
		}
		switch {
		case s.attr("moltgate.step") != "":
			steps[s.Name] = true
		case s.Name == "moltspeak tool":
			server = &gs[i]
		case s.Name == "opensentience tool.call":
			bridge = &gs[i]
		}
	}
	if server == nil || server.ParentSpanID != call.SpanID {
		t.Fatalf("globex's span of the message %+v does not continue acme's call %s", server, call.SpanID)
	}
	for _, st := range pipeline.Steps() {
		if !steps[st.Name] {
			t.Errorf("no span of step %s in the call's trace (have %v)", st.Name, steps)
		}
	}
	if bridge == nil {
		t.Fatal("no span of the call to the agent in the call's trace")
	}
	if sc := tracing.Remote(tracing.Carrier{TraceParent: res.CausationID}); sc.TraceID().String() != trace || sc.SpanID().String() != bridge.SpanID {
		t.Fatalf("the agent's causation_id %q is not the bridge span %s of trace %s", res.CausationID, bridge.SpanID, trace)
	}
	for _, f := range []string{acmeSpans, globexSpans} {
		b, _ := os.ReadFile(f)
		if bytes.Contains(b, []byte("quarterly")) {
			t.Fatalf("%s holds the call's text", f)
		}
	}
	checkLogLines(t, acme.logs())
	checkLogLines(t, globex.logs())
}

// checkLogLines holds every line of a gateway's log to be one JSON object,
// with no member twice, and an error's words on that one line.
func checkLogLines(t *testing.T, log string) {
	t.Helper()
	sc := bufio.NewScanner(strings.NewReader(log))
	sc.Buffer(make([]byte, 1<<16), 1<<22)
	for n := 1; sc.Scan(); n++ {
		line := sc.Bytes()
		dec := json.NewDecoder(bytes.NewReader(line))
		if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
			t.Fatalf("log line %d is not a JSON object: %s", n, line)
		}
		seen := map[string]bool{}
		for dec.More() {
			k, err := dec.Token()
			if err != nil {
				t.Fatalf("log line %d: %v: %s", n, err, line)
			}
			key := k.(string)
			if seen[key] {
				t.Fatalf("log line %d has %q twice: %s", n, key, line)
			}
			seen[key] = true
			var v json.RawMessage
			if err := dec.Decode(&v); err != nil {
				t.Fatalf("log line %d: %v: %s", n, err, line)
			}
		}
		if _, err := dec.Token(); err != nil || dec.More() {
			t.Fatalf("log line %d is not one JSON object: %s", n, line)
		}
		if _, err := dec.Token(); err != io.EOF {
			t.Fatalf("log line %d has more after its object: %s", n, line)
		}
	}
}

// logRecords parses the JSON lines of log.
func logRecords(t *testing.T, log string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(log), "\n") {
		if line == "" {
			continue
		}
		var r map[string]any
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("log line is not JSON: %s", line)
		}
		out = append(out, r)
	}
	return out
}

// tracedRig is a face rig whose gateway traces to a file.
func tracedRig(t *testing.T) *faceRig {
	path := filepath.Join(t.TempDir(), "spans.jsonl")
	return newFaceRig(t, func(s *Server) {
		tr, err := tracing.New(context.Background(), tracing.Config{Exporter: tracing.ExporterFile, Path: path}, "moltgate", s.cfg.Org)
		if err != nil {
			t.Fatal(err)
		}
		s.tracing, s.pipe.Tracing = tr, tr
		s.spans.SetTracing(tr)
	})
}

// TestSecurityLog: each refusal of the cross-face suite is logged once,
// at the level the security model gives its kind, with its code, face,
// trace and span ids, and the message's id when it has one; a session is
// logged at info with its trust level. No line holds what was sent.
func TestSecurityLog(t *testing.T) {
	r := tracedRig(t)
	shared := r.dial(context.Background(), t, pipeline.FaceWS)
	defer shared.close()
	for i, sc := range scenarios() {
		if sc.code == "" {
			continue
		}
		t.Run(strings.ReplaceAll(sc.name, " ", "_"), func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			c := shared
			if sc.fresh {
				c = r.dial(ctx, t, pipeline.FaceWS)
				defer c.close()
			}
			c.t = t
			s := newSender(t, r.acme, fmt.Sprintf("log%d", i))
			c.as = s
			mark := len(r.g.logs())
			a := sc.run(ctx, t, r, c, s)
			if a.code() != sc.code {
				t.Fatalf("answered %s, want %s", a.code(), sc.code)
			}
			// The line is written as the answer goes: wait for it.
			var lines []map[string]any
			for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(5 * time.Millisecond) {
				lines = nil
				for _, rec := range logRecords(t, r.g.logs()[mark:]) {
					if rec["code"] != nil && rec["face"] == pipeline.FaceWS {
						lines = append(lines, rec)
					}
				}
				if len(lines) > 0 || time.Now().After(deadline) {
					break
				}
			}
			if len(lines) != 1 {
				t.Fatalf("%d refusal lines, want 1: %v", len(lines), lines)
			}
			rec := lines[0]
			if rec["code"] != string(sc.code) || rec["level"] != pipeline.Level(sc.code).String() {
				t.Fatalf("logged %v at %v, want %s at %s", rec["code"], rec["level"], sc.code, pipeline.Level(sc.code))
			}
			if rec["trace_id"] == nil || rec["span_id"] == nil || rec["reason"] == "" {
				t.Fatalf("refusal line without trace, span or reason: %v", rec)
			}
			if a.final != nil && a.final.Re != "" && rec["message_id"] != a.final.Re {
				t.Fatalf("refusal line names message %v, the refusal %s", rec["message_id"], a.final.Re)
			}
		})
	}
	logs := r.g.logs()
	for _, words := range []string{"signed text", "forged text"} {
		if strings.Contains(logs, words) {
			t.Fatalf("the log holds what was sent (%q)", words)
		}
	}
	var sessions int
	for _, rec := range logRecords(t, logs) {
		if rec["msg"] == "session established" {
			sessions++
			if rec["level"] != "INFO" || rec["trust_level"] == nil {
				t.Fatalf("session line %v", rec)
			}
		}
	}
	if sessions == 0 {
		t.Fatal("no session established line")
	}
	checkLogLines(t, logs)
}

// TestTracingConfigMistakes: a mistake under [tracing] names its key and
// the way out.
func TestTracingConfigMistakes(t *testing.T) {
	for file, want := range map[string]string{
		"[tracing]\nexporter = \"jaeger\"":                            "tracing.exporter: \"jaeger\" is not one of none, otlp-http, otlp-grpc, file",
		"[tracing]\nexporter = \"otlp-http\"":                         "tracing.endpoint: required for exporter \"otlp-http\"",
		"[tracing]\nexporter = \"file\"":                              "tracing.path: required for exporter \"file\"",
		"[tracing]\nsample_ratio = 2.0":                               "tracing.sample_ratio: 2 is not between 0 and 1",
		"[tracing]\npeer_traces = \"adopt\"":                          "tracing.peer_traces: \"adopt\" is not continue or link",
		"[tracing]\nexporter = \"otlp-grpc\"\nendpoint = \"ftp://x\"": "tracing.endpoint: \"ftp://x\" is not an http or https URL",
		"[log]\nsuccess_sample = 1.5":                                 "log.success_sample: must be between 0 and 1",
	} {
		_, err := ParseConfig("org = \"a\"\n" + file)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: got %v, want %q", file, err, want)
		}
	}
}

// TestCallerTraceReachesPeer: a local caller's traceparent goes on to the
// peer even when its own gateway records no spans, and the peer's spans
// join that trace.
func TestCallerTraceReachesPeer(t *testing.T) {
	da, la := newTestDir(t, "acme", AddAgentOptions{ID: "client", MaxCls: "pii"})
	db, lb := newTestDir(t, "globex", AddAgentOptions{ID: "echo", Capabilities: []string{"echo.text"}, QueryTool: "echo", MaxCls: "pii"})
	trustEachOther(t, da, db, "pii")
	globexSpans := withFileTracing(t, db)
	acme, globex := start(t, da, la, TransportWebSocket), start(t, db, lb, TransportWebSocket)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	const traceID, parent = "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"
	if _, err := acme.s.local.Query(ctx, localbridge.QueryRequest{From: "client", To: "echo@globex", Tool: "echo",
		Input: json.RawMessage(`{"text":"hi"}`), TraceParent: "00-" + traceID + "-" + parent + "-01"}, nil); err != nil {
		t.Fatal(err)
	}
	if err := globex.s.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	for _, s := range readSpanFile(t, globexSpans) {
		if s.Name == "moltspeak tool" {
			if s.TraceID != traceID || s.ParentSpanID != parent {
				t.Fatalf("globex's span %+v is not in the caller's trace", s)
			}
			return
		}
	}
	t.Fatal("globex exported no span of the call")
}

// TestTraceWithTracingOff: with neither gateway recording spans, a local
// caller's trace context still reaches the agent, as its call's
// causation_id.
func TestTraceWithTracingOff(t *testing.T) {
	acme, _ := twoGateways(t, TransportWebSocket)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	const traceID = "4bf92f3577b34da6a3ce929d0e0e4736"
	out, err := acme.s.local.Query(ctx, localbridge.QueryRequest{From: "client", To: "echo@globex", Tool: "echo",
		Input: json.RawMessage(`{"text":"hi","meta":true}`), TraceParent: "00-" + traceID + "-00f067aa0ba902b7-01"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var res struct {
		CausationID string `json:"causation_id"`
	}
	json.Unmarshal(out, &res)
	if sc := tracing.Remote(tracing.Carrier{TraceParent: res.CausationID}); sc.TraceID().String() != traceID {
		t.Fatalf("the agent's causation_id %q is not in the caller's trace", res.CausationID)
	}
}
