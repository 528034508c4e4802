package grpcface

import (
	"bytes"
	"strings"
	"testing"
)

func TestProtoFramingRoundTrips(t *testing.T) {
	for _, env := range []string{`{"v":"0.1"}`, strings.Repeat("x", 300), strings.Repeat("y", 70000)} {
		b := toProto([]byte(env))
		got, ok := fromProto(b)
		if !ok || string(got) != env {
			t.Fatalf("%.20q: framed %x, read back %.20q %v", env, b[:min(len(b), 8)], got, ok)
		}
		if in := unframeInPlace(bytes.Clone(b)); string(in) != env {
			t.Fatalf("%.20q: unframed in place to %.20q", env, in)
		}
	}
	if b := toProto(nil); len(b) != 0 {
		t.Fatalf("an empty envelope framed as %x", b)
	}
}

// Raw envelopes are never taken for framed ones: JSON, with or without
// white space before it, and what is close to a frame but not one.
func TestRawIsNotProto(t *testing.T) {
	for _, raw := range []string{
		`{"moltspeak":"0.1","sig":"ed25519:AAAA"}`,
		"\n{\"moltspeak\":\"0.1\"}",
		"\n\n\n", "\n",
		"\n\x05abc",    // a length past the end
		"\n\x02abcdef", // bytes after the field
		"\x12\x03abc",  // field 2
		"",
	} {
		if _, ok := fromProto([]byte(raw)); ok {
			t.Errorf("%q taken for a framed envelope", raw)
		}
	}
}

func FuzzProtoFraming(f *testing.F) {
	f.Add([]byte(`{"v":"0.1"}`))
	f.Add([]byte("\n\x03abc"))
	f.Fuzz(func(t *testing.T, b []byte) {
		if env, ok := fromProto(b); ok {
			if again, ok := fromProto(toProto(env)); len(env) > 0 && (!ok || !bytes.Equal(again, env)) {
				t.Fatalf("%x read as %x, which does not read back", b, env)
			}
		}
		if len(b) > 0 {
			if env, ok := fromProto(toProto(b)); !ok || !bytes.Equal(env, b) {
				t.Fatalf("%x did not round-trip", b)
			}
		}
	})
}
