package osp

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
)

// FuzzReader feeds arbitrary bytes to the frame reader and the decoder. Neither may panic, a
// frame is never longer than the limit, and every message that decodes survives an
// encode-decode round trip with its envelope unchanged.
func FuzzReader(f *testing.F) {
	f.Add(frames(`{"v":1,"type":"agent.hello","id":"1","ts":"t","payload":{"session_token":"x"}}`))
	f.Add(frames(`{"v":1,"type":"agent.tool.result","id":"2","payload":{"call_id":"c","status":"succeeded"}}`, `{"v":1}`))
	f.Add([]byte{0xff, 0xff, 0xff, 0xff})
	f.Add([]byte{0, 0, 0, 0})
	f.Add([]byte{0, 0, 0, 9, '{', '"', 0xff})
	f.Add(frames(`{"v":1,"type":"t","id":"1","payload":{"a":[[[[[[[[]]]]]]]]}}`))
	const limit = 1 << 16
	f.Fuzz(func(t *testing.T, data []byte) {
		r := NewReader(bytes.NewReader(data), limit)
		for {
			frame, err := r.ReadFrame()
			if err != nil {
				return
			}
			if len(frame) == 0 || len(frame) > limit {
				t.Fatalf("frame of %d bytes", len(frame))
			}
			e, err := Decode(frame)
			if err != nil {
				if _, ok := err.(*Error); !ok {
					t.Fatalf("decode error of type %T", err)
				}
				continue
			}
			var payload any
			if err := json.Unmarshal(e.Payload, &payload); len(e.Payload) > 0 && err != nil {
				t.Fatalf("decoded payload is not JSON: %v", err)
			}
			b, err := Marshal(&e.Header, e.Payload)
			if err != nil {
				t.Fatalf("re-encode: %v", err)
			}
			e2, err := Decode(b)
			if err != nil {
				t.Fatalf("re-decode: %v", err)
			}
			if e2.Header.Error != nil || e.Header.Error != nil {
				e2.Header.Error, e.Header.Error = nil, nil
			}
			if e.Actor != nil && e2.Actor != nil && *e.Actor == *e2.Actor {
				e.Actor, e2.Actor = nil, nil
			}
			if e2.Header != e.Header {
				t.Fatalf("header changed: %+v != %+v", e2.Header, e.Header)
			}
		}
	})
}

// FuzzValidValue holds the check of raw values that the encoder applies to the reflective
// decoder's.
func FuzzValidValue(f *testing.F) {
	for _, s := range []string{`{}`, ` {"a":[1,2.5e3,"x\u00e9"]} `, `{"a":1,"a":2}`, `[`, `"\ud800"`, "\"\xff\"", `nul`, `1 2`, `{"a":{"b":{"b":1}}}`, `-0.0e-0`, `01`, ``, ` `} {
		f.Add([]byte(s))
	}
	f.Add([]byte(strings.Repeat("[", 10001) + strings.Repeat("]", 10001)))
	f.Fuzz(func(t *testing.T, b []byte) {
		if got, want := validValue(b), jsontext.Value(b).IsValid(); got != want {
			t.Fatalf("validValue(%q) = %v, jsontext says %v", b, got, want)
		}
	})
}
