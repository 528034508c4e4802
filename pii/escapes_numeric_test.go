package pii

import (
	"strings"
	"testing"
)

func TestNumericEscapes(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`printf '\155\141\151\154\100\145\170\056\143\157'`, "printf 'mail@ex.co'"},
		{`content: "\6d \61 il\40 ex\2e co";`, `content: "mail@ex.co";`},
		{`\6d\61il\40 ex\2e co`, "mail@ex.co"},
		{`\061 9`, "1 9"},          // three octal digits opening with 0 are C's, before a space too
		{`\1 and \9`, `\1 and \9`}, // one digit is a back-reference, not an escape
	} {
		v, at := escapeView(c.in)
		if at == nil {
			v = c.in
		}
		if v != c.want {
			t.Errorf("escapeView(%q) = %q, want %q", c.in, v, c.want)
		}
	}
}

// TestNumericEscapesFound: values written in octal or CSS escapes are found where the escapes
// are, and the same text without a backslash finds nothing.
func TestNumericEscapesFound(t *testing.T) {
	sc, err := New(nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{
		`printf '\064\061\061\061\040\061\061\061\061\040\061\061\061\061\040\061\061\061\061'`,
		`content: "\6a \61 ne\40 ex\61 mple\2e org";`,
	} {
		if fs := sc.ScanText(s); len(fs) == 0 {
			t.Errorf("nothing found in %q", s)
		}
	}
}

// TestNumericEscapesWorstCase: a text of nothing but escapes and digits makes a view no longer
// than itself, in one pass.
func TestNumericEscapesWorstCase(t *testing.T) {
	for _, unit := range []string{`\0`, `\123`, `\1234567`, `\12 `, `\9f`, `\\1`} {
		s := strings.Repeat(unit, 1<<14)
		v, at := escapeView(s)
		if at != nil && (len(v) > len(s) || len(at) != len(v)+1) {
			t.Errorf("%q repeated: view of %d bytes, %d offsets, from %d bytes", unit, len(v), len(at), len(s))
		}
		if !hasEscape(s) && at != nil {
			t.Errorf("%q repeated: a view made where hasEscape says there is none", unit)
		}
	}
}

func FuzzEscapeView(f *testing.F) {
	for _, s := range []string{`\064\061`, `\34 4\35 `, `\u{40}\x40\u0040`, `\`, `\0`, `\12345678 `} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, at := escapeView(s)
		if at == nil {
			return
		}
		if len(at) != len(v)+1 || int(at[len(v)]) != len(s) {
			t.Fatalf("%d offsets for a view of %d bytes", len(at), len(v))
		}
		for k := 1; k < len(at); k++ {
			if at[k] < at[k-1] || int(at[k]) > len(s) {
				t.Fatalf("offset %d: %d after %d", k, at[k], at[k-1])
			}
		}
	})
}
