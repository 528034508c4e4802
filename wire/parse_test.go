package wire

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"
)

func wantErr(t *testing.T, err error, code Code, field string) {
	t.Helper()
	var we *Error
	if !errors.As(err, &we) {
		t.Fatalf("got %v, want %s at %q", err, code, field)
	}
	if we.Code != code || we.Field != field {
		t.Fatalf("got %s at %q (%s), want %s at %q", we.Code, we.Field, we.Message, code, field)
	}
}

func TestParseRefuses(t *testing.T) {
	cases := []struct {
		name, in, field string
	}{
		{"empty", ``, ""},
		{"trailing data", `{"a":1} {}`, ""},
		{"trailing comma", `{"a":1,}`, ""},
		{"duplicate key", `{"a":1,"a":2}`, "a"},
		{"nested duplicate", `{"p":{"x":[{"k":1,"k":1}]}}`, "p.x[0].k"},
		{"duplicate after many keys", `{"a0":0,"a1":0,"a2":0,"a3":0,"a4":0,"a5":0,"a6":0,"a7":0,"a8":0,"a9":0,"b0":0,"b1":0,"b2":0,"b3":0,"b4":0,"b5":0,"b6":0,"a3":1}`, "a3"},
		{"invalid utf-8", "{\"a\":\"\xff\"}", "a"},
		{"overlong utf-8", "{\"a\":\"\xc0\xaf\"}", "a"},
		{"utf-8 surrogate", "{\"a\":\"\xed\xa0\x80\"}", "a"},
		{"invalid utf-8 in key", "{\"\xfe\":1}", ""},
		{"lone high surrogate", `{"a":"\ud800"}`, "a"},
		{"lone low surrogate", `{"a":"\udc00x"}`, "a"},
		{"high then letter", `{"a":"\ud800\u0041"}`, "a"},
		{"bad escape", `{"a":"\x"}`, "a"},
		{"control character", "{\"a\":\"\x01\"}", "a"},
		{"raw newline", "{\"a\":\"line\nbreak\"}", "a"},
		{"leading zero", `{"a":01}`, "a"},
		{"plus sign", `{"a":+1}`, "a"},
		{"bare fraction", `{"a":.5}`, "a"},
		{"NaN", `{"a":NaN}`, "a"},
		{"Infinity", `{"a":Infinity}`, "a"},
		{"overflow", `{"a":1e400}`, "a"},
		{"unsafe integer", `{"a":9007199254740993}`, "a"},
		{"unsafe negative integer", `{"a":[-9007199254740992]}`, "a[0]"},
		{"single quotes", `{'a':1}`, ""},
		{"comment", `{"a":1 /* no */}`, ""},
		{"byte order mark", "\xef\xbb\xbf{}", ""},
		{"unterminated", `{"a":"b`, "a"},
		{"deep array path", `{"a":[1,2,[3,tru]]}`, "a[2][1]"},
		{"quoted key path", `{"a.b":{"c d":nul}}`, `["a.b"]["c d"]`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse([]byte(c.in), 0)
			wantErr(t, err, ErrParse, c.field)
		})
	}
}

func TestParseDepth(t *testing.T) {
	nest := func(n int) string { return strings.Repeat("[", n) + strings.Repeat("]", n) }
	if _, err := Parse([]byte(nest(64)), 64); err != nil {
		t.Fatalf("depth 64: %v", err)
	}
	_, err := Parse([]byte(nest(65)), 64)
	var we *Error
	if !errors.As(err, &we) || we.Code != ErrParse || !strings.Contains(we.Message, "nesting") {
		t.Fatalf("depth 65: %v", err)
	}
	// A hostile depth must not exhaust the stack.
	if _, err := Parse([]byte(nest(1_000_000)), 64); err == nil {
		t.Fatal("depth 1e6 accepted")
	}
}

func TestParseAccepts(t *testing.T) {
	for _, in := range []string{
		`{}`, `[]`, ` { "a" : [ 1 , -0 , 0.5 , 1e3 , 1E-3 , true , false , null ] } `,
		`"\u00e9\ud83d\ude00\/"`, `{"a":"\u0000"}`, `-0.0`, `1.7976931348623157e308`,
		`9007199254740991`, `-9007199254740991`, `9007199254740993.0`,
	} {
		if _, err := Parse([]byte(in), 0); err != nil {
			t.Errorf("%s: %v", in, err)
		}
	}
}

func TestParseDoesNotAlias(t *testing.T) {
	b := []byte(`{"k":"value"}`)
	v, err := Parse(b, 0)
	if err != nil {
		t.Fatal(err)
	}
	copy(b, `{"k":"XXXXX"}`)
	if s, _ := v.Get("k").Str(); s != "value" {
		t.Fatalf("parsed value changed with its input: %q", s)
	}
}

// TestWordScanners checks the word-at-a-time tests against byte-by-byte
// definitions, for every byte value in every position and on random words.
func TestWordScanners(t *testing.T) {
	slowCanon := func(s string) bool {
		for i := 0; i < len(s); i++ {
			if c := s[i]; c < 0x20 || c == '"' || c == '\\' {
				return false
			}
		}
		return true
	}
	check := func(w []byte) {
		s := string(w)
		if len(s) == 8 && noEscape8(load64(s)) != slowCanon(s) {
			t.Fatalf("noEscape8 disagrees on %q", s)
		}
		// checkPlain refuses exactly the runs with a control character
		// or invalid UTF-8.
		p := &parser{b: w}
		want := utf8.Valid(w) && !bytes.ContainsFunc(w, func(r rune) bool { return r < 0x20 })
		if got := p.checkPlain(w, 0) == nil; got != want {
			t.Fatalf("checkPlain(%q) = %v, want %v", s, got, want)
		}
	}
	for pos := 0; pos < 8; pos++ {
		for b := 0; b < 256; b++ {
			for _, fill := range []byte{'a', 0x7f, 0x80, 0xff, 0x21, 0x5d} {
				w := bytes.Repeat([]byte{fill}, 8)
				w[pos] = byte(b)
				check(w)
				check(w[:pos+1])
			}
		}
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 200000 {
		var w [11]byte
		for i := range w {
			w[i] = byte(r.Uint32())
			if r.IntN(2) == 0 {
				w[i] &= 0x7f
			}
		}
		check(w[:])
	}
}

func TestValueEqual(t *testing.T) {
	parse := func(s string) Value {
		t.Helper()
		v, err := Parse([]byte(s), 0)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	same := [][2]string{
		{`{"a":1,"b":[true,null,"x"]}`, `{"a":1,"b":[true,null,"x"]}`},
		{`[]`, `[]`},
		{`"é"`, `"\u00e9"`},
	}
	for _, c := range same {
		if !parse(c[0]).Equal(parse(c[1])) {
			t.Errorf("%s and %s differ", c[0], c[1])
		}
	}
	differ := [][2]string{
		{`{"a":1}`, `{"a":2}`},
		{`{"a":1}`, `{"b":1}`},
		{`{"a":1,"b":2}`, `{"b":2,"a":1}`}, // order counts: the same value, not the same message
		{`[1]`, `[1,1]`},
		{`1`, `1.0`},
		{`"1"`, `1`},
		{`{}`, `[]`},
		{`{"a":{"b":[1,{"c":"x"}]}}`, `{"a":{"b":[1,{"c":"y"}]}}`},
	}
	for _, c := range differ {
		if parse(c[0]).Equal(parse(c[1])) {
			t.Errorf("%s and %s are equal", c[0], c[1])
		}
	}
}
