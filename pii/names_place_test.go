package pii

import (
	"fmt"
	"testing"
)

// Places of two words that read as a given name and a surname, brands named for a founder, and
// places after a word that takes a place pass; the same words after a cue for a person, and
// people after "loop in", do not. The places and names are written for the test.
func TestPlacesOfTwoWordsAreNotNames(t *testing.T) {
	sc, _ := New(nil)
	places := []string{"Virginia Beach", "Corpus Christi", "Alice Springs", "San Francisco", "Santa Cruz", "St. Louis",
		"Victoria Falls", "Charlotte Amalie"}
	templates := []string{"Stock check: %s, 88 on hand.", "The %s office moves to the second floor.",
		"Flights to %s are delayed by an hour.", "Our %s team ships on Fridays."}
	n := 0
	for i, p := range places {
		for j, tmpl := range templates {
			if (i+j)%2 != 0 {
				continue
			}
			text := fmt.Sprintf(tmpl, p)
			n++
			if hasType(sc.ScanText(text), TypeName) {
				t.Errorf("%q: a place read as a name", text)
			}
		}
	}
	if n < 16 {
		t.Fatalf("only %d variants", n)
	}
	unknown := []string{"Leandro das Pedras", "Monique de Valmont", "Jessica Haven", "Gabriel Ferreira"}
	for i, tmpl := range []string{"Weather in %s tomorrow: light rain.", "The depot near %s closes at six.",
		"Ship via %s, then on by rail.", "Route the parcel through the %s hub."} {
		text := fmt.Sprintf(tmpl, unknown[i])
		if hasType(sc.ScanText(text), TypeName) {
			t.Errorf("%q: a place read as a name", text)
		}
	}
	for _, brand := range []string{"Tim Hortons", "Ben Hendersons", "Anna Petersons"} {
		text := "Stock check: " + brand + " mug, 88 on hand."
		if hasType(sc.ScanText(text), TypeName) {
			t.Errorf("%q: a brand read as a name", text)
		}
	}
	for _, text := range []string{"Please loop in Ingrid Larsen on the thread.", "Dear Virginia Beach, your parcel is late.",
		"Passenger Alice Springs asked to change seats.", "Tim Evans called again about the refund."} {
		if !hasType(sc.ScanText(text), TypeName) {
			t.Errorf("%q: name not found", text)
		}
	}
}

// A name given as the answer in a chat, below the question that asks for it, and a person one
// speaks with, whose name no list knows, are names.
func TestNamesAnsweredInChat(t *testing.T) {
	sc, _ := New(nil)
	names := []string{"Jasmijn Arendsvoort", "Asunción Velarde", "Quirijn Haazevoets", "Ottavio Scarpellini", "Gwenaëlle Quéré"}
	asks := []string{"Can I have the account holder's full name?", "What name is the booking under?", "your name please?"}
	stamps := []string{"[16:36] user: it's %s", "[09:12:05] customer: %s", "10:41 caller: it is %s"}
	n := 0
	for i, name := range names {
		for j := range asks {
			text := fmt.Sprintf("[10:08] agent: %s\n"+stamps[(i+j)%len(stamps)]+"\n[10:09] agent: Thanks, looking it up.", asks[j], name)
			n++
			if !hasType(sc.ScanText(text), TypeName) {
				t.Errorf("%q: name not found", text)
			}
		}
	}
	for _, name := range names {
		for _, tmpl := range []string{"Spoke with %s today; the order stays open.", "I talked to %s about the refund."} {
			text := fmt.Sprintf(tmpl, name)
			n++
			if !hasType(sc.ScanText(text), TypeName) {
				t.Errorf("%q: name not found", text)
			}
		}
	}
	if n < 20 {
		t.Fatalf("only %d variants", n)
	}
}

// A given name alone speaks of someone: the health information beside it is about that person.
// A month or a day that is also a given name does not.
func TestHealthBesideAGivenNameAlone(t *testing.T) {
	sc, _ := New(nil)
	n := 0
	for _, name := range []string{"Ismael", "Esther", "Ingrid", "Mateo", "Chiara"} {
		for _, cond := range []string{"sertraline", "hypertension", "rheumatoid arthritis", "epilepsy"} {
			text := fmt.Sprintf("reminder: %s (room 16) needs the evening round, she was diagnosed with %s last spring", name, cond)
			n++
			if !hasType(sc.ScanText(text), TypeHealth) {
				t.Errorf("%q: health not found", text)
			}
		}
	}
	if n < 20 {
		t.Fatalf("only %d variants", n)
	}
	for _, text := range []string{"Our app adds a diabetes awareness banner in November.",
		"Schedule the webinar on workplace epilepsy policies for Tuesday."} {
		if hasType(sc.ScanText(text), TypeHealth) {
			t.Errorf("%q: health found", text)
		}
	}
}
