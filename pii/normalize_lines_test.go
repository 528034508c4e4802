package pii

import (
	"math/rand/v2"
	"strings"
	"testing"
)

var lineBreaks = []string{"\n", "\r\n", "\n  ", "\n\t"}

// breakAt puts a line break drawn from r into v at each of the byte offsets cuts (ascending).
func breakAt(r *rand.Rand, v string, cuts ...int) string {
	var b strings.Builder
	last := 0
	for _, c := range cuts {
		b.WriteString(v[last:c])
		b.WriteString(lineBreaks[r.IntN(len(lineBreaks))])
		last = c
	}
	b.WriteString(v[last:])
	return b.String()
}

// TestLinesView: a card number or an e-mail address cut by line breaks (and indents) is found
// through the lines view, on the bytes from its first character to its last, unless the text as
// given finds a value on a line of it (see acceptCut), which blocks it all the same.
func TestLinesView(t *testing.T) {
	sc, err := New(nil)
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(20, 14))
	frames := []string{"Charge the card %s for the renewal.", "contact: %s", "%s", "Please use %s from now on.", "ok -> %s <- ok"}
	n := 0
	for _, gv := range genValues(r, 60) {
		v := gv.v
		var cuts []int
		switch gv.typ {
		case TypeCard:
			for k := 1 + r.IntN(3); len(cuts) < k; {
				c := 1 + r.IntN(len(v)-1)
				if !containsInt(cuts, c) {
					cuts = append(cuts, c)
				}
			}
			cuts = sortedInts(cuts)
		case TypeEmail:
			// After the digits of the local part: a break a value puts there.
			at := strings.IndexByte(v, '@')
			k := at
			for k > 0 && isDigit(v[k-1]) {
				k--
			}
			if k == at {
				continue
			}
			cuts = []int{at - r.IntN(at-k)}
		}
		w := breakAt(r, v, cuts...)
		frame := frames[r.IntN(len(frames))]
		text := strings.Replace(frame, "%s", w, 1)
		start := strings.Index(frame, "%s")
		n++
		found := false
		for _, f := range sc.ScanText(text) {
			if f.Type == gv.typ && f.Start == start && f.End == start+len(w) && viaHas(f.Via, StageLines) {
				found = true
			}
			if f.Via == 0 && f.Start > start && f.End <= start+len(w) && isSpaceByte(text[f.Start-1]) {
				found = true // a piece on a line of its own is a value
			}
		}
		if !found {
			t.Errorf("%s in %q: not found through the lines view on [%d:%d]: %v", gv.typ, text, start, start+len(w), sc.ScanText(text))
		}
	}
	if n < 40 {
		t.Fatalf("only %d variants", n)
	}
}

// TestLinesViewPassesStructure: text wrapped at a width, configuration files and tables, whose
// breaks stand between values and not inside them, gain nothing from the lines view.
func TestLinesViewPassesStructure(t *testing.T) {
	sc, err := New(nil)
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(20, 15))
	var texts []string
	for i := 0; i < 30; i++ {
		n1, n2, n3 := 1+r.IntN(99999), 1+r.IntN(99999), 1+r.IntN(9999)
		texts = append(texts,
			"[auth]\npassword_min_length = "+itoa(n1%40)+"\npassword_expiry_days = "+itoa(n2%400)+"\nlockout_after = 5\n",
			"spec:\n  replicas: "+itoa(n1%9)+"\n  template:\n    port: "+itoa(n3)+"\n    secretKeyRef:\n      key: password\n",
			"sku,qty,total\nA-"+itoa(n1)+","+itoa(n3)+","+itoa(n2)+"\nB-"+itoa(n2)+","+itoa(n3%50)+","+itoa(n1)+"\n",
			"week 37 closed with "+itoa(n1)+" requests in\n"+itoa(n2)+" ms at the 99th percentile;\nrelease "+itoa(n3%10)+"."+itoa(n3%7)+" follows.",
			benchProse[:200+r.IntN(len(benchProse)-200)],
		)
	}
	for _, text := range texts {
		for _, f := range sc.ScanText(text) {
			if viaHas(f.Via, StageLines) {
				t.Errorf("%q: %v found through the lines view", text, f)
			}
		}
	}
}

func viaHas(v Via, s Stage) bool {
	for _, x := range v.Stages() {
		if x == s {
			return true
		}
	}
	return false
}

func containsInt(a []int, x int) bool {
	for _, y := range a {
		if y == x {
			return true
		}
	}
	return false
}
