package pii

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// TestStreetBeforeNextSentence: a street named for a person at the end of a sentence, and a
// number in the next one ("Avenida Getúlio Vargas. Seat 28F"), make no address; the same street
// with its house number is still one.
func TestStreetBeforeNextSentence(t *testing.T) {
	sc := mustScanner(t)
	r := rand.New(rand.NewPCG(9, 4))
	prefixes := []string{"Avenida", "Rua", "Via", "Calle", "Rue", "Piazza", "Corso", "Praça"}
	given := []string{"Getúlio", "Anna", "Marco", "Lucia", "Tomas", "Helena", "Pedro", "Elena"}
	last := []string{"Vargas", "Rossi", "Moreau", "Ferreira", "Novak", "Garibaldi", "Costa", "Silva"}
	// Words that are street types as well ("Row", "Gate") still join a number to the name before
	// them across a full stop ("Ferreira. Row 33" reads as "Cannery Row 33" does): a limit of the
	// suffix rule, not tested here.
	next := []string{"Seat %dF.", "Platform %d.", "Coach %d.", "Berth %d.", "Car %d."}
	n := 0
	for i := 0; i < 40; i++ {
		street := fmt.Sprintf("%s %s %s", prefixes[r.IntN(len(prefixes))], given[r.IntN(len(given))], last[r.IntN(len(last))])
		text := fmt.Sprintf("Leg %d: bus to %s. "+next[i%len(next)], r.IntN(5)+1, street, r.IntN(90)+10)
		if fs := sc.ScanText(text); hasType(fs, TypeAddress) {
			t.Errorf("%q: read as an address: %v", text, fs)
		}
		with := fmt.Sprintf("Ship to %s %d, 2nd floor.", street, r.IntN(900)+100)
		if fs := sc.ScanText(with); !hasType(fs, TypeAddress) {
			t.Errorf("%q: no address found", with)
		}
		n += 2
	}
	if n < 20 {
		t.Fatalf("only %d variants", n)
	}
}
