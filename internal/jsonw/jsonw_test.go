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
	for _, s := range []string{"", "plain", "<&>", "a fairly long line <with> html & more", "\u2028\u2029", "\"\\\x00\x1f\x7f", "\xff\xfe", "é✓"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want, _ := json.Marshal(s)
		if got := String(nil, s); !bytes.Equal(got, want) {
			t.Fatalf("%q: got %s, want %s", s, got, want)
		}
	})
}

// FuzzStringNoHTML: StringNoHTML writes what an Encoder with
// SetEscapeHTML(false) writes for any string.
func FuzzStringNoHTML(f *testing.F) {
	for _, s := range []string{"", "plain", "<&>", "a fairly long line <with> html & more", "\u2028\u2029", "\"\\\x00\x1f\x7f", "\xff\xfe", "é✓"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var want bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetEscapeHTML(false)
		_ = enc.Encode(s)
		if got := StringNoHTML(nil, s); !bytes.Equal(got, bytes.TrimSuffix(want.Bytes(), []byte("\n"))) {
			t.Fatalf("%q: got %s, want %s", s, got, want.Bytes())
		}
	})
}

// FuzzPlain holds the eight-bytes-at-a-time scan to the byte-at-a-time
// tables, with HTML escaping and without.
func FuzzPlain(f *testing.F) {
	f.Add([]byte("abcdefghijklmnop\"q"))
	f.Add([]byte("0123456789abcdef\\\x01\xff"))
	f.Add([]byte("01234567<9abcdef&>"))
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, html := range []bool{false, true} {
			table := noEscape
			if html {
				table = noEscapeHTML
			}
			want := 0
			for want < len(b) && table[b[want]] {
				want++
			}
			if got := plain(string(b), html); got != want {
				t.Fatalf("plain(%q, %v) = %d, want %d", b, html, got, want)
			}
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

// BenchmarkString writes the strings of a span or an audit event: names,
// ids and a sentence of text.
func BenchmarkString(b *testing.B) {
	ss := []string{"moltgate.peer.call", "4bf92f3577b34da6a3ce929d0e0e4736", "client@acme",
		"the call was refused: the recipient's ceiling is conf, and the message is pii <see the consent> & retry"}
	buf := make([]byte, 0, 256)
	b.ReportAllocs()
	for b.Loop() {
		buf = buf[:0]
		for _, s := range ss {
			buf = String(buf, s)
		}
	}
}
