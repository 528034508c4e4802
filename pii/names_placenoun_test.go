package pii

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// TestPlacesNamedForPeople: known names followed by a capitalised noun for a building, a venue,
// a shop or a place name that place ("Tycho Brahe Planetarium", "Deniz Eczanesi"), in several
// languages; the same names with a surname that is also such a word ("Mary Hall") and with a
// cue stay people.
func TestPlacesNamedForPeople(t *testing.T) {
	sc := mustScanner(t)
	r := rand.New(rand.NewPCG(51, 9))
	names := []string{"Tycho Brahe", "Anne Frank", "Johan Cruijff", "Marie Curie", "Maria Skłodowska", "Jan Matejko",
		"Selma Lagerlöf", "Jean Sibelius", "Deniz", "Ayşe", "Hans Christian"}
	nouns := []string{"Planetarium", "Museum", "Huis", "Haus", "ArenA", "Stadion", "Airport", "Lotnisko", "Bibliotheek",
		"Akademie", "Eczanesi", "Apotek", "Gallery", "Observatory", "Kyrka"}
	frames := []string{"Meet at the %s %s at %d.", "Ophalen bij %s %s om %d uur.", "Zbiórka przy %s %s o %d:00.",
		"Bu hafta sonu %s %s açık, saat %d.", "Course trip: %s %s, then lunch at %d."}
	for k := 0; k < 40; k++ {
		text := fmt.Sprintf(frames[r.IntN(len(frames))], names[r.IntN(len(names))], nouns[r.IntN(len(nouns))], 8+r.IntN(10))
		if fs := sc.ScanText(text); hasType(fs, TypeName) {
			t.Errorf("%q: a name: %v", text, fs)
		}
	}
	for k := 0; k < 20; k++ {
		text := fmt.Sprintf([]string{"Please call Mary %s back about the invoice.", "Dear Ji-woo %s, your order shipped.",
			"Assigned to Anna %s (finance)."}[r.IntN(3)], []string{"Hall", "Garden", "Moss"}[r.IntN(3)])
		if fs := sc.ScanText(text); !hasType(fs, TypeName) {
			t.Errorf("%q: no name", text)
		}
	}
}
