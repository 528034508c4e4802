package wire

import (
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

// The hand-written trees and checks of the hot payloads must say exactly
// what the reflective path says: the same members in the same order, and
// the same first error, code, field and message.

var fastStrings = []string{
	"", "x", "start", "chunk", "end", "invoke", "list", "success", "error", "partial", "cancelled", "Start",
	strings.Repeat("a", 64), strings.Repeat("a", 65), strings.Repeat("é", 64), strings.Repeat("é", 65),
	strings.Repeat("b", 128), strings.Repeat("b", 129), strings.Repeat("ü", 128), strings.Repeat("ü", 129),
	strings.Repeat("c", 256), strings.Repeat("c", 257), strings.Repeat("😀", 256), strings.Repeat("😀", 257),
	"\xff", "ok\xc3", "tab\tand \"quote\"",
}

var fastInts = []int64{0, 1, -1, 20, 1 << 40, -1 << 40}

func fastValues() []Value {
	return []Value{{}, NullValue(), StringValue("text"), IntValue(7),
		ObjectValue(Member{"sent_us", IntValue(17)}, Member{"text", StringValue("hi")}), ArrayValue(BoolValue(true))}
}

// makePayload builds a payload of kind k (0 stream, 1 respond, 2 tool) from
// the picks.
func makePayload(k int, s [4]string, n [2]int64, v Value) fastPayload {
	switch k % 3 {
	case 0:
		return &StreamPayload{Action: s[0], StreamID: s[1], Type: s[2], ChunkSize: n[0], Seq: n[1], Data: v, Status: s[3]}
	case 1:
		return &RespondPayload{Status: s[0], Data: v, Schema: s[1]}
	default:
		return &ToolPayload{Action: s[0], Tool: s[1], Input: v}
	}
}

func compareFast(t *testing.T, codec *Codec, p fastPayload) {
	t.Helper()
	got, gerr := p.appendMembers(nil, "p")
	want, werr := valueOf(reflect.ValueOf(p), "p")
	if !sameErr(gerr, werr) {
		t.Fatalf("%#v: tree error %v, reflection says %v", p, gerr, werr)
	}
	if gerr == nil {
		g, w := string(AppendCanonical(nil, Value{kind: Object, items: got})), string(AppendCanonical(nil, want))
		if g != w || len(got) != len(want.items) {
			t.Fatalf("%#v: tree\n%s\nreflection\n%s", p, g, w)
		}
		for i := range got {
			if got[i].Key != want.items[i].Key {
				t.Fatalf("%#v: member %d is %q, reflection has %q", p, i, got[i].Key, want.items[i].Key)
			}
		}
	}
	var verr error
	if err := codec.validate.Struct(p); err != nil {
		verr = validationError(err, "p")
	}
	if cerr := p.check("p"); !sameErr(cerr, verr) {
		t.Fatalf("%#v: check %v, validator says %v", p, cerr, verr)
	}
}

func sameErr(a *Error, b error) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	e, ok := b.(*Error)
	return ok && a.Code == e.Code && a.Field == e.Field && a.Message == e.Message
}

func TestFastPayloads(t *testing.T) {
	codec := NewCodec(Limits{})
	r := rand.New(rand.NewPCG(3, 4))
	values := fastValues()
	pick := func() string { return fastStrings[r.IntN(len(fastStrings))] }
	for i := range 20000 {
		s := [4]string{pick(), pick(), pick(), pick()}
		// Valid values half the time, so that later fields get checked too.
		if r.IntN(2) == 0 {
			s[0] = []string{"start", "chunk", "end", "success", "invoke", "list"}[r.IntN(6)]
			s[1] = "s-1"
		}
		n := [2]int64{fastInts[r.IntN(len(fastInts))], fastInts[r.IntN(len(fastInts))]}
		compareFast(t, codec, makePayload(i, s, n, values[r.IntN(len(values))]))
	}
}

func FuzzFastPayloads(f *testing.F) {
	f.Add(0, "chunk", "s-1", "text", "", int64(1), int64(2), 2)
	f.Add(1, "success", "", "", "", int64(0), int64(0), 4)
	f.Add(2, "invoke", "echo", "", "", int64(0), int64(0), 0)
	f.Add(2, "invoke", "", "", "", int64(0), int64(0), 0)
	f.Add(0, "end", strings.Repeat("é", 129), "", "done", int64(-1), int64(0), 1)
	codec := NewCodec(Limits{})
	values := fastValues()
	f.Fuzz(func(t *testing.T, kind int, a, b, c, d string, n1, n2 int64, v int) {
		if kind < 0 {
			kind = -kind
		}
		if v < 0 {
			v = -v
		}
		compareFast(t, codec, makePayload(kind, [4]string{a, b, c, d}, [2]int64{n1, n2}, values[v%len(values)]))
	})
}
