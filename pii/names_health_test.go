package pii

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// shapedSurnames are surnames of the forms the name rules know by their shape (patronymics and
// Slavic endings), whatever list holds them or not.
var shapedSurnames = []string{"Danielsen", "Johansson", "Kowalska", "Nováková", "Petersen", "Eriksson", "Wiśniewski",
	"Halvorsen", "Svobodová", "Lindqvist"}

// TestNameBesideHealth: a pair with a surname of a known shape is a person's when a condition or
// a medicine of the vocabulary follows it in its clause, in pharmacy and care records of several
// languages (and a dose in mg after a name is no product's size); institutions and places with
// such terms, and the pair with the term in another sentence, are not.
func TestNameBesideHealth(t *testing.T) {
	sc := mustScanner(t)
	r := rand.New(rand.NewPCG(41, 7))
	terms := []string{"asthma", "astma", "diabetes", "epilepsy", "depression", "insulin", "metformin", "losartan",
		"salbutamol", "warfarin", "migraine", "hypertension"}
	frames := []string{
		"Apoteket: %s, diagnose %s, udleveret.",
		"Pharmacy: %s collects %s 50 mg, repeat prescription.",
		"Botika: si %s ay may %s, binigyan ng gamot.",
		"Ward note: %s admitted with %s overnight.",
		"Apotheek: %s haalt %s op, herhaalrecept.",
		"Claim 4411: %s, %s, outpatient visit.",
	}
	for k := 0; k < 48; k++ {
		first, _ := madeUpName(r)
		name := first + " " + shapedSurnames[r.IntN(len(shapedSurnames))]
		text := fmt.Sprintf(frames[r.IntN(len(frames))], name, terms[r.IntN(len(terms))])
		if fs := sc.ScanText(text); !hasType(fs, TypeName) || !hasType(fs, TypeHealth) {
			t.Errorf("%q: %v", text, fs)
		}
	}
	for k := 0; k < 30; k++ {
		name := []string{"Johns Hopkins", "Tycho Brahe", "Mayo", "Anne Frank"}[r.IntN(4)]
		term := terms[r.IntN(len(terms))]
		text := fmt.Sprintf([]string{
			"The %s University guide to %s is out.",
			"%s Hospital opens a %s clinic on floor %d.",
			"Visit the %s Planetarium. Talk on %s at %d pm in the hall.",
			"Ward list updated by %s Clinic staff; %s leaflets in room %d.",
		}[r.IntN(4)], name, term, 2+r.IntN(7))
		if fs := sc.ScanText(text); hasType(fs, TypeName) {
			t.Errorf("%q: a name: %v", text, fs)
		}
	}
}
