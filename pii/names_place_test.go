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

// A brand or an eponym used as a modifier ("a Calvin Klein shirt", "the Alfred Nobel hall",
// "Parkinson's law") is no person's name and no condition; a person's name before a word of what
// is theirs ("the Steffen Mauer version") still is.
func TestBrandsAndEponymsAreNotPeople(t *testing.T) {
	sc, _ := New(nil)
	brands := []string{"Oscar Lindqvist", "Marta Ferreira", "Hugo Brandt", "Ingrid Larsen", "Mateo Ruiz"}
	nouns := []string{"shirt", "jacket", "handbag", "perfume", "hall", "pop-up"}
	n := 0
	for i, b := range brands {
		for j, noun := range nouns {
			if (i+j)%2 != 0 {
				continue
			}
			for _, art := range []string{"a", "the"} {
				text := fmt.Sprintf("Return label for %s %s %s, order total 84 EUR.", art, b, noun)
				n++
				if hasType(sc.ScanText(text), TypeName) {
					t.Errorf("%q: a brand read as a name", text)
				}
			}
		}
	}
	if n < 20 {
		t.Fatalf("only %d variants", n)
	}
	for _, text := range []string{"Parkinson's law: work expands to fill the time.", "See Down's rule in the appendix."} {
		if hasType(sc.ScanText(text), TypeHealth) {
			t.Errorf("%q: an eponym read as a condition", text)
		}
	}
	for _, text := range []string{"The Steffen Mauer version recorded for Analytica sold a million.",
		"Please forward the contract to Ingrid Larsen.", "Por favor, avisa a Marta Ferreira de la reunión."} {
		if !hasType(sc.ScanText(text), TypeName) {
			t.Errorf("%q: name not found", text)
		}
	}
}

// The name under a sign-off in any language is a name; a team or a firm that signs is not.
func TestNamesUnderASignOff(t *testing.T) {
	sc, _ := New(nil)
	signoffs := []string{"Cheers,", "S pozdravem,", "Mit freundlichen Grüßen,", "Med vänliga hälsningar,", "Cordialement,", "Best,"}
	people := []string{"Giedrė Galdikas", "Binbaşar Sezgin", "Oscar Lindqvist", "Marta Ferreira"}
	n := 0
	for i, so := range signoffs {
		for j, p := range people {
			if (i+j)%2 != 0 {
				continue
			}
			text := "Attached is the revised quote.\n\n" + so + "\n" + p + "\nField Service"
			n++
			if !hasType(sc.ScanText(text), TypeName) {
				t.Errorf("%q: name not found", text)
			}
		}
	}
	if n < 12 {
		t.Fatalf("only %d variants", n)
	}
	for _, team := range []string{"Kundservice\nHedberg Group", "Zákaznická podpora\nNordlys AB", "Atlas Logistics Oy", "Billing Team"} {
		text := "Your ticket has been closed.\n\nBest regards,\n" + team
		if hasType(sc.ScanText(text), TypeName) {
			t.Errorf("%q: a team read as a name", text)
		}
	}
}

// Keys that name who did something (approved_by, reviewer, created_by) hold a person's name; a
// team under them does not.
func TestNamesUnderKeysOfWhoDidIt(t *testing.T) {
	sc, _ := New(nil)
	n := 0
	for _, key := range []string{"approved_by", "reviewer", "createdBy", "assigned_to", "approver", "signed_off_by"} {
		for _, v := range []string{"Adrienne MacPherson", "Neža Mlinar", "Ювеналий Прохоров", "江淑芬"} {
			n++
			if !hasType(sc.ScanValue("", map[string]any{key: v, "decision": "approved"}), TypeName) {
				t.Errorf("%s: %q: name not found", key, v)
			}
		}
		if hasType(sc.ScanValue("", map[string]any{key: "Legal Ops", "decision": "approved"}), TypeName) {
			t.Errorf("%s: a team read as a name", key)
		}
	}
	if n < 20 {
		t.Fatalf("only %d variants", n)
	}
	for _, key := range []string{"order_by", "group_by", "sort_by"} {
		if hasType(sc.ScanValue("", map[string]any{key: "Created At"}), TypeName) {
			t.Errorf("%s: a column read as a name", key)
		}
	}
}

// In prose written all in lower case, a given name and the word after it before a verb that
// follows a person, and the two words after a verb that takes only people, are a name the lists
// need not know; a given name before a word that is no verb ("mac ignored") is not.
func TestLowerCaseNamesTheListsDoNotKnow(t *testing.T) {
	sc, _ := New(nil)
	given := []string{"kevin", "ingrid", "mateo", "sophie", "chiara"}
	surnames := []string{"monnard", "okonkwo", "brandstaetter", "quéré"}
	n := 0
	for i, g := range given {
		for j, sn := range surnames {
			if (i+j)%2 != 0 {
				continue
			}
			for _, tmpl := range []string{"%s called again about the refund, 3rd time", "can u ask %s if the shipment left"} {
				text := fmt.Sprintf(tmpl, g+" "+sn)
				n++
				if !hasType(sc.ScanText(text), TypeName) {
					t.Errorf("%q: name not found", text)
				}
			}
		}
	}
	if n < 20 {
		t.Fatalf("only %d variants", n)
	}
	for _, text := range []string{"ipv6 on, mac ignored, color set to teal", "pls ask support about the refund today",
		"patient records were moved to the new store"} {
		if hasType(sc.ScanText(text), TypeName) {
			t.Errorf("%q: a name found", text)
		}
	}
}
