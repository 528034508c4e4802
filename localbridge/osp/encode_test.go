package osp

import (
	"bytes"
	"crypto/rand"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"
)

// stdEnvelope is what encoding/json makes of a message; Marshal must agree with it.
func stdEncode(t testing.TB, h *Header, p any) []byte {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(struct {
		*Header
		Payload any `json:"payload"`
	}{h, p}); err != nil {
		t.Fatal(err)
	}
	return bytes.TrimSpace(buf.Bytes())
}

func sameJSON(t testing.TB, a, b []byte) {
	t.Helper()
	var x, y any
	if err := json.Unmarshal(a, &x); err != nil {
		t.Fatalf("%s: %v", a, err)
	}
	if err := json.Unmarshal(b, &y); err != nil {
		t.Fatalf("%s: %v", b, err)
	}
	if !reflect.DeepEqual(x, y) {
		t.Fatalf("encodings differ:\n%s\n%s", a, b)
	}
}

func TestMarshalMatchesEncodingJSON(t *testing.T) {
	h := &Header{V: 1, Type: TypeToolResult, ID: "i", TS: "t", InReplyTo: "r", RequestID: "q", CorrelationID: "c", CausationID: "z",
		Actor: &Actor{Type: "agent", ID: "a@b", Display: "A"}, Error: &Error{Code: "x.y", Message: "m\n\"", Details: json.RawMessage(`{"k":[1,2]}`), Retryable: true, Where: "w"}}
	payloads := []any{
		nil,
		ToolCall{CallID: "c", ToolID: "a/t", Input: json.RawMessage(`{"q":"<x> & \u2028"}`), TimeoutMS: 5, IdempotencyKey: "k", Caller: &Caller{Type: "agent", ID: "x"}, Context: json.RawMessage(`{"ui":{}}`)},
		&ToolCall{CallID: "c", ToolID: "a/t", Input: json.RawMessage(`{}`)},
		ToolStream{CallID: "c", Seq: 3, Channel: "stdout", Data: StreamData{Text: "tab\there\x01\x7f é \xff"}, Done: true},
		ToolStream{CallID: "c", Seq: 1, Channel: "partial_result", Data: StreamData{JSON: json.RawMessage(`{"n":1}`)}},
		ToolStream{CallID: "c", Seq: 1, Channel: "stdout", Data: StreamData{Text: "a", JSON: json.RawMessage(`{"n":1}`)}},
		ToolStream{CallID: "c", Seq: 1, Channel: "stdout"},
		ToolResult{CallID: "c", Status: "succeeded", Output: json.RawMessage(`{"a":"b"}`), StartedAt: "s", FinishedAt: "f", Metrics: json.RawMessage(`{"ms":1}`)},
		&ToolResult{CallID: "c", Status: "failed", Error: &Error{Code: "tool.x", Message: "no"}},
		ToolCancel{CallID: "c", Reason: "deadline", DeadlineMS: 30000},
		CancelAck{CallID: "c", Accepted: true, Note: "n"},
		CancelAck{CallID: "c"},
		Heartbeat{SessionID: "s", UptimeMS: 10, InflightCalls: 2, Status: "ok", Details: json.RawMessage(`{"queue_depth":0}`)},
		Goodbye{Reason: "shutting_down"},
		json.RawMessage(`{"raw":true}`),
	}
	for _, p := range payloads {
		got, err := Marshal(h, p)
		if err != nil {
			t.Fatal(err)
		}
		want := stdEncode(t, h, p)
		if p == nil {
			want = bytes.Replace(want, []byte(`"payload":null`), []byte(`"payload":{}`), 1)
		}
		sameJSON(t, got, want)
	}
	// The plain header alone, byte for byte.
	plain := &Header{V: 1, Type: "core.welcome", ID: "x", TS: "y"}
	got, _ := Marshal(plain, CancelAck{CallID: "c", Accepted: true})
	if want := stdEncode(t, plain, CancelAck{CallID: "c", Accepted: true}); !bytes.Equal(got, want) {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
	if _, err := Marshal(plain, ToolCall{Input: json.RawMessage(`{bad`)}); err == nil {
		t.Fatal("invalid raw input encoded")
	}
}

func TestTimestamp(t *testing.T) {
	for _, tm := range []time.Time{
		time.Unix(0, 0), time.Unix(1700000000, 5e6), time.Date(2026, 12, 31, 23, 59, 59, 999999999, time.FixedZone("x", 3600)),
		time.Date(12000, 1, 1, 0, 0, 0, 0, time.UTC), time.Now(),
	} {
		want := tm.UTC().Format("2006-01-02T15:04:05.000Z07:00")
		if got := Timestamp(tm); got != want {
			t.Errorf("got %s, want %s", got, want)
		}
	}
}

func TestIDSource(t *testing.T) {
	g, err := NewIDSource(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for range 1000 {
		id := g.New()
		if seen[id] || len(id) != 36 || id[14] != '4' || !strings.ContainsRune("89ab", rune(id[19])) {
			t.Fatalf("bad or repeated id %q", id)
		}
		seen[id] = true
	}
	if _, err := NewIDSource(bytes.NewReader(nil)); err == nil {
		t.Fatal("empty seed accepted")
	}
}

// FuzzMarshal checks the hand-written encoder against encoding/json for arbitrary strings.
func FuzzMarshal(f *testing.F) {
	f.Add("call", "hello", "succeeded", int64(1))
	f.Add("\x00\x1f\"\\", "\xff\xfe<>&\u2028\u2029", "é", int64(-5))
	f.Fuzz(func(t *testing.T, id, text, status string, n int64) {
		h := &Header{V: 1, Type: text, ID: id, TS: status, CorrelationID: text}
		for _, p := range []any{
			ToolStream{CallID: id, Seq: n, Channel: status, Data: StreamData{Text: text}},
			ToolResult{CallID: id, Status: status, StartedAt: text, Error: &Error{Code: text, Message: id}},
			Heartbeat{SessionID: id, UptimeMS: n, Status: text},
			ToolCall{CallID: id, ToolID: text, Input: json.RawMessage(`{}`), TimeoutMS: n, Caller: &Caller{Type: status, ID: text}},
		} {
			got, err := Marshal(h, p)
			if err != nil {
				t.Fatal(err)
			}
			sameJSON(t, got, stdEncode(t, h, p))
			if _, err := Decode(got); err != nil && h.V == 1 && text != "" && id != "" {
				t.Fatalf("own encoding does not decode: %v", err)
			}
		}
	})
}
