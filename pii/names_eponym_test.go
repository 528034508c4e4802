package pii

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

var (
	eponymGiven = []string{"Anna", "Olga", "Ingrid", "Marta", "Pavel", "Tomas", "Helena", "Jonas", "Lucia", "Viktor", "Greta", "Mateo"}
	eponymLast  = []string{"Novak", "Berg", "Kowalski", "Larsen", "Moreau", "Ferreira", "Lindqvist", "Horvath", "Petrov", "Okafor"}
)

// eponymShapes are things named for a person, one family each, with %s for the person's name.
var eponymShapes = map[string][]string{
	"street": {"Detour via %s Jr. Blvd tonight.", "Parking on %s Jr Boulevard is closed.", "Depot moved to %s iela; parking at the back.",
		"Roadworks on %s gatve until Friday.", "Meet at the corner of %s Sr. Avenue.", "Office: %s utca, 3rd floor"},
	"room": {"Meeting room %s, 3rd floor", "Hall %s is closed today.", "Building %s, wing B", "Lecture in Auditorium %s at 10:00",
		"Sala %s prenotata", "Room %s is booked until noon."},
	"ship": {"Boarding the MS %s at gate 4.", "Cabin 221 aboard MV %s", "The SS %s leaves at 18:00."},
	"brand": {"Vergleich: %s vs. Eigenmarke, Preis pro Stück", "Expense: %s, 77.77 EUR, team lunch", "Promo: 2 for 1 at %s this weekend, code WKND5.",
		"%s Black Label 0.7l", "%s serum 30ml", "%s vs. store brand: price per unit", "Vendor: %s, invoice attached", "Händler: %s, 19.99 EUR"},
}

// personShapes hold the same names as people: a cue for a person stands beside them.
var personShapes = []string{"Ask %s about the Blvd closure.", "Expense claim submitted by %s.", "%s called about the serum order again.",
	"Dear %s, your room is booked.", "Reassigned the vendor review to %s.", "Thanks %s for the price list."}

// TestThingsNamedForPeople: a street, a room or a building, a ship or a brand named for a person
// ("Martin Luther King Jr. Blvd", "Hall Marie Curie", "the MS Hans Christian Andersen",
// "Expense: Johnnie Walker, 77.77 EUR") is no person's name; a regnal number makes a pope's or a
// monarch's name none ("Roadworks on Jana Pawła II"); the same names with a person's cue are
// still found.
func TestThingsNamedForPeople(t *testing.T) {
	sc := mustScanner(t)
	r := rand.New(rand.NewPCG(3, 33))
	person := func() string {
		return eponymGiven[r.IntN(len(eponymGiven))] + " " + eponymLast[r.IntN(len(eponymLast))]
	}
	for family, shapes := range eponymShapes {
		n := 0
		for i := 0; i < 48; i++ {
			text := fmt.Sprintf(shapes[i%len(shapes)], person())
			if fs := sc.ScanText(text); hasType(fs, TypeName) {
				t.Errorf("%s: %q: read as a person: %v", family, text, fs)
			}
			n++
		}
		if n < 20 {
			t.Fatalf("%s: only %d variants", family, n)
		}
	}
	regnal := []string{"II", "III", "IV", "XIV", "XVI", "XXIII"}
	for i := 0; i < 24; i++ {
		g1, g2 := eponymGiven[r.IntN(len(eponymGiven))], eponymGiven[r.IntN(len(eponymGiven))]
		text := fmt.Sprintf("Roadworks on %s %s %s until Friday.", g1, g2, regnal[i%len(regnal)])
		if fs := sc.ScanText(text); hasType(fs, TypeName) {
			t.Errorf("%q: a regnal name read as a person: %v", text, fs)
		}
	}
	for i := 0; i < 48; i++ {
		text := fmt.Sprintf(personShapes[i%len(personShapes)], person())
		if fs := sc.ScanText(text); !hasType(fs, TypeName) {
			t.Errorf("%q: the person is not found", text)
		}
	}
}
