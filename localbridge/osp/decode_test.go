package osp

import (
	"bytes"
	stdjson "encoding/json"
	"reflect"
	"testing"
	"unicode/utf8"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

var decodeSeeds = []string{
	`{"call_id":"c","tool_id":"a/t","input":{"q":[1,{"x":"\"}"}]},"timeout_ms":5,"caller":{"type":"agent","id":"x","extra":1},"context":null}`,
	`{"call_id":"c\u00e9\ud83d\ude00\n","status":"succeeded","output":{"a":"b"},"error":{"code":"x","message":"m","retryable":true},"metrics":[1]}`,
	`{"call_id":"c","seq":-3,"channel":"stdout","data":{"text":"t","json":{"n":1}},"done":true}`,
	`{"session_id":"s","uptime_ms":9223372036854775807,"inflight_calls":2,"status":"ok","details":{"q":0}}`,
	`{"call_id":"c","accepted":false,"note":null}`,
	`{"call_id":"c","reason":"r","deadline_ms":1e3}`,
	`{"seq":1.5}`, `{"seq":"1"}`, `{"done":"yes"}`, `{"caller":[]}`, `{"caller":null}`, `{"data":5}`, `null`, `{}`, `[1]`, `"x"`,
	`{"uptime_ms":-9223372036854775808,"inflight_calls":99999999999999999999}`,
	`{"call_id":"\ud800x"}`, `{"call_id":"\udc00"}`, `{"CALL_ID":"upper"}`, ` { "call_id" : "spaced" , "seq" : 2 } `,
	`{"a":1,"\u0061":2}`, `{"a":01}`, `{"a":-}`, `{"a":1.}`, `{"a":.5}`, `{"a":1e}`, `{"a":tru}`, `{"a":"x\u12"}`, `{"a":"\x"}`,
	"{\"a\":\"tab\there\"}", `{"a":[1,]}`, `{"a":1,}`, `{,}`, `{"a" 1}`, `{"a":1}}`, `{"a":1} {}`,
	`{"v":1,"type":"t","id":"i","ts":"s","payload":{"call_id":"c"},"actor":{"type":"agent","id":"x"},"error":{"code":"c","message":"m"}}`,
	`{"v":1,"type":"t","id":"i","actor":7}`, `{"v":1.0,"type":"t","id":"i"}`, `{"v":1,"type":"t","id":"i","payload":[]}`,
	`{"v":1,"type":"agent.tool.result","id":"i","payload":{"call_id":"c","status":"failed","error":{"code":"x","message":"m"},"output":{"a":1}}}`,
	`{"v":1,"type":"agent.tool.stream","id":"i","payload":{"call_id":"c","seq":"2","channel":"stdout"}}`,
	`{"v":1,"payload":{"call_id":"c","seq":2},"type":"agent.tool.stream","id":"i"}`,
	`{"v":1,"type":"core.tool.call","id":"i","payload":{"call_id":"c","caller":{"type":"agent","id":"x"},"input":{}}}`,
	`{"v":1,"type":"agent.heartbeat","id":"i","payload":null}`,
}

// FuzzDecodeFast holds the one-pass decoder to the reflective one on every input, for every
// payload type it handles: the same inputs are valid JSON, the same fail, and the rest decode
// to the same value.
func FuzzDecodeFast(f *testing.F) {
	for _, s := range decodeSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		if !utf8.Valid(in) || !DepthOK(in, MaxDepth) {
			return
		}
		wantValid := jsontext.Value(in).IsValid()
		for _, mk := range []func() any{
			func() any { return new(ToolCall) }, func() any { return new(ToolResult) }, func() any { return new(ToolStream) },
			func() any { return new(Heartbeat) }, func() any { return new(CancelAck) }, func() any { return new(ToolCancel) },
		} {
			fast, ref := mk(), mk()
			handled, valid, ok := decodeFast(in, fast)
			if !handled {
				t.Fatalf("%T not handled", fast)
			}
			if valid != wantValid {
				t.Fatalf("%T on %q: valid %v, jsontext says %v", fast, in, valid, wantValid)
			}
			if !valid {
				continue
			}
			rerr := jsonv2.Unmarshal(in, ref)
			if ok != (rerr == nil) {
				t.Fatalf("%T on %s: fast ok %v, reflective error %v", fast, in, ok, rerr)
			}
			if ok && !reflect.DeepEqual(fast, ref) {
				t.Fatalf("%T on %s:\nfast %+v\nref  %+v", fast, in, fast, ref)
			}
		}
	})
}

// referenceDecode is Decode written with the reflective decoder.
func referenceDecode(frame []byte) (*Envelope, string) {
	if !utf8.Valid(frame) || !DepthOK(frame, MaxDepth) {
		return nil, CodeInvalidFrame
	}
	if b := bytes.TrimLeft(frame, " \t\r\n"); len(b) == 0 || b[0] != '{' || !jsontext.Value(frame).IsValid() {
		return nil, CodeInvalidFrame
	}
	var e Envelope
	if jsonv2.Unmarshal(frame, &e) != nil {
		return nil, CodeInvalidMessage
	}
	switch {
	case e.V != Version:
		return nil, CodeUnsupportedVersion
	case e.Type == "" || e.ID == "":
		return nil, CodeInvalidMessage
	}
	if p := e.Payload; len(p) > 0 && p[0] != '{' && !bytes.Equal(p, []byte("null")) {
		return nil, CodeInvalidMessage
	}
	return &e, ""
}

func FuzzDecodeEnvelope(f *testing.F) {
	for _, s := range decodeSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		want, wantCode := referenceDecode(in)
		got, err := Decode(in)
		code := ""
		if err != nil {
			code = err.(*Error).Code
		}
		if code != wantCode {
			t.Fatalf("%q: code %q, reference %q", in, code, wantCode)
		}
		if err != nil {
			return
		}
		if got.Header != want.Header && !reflect.DeepEqual(got.Header, want.Header) || !bytes.Equal(got.Payload, want.Payload) {
			t.Fatalf("%q:\n got %+v %s\nwant %+v %s", in, got.Header, got.Payload, want.Header, want.Payload)
		}
		// The payload, whether decoded with the envelope or afterwards, is what the
		// reflective decoder makes of it.
		if hot, _ := hotPayload(got.Type); hot != nil {
			ref, _ := hotPayload(got.Type)
			p := want.Payload
			if len(p) == 0 || string(p) == "null" {
				p = []byte("{}")
			}
			rerr := jsonv2.Unmarshal(p, ref)
			derr := got.DecodePayload(hot)
			if (derr == nil) != (rerr == nil) {
				t.Fatalf("%q: payload error %v, reference %v", in, derr, rerr)
			}
			if derr == nil && !reflect.DeepEqual(hot, ref) {
				t.Fatalf("%q: payload\n got %+v\nwant %+v", in, hot, ref)
			}
		}
	})
}

// FuzzUnmarshalAny holds UnmarshalAny to encoding/json with UseNumber on valid input.
func FuzzUnmarshalAny(f *testing.F) {
	for _, s := range decodeSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		got, err := UnmarshalAny(in)
		valid := utf8.Valid(in) && DepthOK(in, MaxDepth) && jsontext.Value(in).IsValid()
		if (err == nil) != valid {
			t.Fatalf("%q: error %v, valid %v", in, err, valid)
		}
		if err != nil {
			return
		}
		d := stdjson.NewDecoder(bytes.NewReader(in))
		d.UseNumber()
		var want any
		if err := d.Decode(&want); err != nil {
			t.Fatalf("%q: encoding/json: %v", in, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%q:\n got %#v\nwant %#v", in, got, want)
		}
	})
}
