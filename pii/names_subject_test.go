package pii

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// A person named as the subject of a German or Czech sentence: after a verb of calling or
// writing put before it ("Včera volal X"), after "laut"/"podle" (according to), after a
// reflexive ("meldete sich X"), or before a participle or verb only people take ("hat X
// angerufen", "X poslal smlouvu", "X žádá o"); the name's surname is known or has a family
// ending (Latvian -iņš, Lithuanian -ienė, Slavic -ov). Adverbs that open a German sentence
// ("Heute Morgen meldete sich das Team") are no names.
func TestNamesAsSubjects(t *testing.T) {
	sc, _ := New(nil)
	r := rand.New(rand.NewPCG(20, 28))
	given := []string{"Valija", "Reinis", "Līga", "Alfrēds", "Ieva", "Gytis", "Rūta", "Sander", "Jelena", "Oksana"}
	surnames := []string{"Kārkliņš", "Avotiņš", "Lagzdiņa", "Petrauskienė", "Kazlauskas", "Frolov", "Jaanson",
		"Ozoliņš", "Vasiljeva", "Jankauskaitė"}
	templates := []string{
		"Gestern hat %s angerufen und nach der Rechnung gefragt.",
		"Heute Morgen meldete sich %s wegen der doppelten Abbuchung.",
		"Laut %s ist die Lieferung unvollständig angekommen.",
		"Včera volal %s kvůli faktuře za říjen.",
		"%s poslal podepsanou smlouvu až dnes.",
		"%s žádá o zpětné zavolání.",
		"Podle %s zásilka dorazila poškozená.",
		"Handing this over to %s, who covers the Baltic accounts.",
	}
	for i := range 48 {
		n := given[r.IntN(len(given))] + " " + surnames[r.IntN(len(surnames))]
		text := fmt.Sprintf(templates[i%len(templates)], n)
		if !hasType(sc.ScanText(text), TypeName) {
			t.Errorf("%q: name not found", text)
		}
	}
	adverbs := []string{"Heute Morgen", "Gestern Abend", "Am Montag", "Seit Freitag", "Letzte Woche"}
	teams := []string{"das Team", "der Kundendienst", "die Buchhaltung", "unser Lager"}
	for i := range 20 {
		text := fmt.Sprintf("%s meldete sich %s wegen der Lieferung %d.", adverbs[i%len(adverbs)], teams[r.IntN(len(teams))], 1000+r.IntN(9000))
		if fs := sc.ScanText(text); len(fs) > 0 {
			t.Errorf("%q: %v", text, fs)
		}
	}
}

// A name in the possessive with nothing of the person's after it is a shop or a brand ("at Jack
// Daniel's this weekend", "Expense: Ben Sherman's, 40 EUR"), and a room or a hall named for a
// person is a place; a possessive before what a person has is still a person's name.
func TestNamesPossessiveAloneAndRooms(t *testing.T) {
	sc, _ := New(nil)
	r := rand.New(rand.NewPCG(20, 29))
	brands := []string{"Jack Daniel's", "Ben Sherman's", "Tommy Bahama's", "Ruth Chris's", "Carl Jr's",
		"Harry Ramsden's", "Jimmy John's", "Marie Callender's"}
	templates := []string{"Promo: 2 for 1 at %s this weekend, code W%d.", "Expense: %s, %d.50 EUR, team lunch",
		"Ship %d cases of %s to the arena kiosk.", "Lunch at %s and then the offsite, budget %d."}
	for i := range 32 {
		b := brands[r.IntN(len(brands))]
		var text string
		if i%4 == 2 {
			text = fmt.Sprintf(templates[2], 2+r.IntN(40), b)
		} else {
			text = fmt.Sprintf(templates[i%4], b, 10+r.IntN(90))
		}
		if fs := sc.ScanText(text); hasType(fs, TypeName) {
			t.Errorf("%q: %v", text, fs)
		}
	}
	rooms := []string{"room", "hall", "Room", "auditorium", "Saal", "sala"}
	eponyms := []string{"Ada Lovelace", "Grace Hopper", "Alan Turing", "Marie Curie", "Emmy Noether", "Niels Bohr"}
	for i := range 24 {
		text := fmt.Sprintf("Meeting %s %s, floor %d", rooms[i%len(rooms)], eponyms[r.IntN(len(eponyms))], 1+r.IntN(9))
		if fs := sc.ScanText(text); hasType(fs, TypeName) {
			t.Errorf("%q: %v", text, fs)
		}
	}
	owned := []string{"insurance card", "lawyer", "passport", "lab results", "salary"}
	people := []string{"Pamela Meyer", "Ingrid Larsen", "Tomasz Nowak", "Sofia Carranza"}
	for i := range 20 {
		text := fmt.Sprintf("Please forward %s's %s to billing.", people[i%len(people)], owned[r.IntN(len(owned))])
		if !hasType(sc.ScanText(text), TypeName) {
			t.Errorf("%q: name not found", text)
		}
	}
}
