package pii

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// caseNames are full names the name lists know, and caseTemplates sentences that put one in
// context; each pair is written in capitals and in alternating case (from either phase).
var (
	caseNames = []string{"Luigi Moreira", "Olivia Moreno", "Didier Schmitt", "Nathan Calabro", "Marques Navarro",
		"Costa Rocha", "Clair Paquet", "Moreno Lombardi", "Anna Grosz", "Roland David"}
	caseTemplates = []string{
		"Please cc %s on the thread.",
		"Escalation: customer %s is unhappy with the response time.",
		"Interview feedback for %s: strong on systems design.",
		"Reminder: the performance review of %s is due on Friday.",
		"Flight booked for %s, seat 14C.",
		"Our landlord %s wants the keys back by Friday.",
	}
	// casePlain are sentences without personal data, with the acronyms, tokens and cue words
	// that a text in capitals puts beside them.
	casePlain = []string{
		"Please review the deployment plan before Friday.",
		"API key rotation is due; see the runbook for the steps.",
		"The build failed on the integration stage, retry after the merge.",
		"Refund to IBAN was requested by the supplier, not by a person.",
		"Set MAX_RETRIES to 3 and restart the worker pool on eu-west-1.",
		"The password policy asks for twelve characters and a second factor.",
	}
)

func upperText(s string) string { return strings.ToUpper(s) }

// alternatingText is s in aLtErNaTiNg case, its first letter in capitals
// if up.
func alternatingText(s string, up bool) string {
	out, _ := alternateCase(s, up)
	return out
}

// caseRenderings are the ways a careless or hostile writer loses letter case.
var caseRenderings = []struct {
	name string
	f    func(string) string
}{
	{"upper", upperText},
	{"alternating", func(s string) string { return alternatingText(s, true) }},
	{"alternating_lower_first", func(s string) string { return alternatingText(s, false) }},
}

func TestCaseViewFindsNames(t *testing.T) {
	sc, err := New(nil)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for i, tpl := range caseTemplates {
		for j, name := range caseNames {
			if (i+j)%2 == 1 {
				continue // half the pairs keep the table quick; every name and template is used
			}
			plain := strings.Replace(tpl, "%s", name, 1)
			for _, r := range caseRenderings {
				n++
				s := r.f(plain)
				if !caseCandidate(s) {
					t.Errorf("%s %q: not a candidate", r.name, s)
					continue
				}
				at := strings.Index(strings.ToLower(s), strings.ToLower(name))
				found := false
				for _, f := range sc.ScanText(s) {
					if f.Type == TypeName && f.Start <= at && f.End >= at+len(name) {
						found = true
						if f.Via.String() != "case" {
							t.Errorf("%s %q: found via %q, want case", r.name, s, f.Via)
						}
					}
				}
				if !found {
					t.Errorf("%s %q: the name %q is not found", r.name, s, name)
				}
			}
		}
	}
	if n < 60 {
		t.Fatalf("only %d variants", n)
	}
}

func TestCaseViewPassesPlainText(t *testing.T) {
	sc, err := New(nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, plain := range casePlain {
		if caseCandidate(plain) {
			t.Errorf("%q: ordinary case read as shouted", plain)
		}
		for _, r := range caseRenderings {
			s := r.f(plain)
			if fs := sc.ScanText(s); len(fs) > 0 {
				t.Errorf("%s %q: %s by %s on %q", r.name, s, fs[0].Type, fs[0].Rule, s[fs[0].Start:fs[0].End])
			}
		}
	}
}

// TestCaseFoldViewKeepsTokens: a word with a digit or a sign inside keeps its case in the view
// (the case is the value's), the other words are lowered, listed names capitalised, and the view
// is as long as the text.
func TestCaseFoldViewKeepsTokens(t *testing.T) {
	tokens := []string{"SK-PROJ-AB12CD34", "S.A.R.L.", "PUBLISH_CRED=XYZ", "EYJHBGCI0IJ9", "GB77SSOL5377", "KEY-----", "%E4%BB"}
	for _, tok := range tokens {
		for _, name := range caseNames[:4] {
			s := upperText("please send "+name+" the value ") + tok + " NOW."
			v, at := caseFoldView(s)
			if at == nil || len(v) != len(s) || len(at) != len(s)+1 {
				t.Fatalf("%q: view %q with %d offsets", s, v, len(at))
			}
			if !strings.Contains(v, " "+tok+" ") {
				t.Errorf("%q: the token lost its case in %q", s, v)
			}
			if !strings.Contains(v, "please send "+name+" the value") {
				t.Errorf("%q: view %q, want the words lowered and %q capitalised", s, v, name)
			}
		}
	}
}

// TestCaseCandidateShapes: generated strings of ordinary, shouted and alternating words, with
// tokens glued to digits that never count.
func TestCaseCandidateShapes(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	words := strings.Fields("the plan was moved to friday after review and the team agreed on a new date for it")
	for k := 0; k < 200; k++ {
		n := 2 + r.IntN(12)
		var ws []string
		for range n {
			ws = append(ws, words[r.IntN(len(words))])
		}
		plain := strings.Join(ws, " ")
		if caseCandidate(plain) {
			t.Errorf("%q: ordinary text read as shouted", plain)
		}
		if plain := strings.ToUpper(plain[:1]) + plain[1:]; caseCandidate(plain) {
			t.Errorf("%q: a capitalised sentence read as shouted", plain)
		}
		// Two-letter words alone ("to", "on", "it", "a") may not decide: a string needs two
		// words of two letters or more, more than half of them odd.
		if up := strings.ToUpper(plain); countRuns(up) >= minCaseWords && !caseCandidate(up) {
			t.Errorf("%q: capitals not read as shouted", up)
		}
		glued := strings.ToUpper(strings.Join(ws, "7_"))
		if caseCandidate(glued) {
			t.Errorf("%q: letters glued to digits counted as words", glued)
		}
	}
}

func countRuns(s string) int {
	n := 0
	for _, f := range strings.FieldsFunc(s, func(r rune) bool { return r < 'A' || r > 'Z' }) {
		if len(f) >= 2 {
			n++
		}
	}
	return n
}

// TestFewCapitals checks the eight-bytes-at-once count against a byte loop on generated text.
func TestFewCapitals(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 5))
	const alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ @[`{0129.-\x80\xc3\xa9\xff"
	for k := 0; k < 2000; k++ {
		b := make([]byte, 64)
		upShare := r.IntN(40)
		for i := range b {
			switch {
			case r.IntN(100) < upShare:
				b[i] = byte('A' + r.IntN(26))
			default:
				b[i] = alphabet[r.IntN(len(alphabet))]
			}
		}
		s := string(b)
		up, low := 0, 0
		for i := 0; i < len(s); i++ {
			switch {
			case isUpper(s[i]):
				up++
			case isLower(s[i]):
				low++
			}
		}
		if got, want := fewCapitals(s), low > 6*up; got != want {
			t.Fatalf("%q: fewCapitals %v, want %v (%d capitals, %d small letters)", s, got, want, up, low)
		}
	}
}

func BenchmarkCaseCandidateProse(b *testing.B) {
	s := benchProse[:700]
	for b.Loop() {
		caseCandidate(s)
	}
}

// TestCaseViewKeepsTitleCasedNames: in a text mostly in capitals (calendar and vCard lines,
// headers), a name written as names are is still found as given.
func TestCaseViewKeepsTitleCasedNames(t *testing.T) {
	sc, err := New(nil)
	if err != nil {
		t.Fatal(err)
	}
	frames := []string{
		"BEGIN:VEVENT\r\nATTENDEE;CN=%s;ROLE=REQ-PARTICIPANT:MAILTO:ROOM@EXAMPLE.ORG\r\nEND:VEVENT",
		"FN:%s\r\nORG:ACME LTD\r\nTITLE:HEAD OF SALES",
		"URGENT NOTICE FOR ALL STAFF: CONTACT %s BEFORE THE AUDIT.",
	}
	for _, fr := range frames {
		for _, name := range caseNames {
			s := strings.Replace(fr, "%s", name, 1)
			at := strings.Index(s, name)
			found := false
			for _, f := range sc.ScanText(s) {
				found = found || f.Type == TypeName && f.Start <= at && f.End >= at+len(name)
			}
			if !found {
				t.Errorf("%q: the name %q is not found", s, name)
			}
			if !titleCased(name) || titleCased(strings.ToUpper(name)) || titleCased(alternatingText(name, false)) {
				t.Errorf("%q: titleCased is wrong on its forms", name)
			}
		}
	}
}
