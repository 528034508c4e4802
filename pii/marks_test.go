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
		var want uint16 = markSpace
		for i := 0; i < len(s); i++ {
			want |= markTab[s[i]] &^ markDot
		}
		if strings.Contains(s, " dot") {
			want |= markDot
		}
		if !plainAVX2 {
			want = markAll
		}
		if got := longMarks(s); got != want {
			t.Fatalf("longMarks(%q) = %012b, want %012b", s, got, want)
		}
	}
}
