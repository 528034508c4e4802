package pii

import (
	"fmt"
	"testing"
)

// TestBirthDatesAbbreviated: dates of birth written as clinical and military records and quick
// notes write them, a day, an abbreviated month and a year joined by hyphens ("11-Oct-1997",
// "03-MAR-62") or a month, a day and a year after an apostrophe ("Oct 27 '81"), are dates of
// birth after a birth cue; the same dates after no such cue are none.
func TestBirthDatesAbbreviated(t *testing.T) {
	sc, _ := New(nil)
	dates := []string{"11-Oct-1997", "03-MAR-62", "28-feb-1955", "7-Jun-2003", "May 19 '10", "Oct 27 '81", "Dec 3 '99"}
	cues := []string{"date of birth: %s", "DOB %s", "Patient (d.o.b. %s) seen today.", "born %s in Leeds", "birthday is %s (DOB)"}
	for i, d := range dates {
		text := fmt.Sprintf(cues[i%len(cues)], d)
		if !hasType(sc.ScanText(text), TypeDOB) {
			t.Errorf("%q: date of birth not found", text)
		}
		other := fmt.Sprintf("The release shipped on %s, build 4.", d)
		if hasType(sc.ScanText(other), TypeDOB) {
			t.Errorf("%q: a date of birth found", other)
		}
	}
}
