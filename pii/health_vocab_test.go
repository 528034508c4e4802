package pii

import (
	"fmt"
	"strings"
	"testing"
)

func TestHealthAboutSomeone(t *testing.T) {
	sc, _ := New(nil)
	conditions := []string{"type 2 diabetes", "epilepsy", "multiple sclerosis", "Crohn's disease", "HIV", "psoriasis", "long COVID"}
	medicines := []string{"metformin", "sertraline", "warfarin", "olanzapine", "tenofovir", "levothyroxine"}
	personal := []string{"I have %s and need the meeting moved.", "My doctor says it is %s.", "She was diagnosed with %s last year.",
		"Patient reports %s since March.", "Er leidet an %s."}
	meds := []string{"I take %s every morning.", "He is on %s twice a day.", "My prescription for %s ran out."}
	n := 0
	for i, c := range conditions {
		for j, p := range personal {
			if (i+j)%2 == 0 {
				text := fmt.Sprintf(p, c)
				n++
				if !hasType(sc.ScanText(text), TypeHealth) {
					t.Errorf("%q: health not found", text)
				}
			}
		}
	}
	for _, m := range medicines {
		for _, p := range meds {
			text := fmt.Sprintf(p, m)
			n++
			if !hasType(sc.ScanText(text), TypeHealth) {
				t.Errorf("%q: health not found", text)
			}
		}
	}
	for _, c := range append(conditions, medicines...) {
		for _, key := range []string{"diagnosis", "medication", "allergies", "medical_history"} {
			n++
			if fs := sc.ScanValue("p", map[string]any{key: c}); !hasType(fs, TypeHealth) {
				t.Errorf("%s=%q: health not found", key, c)
			}
		}
	}
	if n < 40 {
		t.Fatalf("only %d variants", n)
	}
}

func TestHealthAboutNoOne(t *testing.T) {
	sc, _ := New(nil)
	terms := []string{"diabetes", "HIV", "cancer", "depression", "insulin", "asthma", "metformin"}
	benign := []string{"Course module 4 covers the epidemiology of %s.", "The grant funds three %s research positions.",
		"Our app adds a %s awareness banner in November.", "Stock alert: %s test kits below reorder level.",
		"Translate the leaflet 'Living with %s' into Spanish."}
	for _, c := range terms {
		for _, b := range benign {
			text := fmt.Sprintf(b, c)
			if fs := sc.ScanText(text); len(fs) > 0 {
				t.Errorf("%q: %v", text, fs)
			}
		}
	}
	for _, v := range []map[string]any{
		{"fields": []any{"patient_id", "diagnosis", "medication"}},
		{"topic": "depression", "articles": 7},
		{"module": "diagnosis", "status": "health check passed"},
	} {
		if fs := sc.ScanValue("p", v); len(fs) > 0 {
			t.Errorf("%v: %v", v, fs)
		}
	}
}

// TestFirstPersonOpenerFilter holds the lists to what firstPersonOpener's byte tests assume, so
// that a word added to either cannot be skipped by them unnoticed.
func TestFirstPersonOpenerFilter(t *testing.T) {
	for w := range personOpeners.m {
		if len(w) > 4 {
			t.Errorf("personOpeners: %q has more than four bytes; firstPersonOpener skips it", w)
		}
	}
	for _, p := range obliquePronouns {
		if p[0] != 'm' && p[0] != 'h' {
			t.Errorf("obliquePronouns: %q starts with neither 'm' nor 'h'; firstPersonOpener skips it", p)
		}
	}
	for _, c := range []string{"Bei mir wurde Asthma diagnostiziert", "On m'a diagnostiqué", "Mi hanno detto"} {
		j := strings.IndexByte(c, ' ')
		if !firstPersonOpener(c, 0, j) {
			t.Errorf("firstPersonOpener(%q) = false", c)
		}
	}
}

// TestHealthInNineLanguages: the common chronic conditions and their medicines as Dutch,
// Portuguese, Italian, Polish, Swedish, Hungarian, Turkish, Indonesian and Vietnamese write them
// are health information beside a person (a made-up name, which only the health clause makes a
// person's, or an identifier), and pass in a leaflet about no one.
func TestHealthInNineLanguages(t *testing.T) {
	sc, _ := New(nil)
	terms := []string{"hoge bloeddruk", "depressie", "depressão", "epilessia", "cukrzycę", "padaczkę", "högt blodtryck",
		"asztmás", "magas vérnyomású", "yüksek tansiyon", "diyabet", "darah tinggi", "cao huyết áp", "trầm cảm",
		"inzulint", "insulinę", "amlodypinę", "insülin", "sertralina", "high blood pressure"}
	for i, term := range terms {
		about := []string{"Mijn moeder: %s, ticket for olga.brandt@example.org.", "Kund 4711, tel. +36 30 555 0147: %s.",
			"Patient reports %s since March."}[i%3]
		text := fmt.Sprintf(about, term)
		if !hasType(sc.ScanText(text), TypeHealth) {
			t.Errorf("%q: health not found", text)
		}
		leaflet := fmt.Sprintf("Leaflet section 4: %s, what to know.", term)
		if fs := sc.ScanText(leaflet); len(fs) > 0 {
			t.Errorf("%q: %v", leaflet, fs)
		}
	}
}
