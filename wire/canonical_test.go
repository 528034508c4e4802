package wire

import (
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"
)

func canon(t *testing.T, in string) string {
	t.Helper()
	v, err := Parse([]byte(in), 0)
	if err != nil {
		t.Fatalf("%s: %v", in, err)
	}
	return string(AppendCanonical(nil, v))
}

// The examples of RFC 8785, sections 3.2.2 and 3.2.3.
func TestCanonicalRFC8785(t *testing.T) {
	in := `{
  "numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001],
  "string": "\u20ac$\u000F\u000aA'\u0042\u0022\u005c\\\"\/",
  "literals": [null, true, false]
}`
	want := `{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],"string":"€$\u000f\nA'B\"\\\\\"/"}`
	if got := canon(t, in); got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
	sorting := `{"\u20ac":"Euro Sign","\r":"Carriage Return","\ufb33":"Hebrew Letter Dalet With Dagesh","1":"One","\ud83d\ude00":"Emoji: Grinning Face","\u0080":"Control","\u00f6":"Latin Small Letter O With Diaeresis"}`
	var keys []string
	v, _ := Parse([]byte(canon(t, sorting)), 0)
	for _, m := range v.Members() {
		keys = append(keys, m.Key)
	}
	wantKeys := []string{"\r", "1", "\u0080", "\u00f6", "\u20ac", "\U0001F600", "\ufb33"}
	if strings.Join(keys, "|") != strings.Join(wantKeys, "|") {
		t.Fatalf("key order %q, want %q", keys, wantKeys)
	}
}

// The number serialisation samples of RFC 8785, appendix B.
func TestES6Numbers(t *testing.T) {
	cases := map[string]string{
		"0000000000000000": "0",
		"8000000000000000": "0",
		"0000000000000001": "5e-324",
		"8000000000000001": "-5e-324",
		"7fefffffffffffff": "1.7976931348623157e+308",
		"ffefffffffffffff": "-1.7976931348623157e+308",
		"4340000000000000": "9007199254740992",
		"c340000000000000": "-9007199254740992",
		"4430000000000000": "295147905179352830000",
		"44b52d02c7e14af5": "9.999999999999997e+22",
		"44b52d02c7e14af6": "1e+23",
		"44b52d02c7e14af7": "1.0000000000000001e+23",
		"444b1ae4d6e2ef4e": "999999999999999700000",
		"444b1ae4d6e2ef4f": "999999999999999900000",
		"444b1ae4d6e2ef50": "1e+21",
		"3eb0c6f7a0b5ed8c": "9.999999999999997e-7",
		"3eb0c6f7a0b5ed8d": "0.000001",
		"41b3de4355555553": "333333333.3333332",
		"41b3de4355555554": "333333333.33333325",
		"41b3de4355555555": "333333333.3333333",
		"41b3de4355555556": "333333333.3333334",
		"41b3de4355555557": "333333333.33333343",
		"becbf647612f3696": "-0.0000033333333333333333",
		"43143ff3c1cb0959": "1424953923781206.2",
	}
	for bits, want := range cases {
		b, _ := hex.DecodeString(bits)
		f := math.Float64frombits(binary.BigEndian.Uint64(b))
		if got := string(AppendES6Float(nil, f)); got != want {
			t.Errorf("%s: got %s, want %s", bits, got, want)
		}
		// And through the parser, from an exponent literal (integer
		// literals beyond 2^53 are refused by the parser).
		lit := strconv.FormatFloat(f, 'e', -1, 64)
		if got := canon(t, lit); got != want {
			t.Errorf("%s via parse: got %s, want %s", lit, got, want)
		}
	}
	for in, want := range map[string]string{"-0": "0", "1.0": "1", "100": "100", "1e2": "100", "-1.50": "-1.5"} {
		if got := canon(t, in); got != want {
			t.Errorf("%s: got %s, want %s", in, got, want)
		}
	}
}

func TestPythonSortedMatchesCPython(t *testing.T) {
	b, err := os.ReadFile("testdata/python_sorted.json")
	if err != nil {
		t.Fatal(err)
	}
	var cases []struct{ Input, Python string }
	if err := json.Unmarshal(b, &cases); err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		v, err := Parse([]byte(c.Input), 0)
		if err != nil {
			t.Fatal(err)
		}
		if got := string(AppendPythonSorted(nil, v)); got != c.Python {
			t.Errorf("input %s\ngot  %s\nwant %s", c.Input, got, c.Python)
		}
	}
}

func TestPythonFloatRepr(t *testing.T) {
	for f, want := range map[float64]string{
		1: "1.0", 1e16: "1e+16", 1e15: "1000000000000000.0", 0.0001: "0.0001", 0.00001: "1e-05",
		1.5e-7: "1.5e-07", 123.456: "123.456", math.Copysign(0, -1): "-0.0", 1e22: "1e+22",
		math.MaxFloat64: "1.7976931348623157e+308", 5e-324: "5e-324", 0.1: "0.1",
	} {
		if got := string(appendPythonFloat(nil, f)); got != want {
			t.Errorf("%v: got %s, want %s", f, got, want)
		}
	}
}

func TestLessUTF16(t *testing.T) {
	ordered := []string{"", "\r", "1", "a", "ab", "b", "\u0080", "\u00f6", "\u20ac", "\U0001F600", "\ufb33", "\uffff"}
	for i := range ordered {
		for j := range ordered {
			if got, want := lessUTF16(ordered[i], ordered[j]), i < j; got != want {
				t.Errorf("lessUTF16(%q, %q) = %v", ordered[i], ordered[j], got)
			}
		}
	}
}
