package pii

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// Speakers of a chat transcript, two named in turn at the start of their lines, are people when a
// word of their labels is known as a name, though the other words are not; roles and headings
// used as labels in turn are none.
func TestNamesTranscriptSpeakers(t *testing.T) {
	sc, _ := New(nil)
	r := rand.New(rand.NewPCG(20, 31))
	first := []string{"Kulnun", "Pannawich", "Johans", "Akosua", "Kwabena", "Sirinya", "Ilmārs", "Kaarel"}
	last := []string{"Boonpungbaramee", "Turongkinanon", "Bite", "Takyi", "Pihlak", "Mensah", "Saetang", "Ozols"}
	known := []string{"Anna", "Marek", "Olga", "Tomas", "Ingrid", "Kofi"}
	lines := []string{"hi, is the order shipped?", "checking now", "ok thx", "yes, out for delivery", "any update?"}
	for i := range 24 {
		a := first[r.IntN(len(first))] + " " + last[r.IntN(len(last))]
		b := known[r.IntN(len(known))] + " " + last[r.IntN(len(last))] // one word the lists know
		var tr strings.Builder
		for k := range 4 {
			who := a
			if k%2 == 1 {
				who = b
			}
			fmt.Fprintf(&tr, "%s: %s\n", who, lines[(i+k)%len(lines)])
		}
		if !hasType(sc.ScanText(tr.String()), TypeName) {
			t.Errorf("%q: no name found", tr.String())
		}
	}
	labels := []string{"Support Agent", "Order Status", "Customer Service", "Delivery Window", "Next Steps"}
	for i := range 20 {
		l, m := labels[i%len(labels)], labels[(i+1)%len(labels)]
		text := fmt.Sprintf("%s: ticket %d opened\n%s: none\n%s: ticket %d closed\n%s: none\n", l, 1000+r.IntN(9000), m, l, 1000+r.IntN(9000), m)
		if fs := sc.ScanText(text); hasType(fs, TypeName) {
			t.Errorf("%q: %v", text, fs)
		}
	}
}
