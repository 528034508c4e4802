package pii

import (
	"math/rand/v2"
	"testing"
)

// TestQuotedLabels: a reference number quoted after its label (an attribute, an assignment) is
// no phone number, and a phone number quoted after a phone's label still is.
func TestQuotedLabels(t *testing.T) {
	sc, err := New(nil)
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(9, 9))
	for _, v := range phoneShapedRefs(t, sc, r, 20) {
		for _, s := range []string{`<Invoice number="` + v + `"/>`, `order_no='` + v + `'`, `Ticket: "` + v + `"`} {
			if fs := sc.ScanText(s); len(fs) != 0 {
				t.Errorf("%q: %v", s, fs)
			}
		}
		for _, s := range []string{`<Contact phone="` + v + `"/>`, `tel='` + v + `'`} {
			if fs := sc.ScanText(s); len(fs) == 0 {
				t.Errorf("%q: nothing found", s)
			}
		}
	}
}
