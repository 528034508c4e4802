package pii

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// TestLongMarksAgreesBytewise holds longMarks to its definition, byte by byte, on generated text
// of every length up to 300 bytes with the marks' bytes and " dot" at every kind of position
// (inside a 32-byte round, across two, in the tail the rounds leave).
func TestLongMarksAgreesBytewise(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	pieces := []string{"%", "&", ":", "<", "[", "(", "{", "@", "\\", "*", "`", "~", " dot", " do", "dot", " d", "x", "ab", " ", "\x80", "ot"}
	for n := 0; n < 300000; n++ {
		var b strings.Builder
		size := 35 + r.IntN(266)
		for b.Len() < size {
			if r.IntN(6) == 0 {
				b.WriteString(pieces[r.IntN(len(pieces))])
			} else {
				b.WriteString("plain prose ")
			}
		}
		s := b.String()
		if got, want := longMarks(s), wantMarks(s); got != want {
			t.Fatalf("longMarks(%q) = %012b, want %012b", s, got, want)
		}
	}
}

// TestLongMarksEveryByte holds longMarks to its definition on text of every byte value: the
// vector form classifies a byte by its two nibbles, and no byte that shares a nibble with a
// mark's byte may pass for it.
func TestLongMarksEveryByte(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for n := 0; n < 100000; n++ {
		b := make([]byte, 35+r.IntN(200))
		for i := range b {
			b[i] = byte(r.IntN(256))
		}
		if r.IntN(4) == 0 {
			copy(b[r.IntN(len(b)-4):], " dot")
		}
		s := string(b)
		if got, want := longMarks(s), wantMarks(s); got != want {
			t.Fatalf("longMarks(%q) = %012b, want %012b", s, got, want)
		}
	}
	for c := range 256 {
		s := strings.Repeat("a", 40) + string(rune(0)) + strings.Repeat("b", 30)
		s = s[:7] + string([]byte{byte(c)}) + s[8:]
		want := markSpace | markTab[c]&^markDot
		if !plainAVX2 {
			want = markAll
		}
		if got := longMarks(s); got != want {
			t.Fatalf("byte %#02x: longMarks = %012b, want %012b", c, got, want)
		}
	}
}

// wantMarks is longMarks by its definition, a byte at a time.
func wantMarks(s string) uint16 {
	if !plainAVX2 {
		return markAll
	}
	var want uint16 = markSpace
	for i := 0; i < len(s); i++ {
		want |= markTab[s[i]] &^ markDot
	}
	if strings.Contains(s, " dot") {
		want |= markDot
	}
	return want
}
