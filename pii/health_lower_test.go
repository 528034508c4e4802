package pii

import (
	"fmt"
	"testing"
)

// Health information in a short message written all in lower case counts when a word speaks of
// a person; the same vocabulary with no one spoken of, or in another language's words that only
// look like pronouns, passes. The sentences are written for the test.
func TestHealthInLowerCase(t *testing.T) {
	sc, _ := New(nil)
	people := []string{"my son", "my wife", "hubby", "mum", "my dad"}
	states := []string{"was dx w/ %s last wk", "has %s, cant do the night shift pls", "got worse with the %s, on meds now",
		"is on %s since march"}
	terms := []string{"adhd", "copd", "epilepsy", "dementia", "rivastigmine", "keppra", "hep c"}
	n := 0
	for i, p := range people {
		for j, st := range states {
			text := "fyi " + p + " " + fmt.Sprintf(st, terms[(i+j)%len(terms)])
			n++
			if !hasType(sc.ScanText(text), TypeHealth) {
				t.Errorf("%q: health not found", text)
			}
		}
	}
	if n < 20 {
		t.Fatalf("only %d variants", n)
	}
	for _, text := range []string{"our clinic runs a diabetes awareness week in march",
		"take one tablet of metformin with food; if you miss a dose, skip it",
		"diabetes typ 2 drabbar omkring 4 % av vuxna i sverige",
		"the copd guideline was updated; see the epilepsy chapter too"} {
		if hasType(sc.ScanText(text), TypeHealth) {
			t.Errorf("%q: health found", text)
		}
	}
}

// Being off work on a doctor's note, in the languages the gate sees most, is health information
// about the person named beside it.
func TestSickLeaveBesideAName(t *testing.T) {
	sc, _ := New(nil)
	names := []string{"Ingrid Larsen", "Mateo Ruiz", "Chiara Bianchi", "Sophie Martin"}
	notes := []string{"%s ist bis Freitag krankgeschrieben.", "%s är sjukskriven resten av veckan.",
		"%s je v pracovní neschopnosti do pátku.", "%s está de baja médica hasta el lunes.",
		"%s raporlu, iki gün gelemeyecek.", "%s is off sick until Monday.", "%s has a Lungenentzündung."}
	n := 0
	for i, name := range names {
		for j, note := range notes {
			if (i+j)%2 != 0 {
				continue
			}
			text := fmt.Sprintf(note, name)
			n++
			if !hasType(sc.ScanText(text), TypeHealth) {
				t.Errorf("%q: health not found", text)
			}
		}
	}
	if n < 12 {
		t.Fatalf("only %d variants", n)
	}
}

// A full name after a greeting of the languages of Northern and Central Europe is a name; the
// sick note after it is health information about that person.
func TestSickNoteAfterAGreeting(t *testing.T) {
	sc, _ := New(nil)
	greetings := []string{"Hej", "Hei", "Ahoj", "Szia", "Merhaba", "Tere", "Labas", "Zdravo"}
	names := []string{"Štěpánka Kopecký", "Oskar Wendelboe", "Réka Szalontai"}
	n := 0
	for i, g := range greetings {
		for j, name := range names {
			if (i+j)%2 != 0 {
				continue
			}
			text := g + ", " + name + " är sjukskriven resten av veckan."
			n++
			if !hasType(sc.ScanText(text), TypeHealth) {
				t.Errorf("%q: health not found", text)
			}
		}
	}
	if n < 12 {
		t.Fatalf("only %d variants", n)
	}
}
