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

// randomMember is a value of a random kind for a payload member.
func randomMember(r *rand.Rand) Value {
	switch r.IntN(10) {
	case 0:
		return NullValue()
	case 1:
		return BoolValue(true)
	case 2:
		return IntValue(int64(r.IntN(100)) - 50)
	case 3:
		return Value{kind: Number, s: "1.5"}
	case 4:
		return Value{kind: Number, s: "99999999999999999999"}
	case 5:
		return ObjectValue(Member{"a", StringValue("b")})
	case 6:
		return ArrayValue(IntValue(1))
	default:
		return StringValue(fastStrings[r.IntN(len(fastStrings))])
	}
}

var fastKeys = []string{"action", "stream_id", "type", "chunk_size", "seq", "data", "status", "schema", "tool", "input", "extra"}

// compareBind reports whether the tree bound.
func compareBind(t *testing.T, k int, v Value) bool {
	t.Helper()
	fast := makePayload(k, [4]string{}, [2]int64{}, Value{})
	ref := makePayload(k, [4]string{}, [2]int64{}, Value{})
	ferr := fast.bindFrom(v, "p")
	rerr := bind(v, reflect.ValueOf(ref).Elem(), "p")
	if !sameErr(ferr, errOrNil(rerr)) {
		t.Fatalf("%s: bindFrom %v, bind says %v", AppendCanonical(nil, v), ferr, rerr)
	}
	if ferr == nil && !reflect.DeepEqual(fast, ref) {
		t.Fatalf("%s: bindFrom %#v, bind %#v", AppendCanonical(nil, v), fast, ref)
	}
	return ferr == nil
}

func errOrNil(e *Error) error {
	if e == nil {
		return nil
	}
	return e
}

func TestFastPayloadsBind(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	bound := 0
	for i := range 20000 {
		var v Value
		if r.IntN(20) == 0 {
			v = randomMember(r) // not an object at all
		} else {
			var members []Member
			typed := r.IntN(2) == 0 // well-typed members, so that binds succeed too
			for _, key := range fastKeys {
				if r.IntN(3) == 0 {
					continue
				}
				m := randomMember(r)
				if typed {
					switch key {
					case "chunk_size", "seq":
						m = IntValue(int64(r.IntN(100)) - 10)
					case "data", "input", "extra":
					default:
						m = StringValue(fastStrings[r.IntN(len(fastStrings))])
					}
				}
				members = append(members, Member{key, m})
			}
			v = ObjectValue(members...)
		}
		if compareBind(t, i, v) {
			bound++
		}
	}
	if bound < 2000 {
		t.Fatalf("only %d of the trees bound: the generator tests refusals only", bound)
	}
}

func FuzzFastPayloadsBind(f *testing.F) {
	f.Add([]byte(`{"action":"chunk","stream_id":"s-1","seq":3,"data":{"t":1},"status":"success"}`))
	f.Add([]byte(`{"status":"success","data":null,"schema":"x"}`))
	f.Add([]byte(`{"action":"invoke","tool":"echo","input":{"text":"hi"}}`))
	f.Add([]byte(`{"action":1,"seq":1.5,"chunk_size":99999999999999999999}`))
	f.Add([]byte(`[1]`))
	f.Fuzz(func(t *testing.T, b []byte) {
		v, err := Parse(b, 0)
		if err != nil {
			return
		}
		for k := range 3 {
			compareBind(t, k, v)
		}
	})
}
