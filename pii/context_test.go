package pii

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// hasCueBytewise is hasCue as a loop over every byte of the window: the reference that the
// masked search must agree with.
func hasCueBytewise(s string, a, b int, cl *cueList) bool {
	a, b = max(a, 0), min(b, len(s))
	if b-a > 160 {
		a = b - 160
	}
	for p := a; p < b; p++ {
		if p > 0 && isAlnum(s[p-1]) {
			continue
		}
		if cl.may(s, p) && cl.at(s, p, b) >= 0 {
			return true
		}
	}
	return false
}

// TestHasCueAgreesBytewise: on generated text that mixes cues of several lists (one of them
// with a cue that starts with an apostrophe), cased and glued to other words, with
// punctuation, digits and UTF-8 between them, the masked search finds a cue in exactly the
// windows the byte-by-byte search does.
func TestHasCueAgreesBytewise(t *testing.T) {
	lists := []*cueList{nationalCues, dobCues, phoneCues, cardCues, nameNounCues}
	var pieces []string
	for _, cl := range lists {
		pieces = append(pieces, cl.cues...)
	}
	pieces = append(pieces, " ", " ", "  ", ", ", ". ", "\n", "-", "x", "Ab", "7", "42", "é", "名", "'", "’", "#", "\t")
	rng := rand.New(rand.NewPCG(4, 160))
	found, checked := 0, 0
	for range 3000 {
		var b strings.Builder
		for b.Len() < 40+rng.IntN(260) {
			p := pieces[rng.IntN(len(pieces))]
			if rng.IntN(3) == 0 {
				p = strings.ToUpper(p)
			}
			b.WriteString(p)
		}
		s := b.String()
		for _, cl := range lists {
			for range 8 {
				lo, hi := rng.IntN(len(s)+20)-10, rng.IntN(len(s)+40)-10
				want := hasCueBytewise(s, lo, hi, cl)
				if got := hasCue(s, lo, hi, cl); got != want {
					t.Fatalf("hasCue(%q, %d, %d) = %v, byte by byte %v", s, lo, hi, got, want)
				}
				checked++
				if want {
					found++
				}
			}
		}
	}
	if found < checked/10 || found > checked*9/10 {
		t.Fatalf("%d of %d windows hold a cue: the test does not tell the searches apart", found, checked)
	}
}
