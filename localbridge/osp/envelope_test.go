package osp

import (
	"bytes"
	"crypto/rand"
	"encoding/json"
	"errors"
	"regexp"
	"strings"
	"testing"
	"time"
)

func TestDecode(t *testing.T) {
	deep := strings.Repeat("[", MaxDepth) + strings.Repeat("]", MaxDepth)
	tooDeep := strings.Repeat("[", MaxDepth+1) + strings.Repeat("]", MaxDepth+1)
	cases := []struct {
		name, frame, code string
	}{
		{"minimal", `{"v":1,"type":"agent.heartbeat","id":"1","ts":"x","payload":{}}`, ""},
		{"unknown fields", `{"v":1,"type":"t","id":"1","extra":{"a":[1]},"payload":{"new":true}}`, ""},
		{"no payload", `{"v":1,"type":"t","id":"1"}`, ""},
		{"null payload", `{"v":1,"type":"t","id":"1","payload":null}`, ""},
		{"nested to the limit", `{"v":1,"type":"t","id":"1","payload":{"x":` + deep[2:len(deep)-2] + `}}`, ""},
		{"string brackets do not count", `{"v":1,"type":"t","id":"1","payload":{"x":"` + strings.Repeat("[", 500) + `\"["}}`, ""},
		{"invalid utf-8", "{\"v\":1,\"type\":\"t\",\"id\":\"\xff\"}", CodeInvalidFrame},
		{"too deep", `{"v":1,"type":"t","id":"1","payload":{"x":` + tooDeep + `}}`, CodeInvalidFrame},
		{"array", `[1,2]`, CodeInvalidFrame},
		{"string", `"hello"`, CodeInvalidFrame},
		{"truncated", `{"v":1,"type":"t"`, CodeInvalidFrame},
		{"trailing garbage", `{"v":1,"type":"t","id":"1"} x`, CodeInvalidFrame},
		{"two objects", `{"v":1,"type":"t","id":"1"}{}`, CodeInvalidFrame},
		{"wrong v type", `{"v":"1","type":"t","id":"1"}`, CodeInvalidMessage},
		{"wrong version", `{"v":2,"type":"t","id":"1"}`, CodeUnsupportedVersion},
		{"no version", `{"type":"t","id":"1"}`, CodeUnsupportedVersion},
		{"no type", `{"v":1,"id":"1"}`, CodeInvalidMessage},
		{"no id", `{"v":1,"type":"t"}`, CodeInvalidMessage},
		{"payload array", `{"v":1,"type":"t","id":"1","payload":[1]}`, CodeInvalidMessage},
		{"payload string", `{"v":1,"type":"t","id":"1","payload":"x"}`, CodeInvalidMessage},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Decode([]byte(c.frame))
			if c.code == "" {
				if err != nil {
					t.Fatalf("got %v, want success", err)
				}
				return
			}
			var e *Error
			if !errors.As(err, &e) || e.Code != c.code {
				t.Fatalf("got %v, want code %s", err, c.code)
			}
		})
	}
}

func TestErrorsDoNotEchoContent(t *testing.T) {
	secret := "s3cr3t-content"
	for _, f := range []string{
		`{"v":1,"type":"t","id":"1","payload":"` + secret + `"}`,
		`{"v":1,"type":"t","id":"1","payload":{"` + secret + `"`,
		`{"v":1,"type":"` + secret + `","id":1}`,
	} {
		_, err := Decode([]byte(f))
		if err == nil || strings.Contains(err.Error(), secret) {
			t.Fatalf("error %q for %q", err, f)
		}
	}
	e := &Envelope{Header: Header{Type: "agent.hello"}, Payload: json.RawMessage(`{"session_token":["` + secret + `"]}`)}
	var h Hello
	if err := e.DecodePayload(&h); err == nil || strings.Contains(err.Error(), secret) {
		t.Fatalf("payload error %q", err)
	}
}

func TestMarshalRoundTrip(t *testing.T) {
	h := &Header{V: Version, Type: TypeToolCall, ID: "id-1", TS: Timestamp(time.Unix(1700000000, 5e6)), RequestID: "r", CorrelationID: "c"}
	call := ToolCall{CallID: "c1", ToolID: "a/b", Input: json.RawMessage(`{"q":"x"}`), TimeoutMS: 1500}
	b, err := Marshal(h, call)
	if err != nil {
		t.Fatal(err)
	}
	e, err := Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	if e.Header != *h {
		t.Fatalf("header: got %+v, want %+v", e.Header, *h)
	}
	var got ToolCall
	if err := e.DecodePayload(&got); err != nil {
		t.Fatal(err)
	}
	if got.CallID != call.CallID || got.ToolID != call.ToolID || !bytes.Equal(got.Input, call.Input) || got.TimeoutMS != call.TimeoutMS {
		t.Fatalf("payload: got %+v", got)
	}
	if e.TS != "2023-11-14T22:13:20.005Z" {
		t.Fatalf("ts %q", e.TS)
	}
	b, err = Marshal(&Header{V: 1, Type: "x", ID: "y"}, nil)
	if err != nil || !bytes.Contains(b, []byte(`"payload":{}`)) {
		t.Fatalf("nil payload: %s %v", b, err)
	}
}

func TestNewID(t *testing.T) {
	re := regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)
	seen := map[string]bool{}
	for range 100 {
		id, err := NewID(rand.Reader)
		if err != nil {
			t.Fatal(err)
		}
		if !re.MatchString(id) || seen[id] {
			t.Fatalf("bad or repeated id %q", id)
		}
		seen[id] = true
	}
	if _, err := NewID(bytes.NewReader(make([]byte, 3))); err == nil {
		t.Fatal("short random source accepted")
	}
}

func TestPayloadOf(t *testing.T) {
	e, err := Decode([]byte(`{"v":1,"type":"agent.tool.result","id":"1","payload":{"call_id":"c","status":"succeeded","output":{"a":1}}}`))
	if err != nil {
		t.Fatal(err)
	}
	r, err := PayloadOf[ToolResult](e)
	if err != nil || r.CallID != "c" || r.Status != StatusSucceeded || string(r.Output) != `{"a":1}` {
		t.Fatalf("%+v, %v", r, err)
	}
	if e, err = Decode([]byte(`{"v":1,"type":"agent.tool.result","id":"1","payload":{"call_id":7}}`)); err != nil {
		t.Fatal(err)
	}
	if _, err := PayloadOf[ToolResult](e); err == nil {
		t.Fatal("a call_id of the wrong kind was accepted")
	}
	if e, err = Decode([]byte(`{"v":1,"type":"core.goodbye","id":"1","payload":{"reason":"r"}}`)); err != nil {
		t.Fatal(err)
	}
	if g, err := PayloadOf[Goodbye](e); err != nil || g.Reason != "r" {
		t.Fatalf("%+v, %v", g, err)
	}
}
