package pii

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// TestHealthPassAgreesWithTermsAndVocabulary holds healthPass, with its filter of words that
// begin with four letters, to what healthTerms and healthVocabScan find on their own, on text
// made of every term and first word of the vocabulary, their cuts, plurals, other endings and
// other cases, ICD-10 codes and random words.
func TestHealthPassAgreesWithTermsAndVocabulary(t *testing.T) {
	sc, err := New(nil)
	if err != nil {
		t.Fatal(err)
	}
	var words []string
	seeds := slices.Clone(healthTerms)
	for w, rests := range healthVocab {
		seeds = append(seeds, w)
		for _, r := range rests {
			if r != "" {
				seeds = append(seeds, w+" "+r)
			}
		}
	}
	for _, w := range seeds {
		for _, v := range []string{w, strings.ToUpper(w), strings.ToUpper(w[:1]) + w[1:], w + "s", w + "'s", w + "x", w + "-1"} {
			words = append(words, v)
		}
		for k := 2; k <= min(6, len(w)); k++ {
			words = append(words, w[:k], w[:k]+"s", w[:k]+"ing", strings.ToUpper(w[:k]))
		}
	}
	words = append(words, "E11.9", "F32", "J45.909", "Z99", "the", "with", "from", "diagnosis code", "ICD-10:", "a", "I")
	r := rand.New(rand.NewPCG(20, 2))
	seps := []string{" ", ", ", ". ", "\n", "/", "+", " (", ") ", "-", "'", "é"}
	for round := 0; round < 3000; round++ {
		var b strings.Builder
		for range 1 + r.IntN(40) {
			if r.IntN(4) == 0 {
				for range 1 + r.IntN(8) {
					b.WriteByte("abcdefghijklmnopqrstuvwxyzHIVMRS0123"[r.IntN(36)])
				}
			} else {
				b.WriteString(words[r.IntN(len(words))])
			}
			b.WriteString(seps[r.IntN(len(seps))])
		}
		s := b.String()
		if round%2 == 0 {
			s = strings.TrimRight(s, " ,.\n/+()-'é") // a word at the very end
		}
		x := &scanCtx{sc: sc, s: s}
		x.healthPass()
		got := x.out
		y := &scanCtx{sc: sc, s: s}
		y.healthTerms()
		y.healthVocabScan(true)
		want := y.out
		byPos := func(a, b Finding) int {
			return cmp.Or(cmp.Compare(a.Start, b.Start), cmp.Compare(a.End, b.End), strings.Compare(a.Rule, b.Rule))
		}
		slices.SortFunc(got, byPos)
		slices.SortFunc(want, byPos)
		if !slices.Equal(got, want) {
			t.Fatalf("%q:\nhealthPass %v\nseparately %v", s, got, want)
		}
	}
}
