package jsonw

import (
	"bytes"
	"encoding/json"
	"fmt"
	"testing"
	"time"
)

// FuzzString: String writes what json.Marshal writes for any string.
func FuzzString(f *testing.F) {
	for _, s := range []string{"", "plain", "<&>", "\u2028\u2029", "\"\\\x00\x1f\x7f", "\xff\xfe", "é✓"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want, _ := json.Marshal(s)
		if got := String(nil, s); !bytes.Equal(got, want) {
			t.Fatalf("%q: got %s, want %s", s, got, want)
		}
	})
}

func TestTime(t *testing.T) {
	for _, tm := range []time.Time{time.Unix(1800000000, 123456789).UTC(), time.Unix(0, 0).In(time.FixedZone("x", 3600))} {
		want, _ := json.Marshal(tm)
		if got := Time(nil, tm); !bytes.Equal(got, want) {
			t.Fatalf("got %s, want %s", got, want)
		}
	}
}

func ExampleString() {
	b := String([]byte("name="), "a <b> & \"c\"")
	fmt.Println(string(b))
	// Output: name="a \u003cb\u003e \u0026 \"c\""
}
