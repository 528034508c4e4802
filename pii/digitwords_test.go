package pii

import (
	"strings"
	"testing"
)

func TestDigitWordsView(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"call plus four four seven nine one one two three four five six seven", "call +447911234567"},
		{"null-vier-zwei-zwei-sieben-acht-vier-neun", "04227849"},
		{"zéro six, douze", "zéro six, douze"}, // two digits make no number
		{"Tel + then 3 then 9 then 3 then 4 then 9 then 6 then 0 — ask", "Tel +3934960 — ask"},
		{"ring 0🙂9🙂0🙂-🙂2🙂1🙂5🙂8 now", "ring 0902158 now"},
		{"one two three and four", "one two three and four"},
		{"1 then 2 and 3 then 4 then 5 then 6 then 7", "1 then 2 and 3 then 4 then 5 then 6 then 7"}, // connectives differ
	} {
		v, at := digitWordsView(c.in)
		if at == nil {
			v = c.in
		}
		if v != c.want {
			t.Errorf("digitWordsView(%q) = %q, want %q", c.in, v, c.want)
		}
	}
}

func TestDigitWordsFound(t *testing.T) {
	sc, err := New(nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{
		"my number is plus four four seven nine one one two three four five six",
		"mon numéro c'est le plus trois trois six un deux trois quatre cinq six sept huit",
		"ring +🔹4🔹4🔹7🔹9🔹1🔹1🔹2🔹3🔹4🔹5🔹6",
	} {
		if fs := sc.ScanText(s); len(fs) == 0 {
			t.Errorf("nothing found in %q", s)
		}
	}
	for _, s := range []string{
		"one two three four five six seven eight nine ten: a counting song",
		"Chapter one, verse seven; chapter two, verse three.",
	} {
		if fs := sc.ScanText(s); len(fs) != 0 {
			t.Errorf("%q: found %v", s, fs)
		}
	}
}

// TestDigitWordsWorstCase: texts made of nothing but number words, digits, connectives and
// symbols make a view no longer than themselves; longer texts make none.
func TestDigitWordsWorstCase(t *testing.T) {
	for _, unit := range []string{"one ", "1🙂", "then ", "1 then ", "+", "plus ", "1 and 2 then ", "quattro-"} {
		s := strings.Repeat(unit, maxDigitWordText/len(unit))
		v, at := digitWordsView(s)
		if at != nil && (len(v) > len(s) || len(at) != len(v)+1) {
			t.Errorf("%q repeated: view of %d bytes, %d offsets, from %d bytes", unit, len(v), len(at), len(s))
		}
		if digitWordCandidate(strings.Repeat(unit, 2*maxDigitWordText)) {
			t.Errorf("a text of %d bytes is a candidate", 2*maxDigitWordText*len(unit))
		}
	}
}

func FuzzDigitWordsView(f *testing.F) {
	for _, s := range []string{"plus four four seven nine one one two", "0🙂9🙂0🙂2🙂1🙂5🙂8", "+ then 1 then 2", "zéro un deux trois quatre cinq six"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, at := digitWordsView(s)
		if at == nil {
			return
		}
		if len(at) != len(v)+1 || int(at[len(v)]) != len(s) || len(v) > len(s) {
			t.Fatalf("%d offsets for a view of %d bytes from %d", len(at), len(v), len(s))
		}
		for k := 1; k < len(at); k++ {
			if at[k] < at[k-1] || int(at[k]) > len(s) {
				t.Fatalf("offset %d: %d after %d", k, at[k], at[k-1])
			}
		}
	})
}

// TestNumberWordShapes: every number word fits maxNumberWord, and the view's prefilter takes
// each, in any case, as a number word.
func TestNumberWordShapes(t *testing.T) {
	for w := range digitWords {
		if len(w) > maxNumberWord {
			t.Errorf("%q is longer than maxNumberWord (%d bytes)", w, maxNumberWord)
		}
		for _, v := range []string{w, strings.ToUpper(w), strings.ToUpper(w[:1]) + w[1:]} {
			if len(v) >= 2 && !numberWordAt(v) {
				t.Errorf("numberWordAt(%q) = false", v)
			}
		}
	}
	for _, w := range []string{"the", "on", "for", "first", "seventy", "Paris", "déjà"} {
		if numberWordAt(w) {
			t.Errorf("numberWordAt(%q) = true", w)
		}
	}
}
