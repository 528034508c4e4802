package pii

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

var subjectOnlyTemplates = []string{
	"%s war bis Freitag krankgeschrieben und ist jetzt wieder erreichbar.",
	"%s se ptá, kdy dostane vrácené peníze.",
	"%s si stěžuje na zpožděnou zásilku.",
	"%s se omlouvá za zpoždění.",
	"%s pyta się o fakturę.",
	"%s is off sick until Monday.",
	"%s was ill last week, so the review moved.",
	"%s je nemocná, vrátí se v pondělí.",
}

// TestNamesSubjectOfWhatOnlyPeopleDo: two capitalised words that no list knows (made-up names)
// are a person's when the clause says they are ill or on sick leave, or asks, apologises or
// complains in a reflexive West Slavic form; a firm's or a team's name in the same place is none.
func TestNamesSubjectOfWhatOnlyPeopleDo(t *testing.T) {
	sc := mustScanner(t)
	r := rand.New(rand.NewPCG(11, 2))
	n := 0
	for i := 0; i < 64; i++ {
		g, f := madeUpName(r)
		text := fmt.Sprintf(subjectOnlyTemplates[i%len(subjectOnlyTemplates)], g+" "+f)
		if !hasType(sc.ScanText(text), TypeName) {
			t.Errorf("%q: no name found", text)
		}
		n++
	}
	firms := []string{"Acme Logistics", "Data Platform", "Northwind Holdings", "Billing Support", "Contoso Group", "Globex Industries"}
	others := []string{"%s se ptá na fakturu.", "%s si stěžuje na zpoždění.", "%s war bis Freitag offline.", "%s is down until Monday."}
	for i := 0; i < 24; i++ {
		text := fmt.Sprintf(others[i%len(others)], firms[i%len(firms)])
		if fs := sc.ScanText(text); hasType(fs, TypeName) {
			t.Errorf("%q: a firm read as a person: %v", text, fs)
		}
		n++
	}
	if n < 20 {
		t.Fatalf("only %d variants", n)
	}
}
