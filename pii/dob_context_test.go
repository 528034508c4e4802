package pii

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

func TestDatesOfBirthInContext(t *testing.T) {
	sc, _ := New(nil)
	r := rand.New(rand.NewPCG(12, 13))
	cues := []string{"Date of birth:", "born on", "DOB", "Fecha de nacimiento:", "Date de naissance :", "Geburtsdatum:",
		"geboren am", "Data di nascita:", "Geboortedatum:", "Data urodzenia:", "Data de nascimento:", "Né(e) le", "Nació el", "b."}
	months := []string{"January", "March", "June", "September", "November"}
	for i := range 56 {
		y, m, d := 1930+r.IntN(80), 1+r.IntN(12), 1+r.IntN(28)
		var date string
		switch i % 4 {
		case 0:
			date = fmt.Sprintf("%02d/%02d/%d", d, m, y)
		case 1:
			date = fmt.Sprintf("%02d.%02d.%d", d, m, y)
		case 2:
			date = fmt.Sprintf("%d-%02d-%02d", y, m, d)
		case 3:
			date = fmt.Sprintf("%s %d, %d", months[i%len(months)], d, y)
		}
		text := fmt.Sprintf("%s %s", cues[i%len(cues)], date)
		if !hasType(sc.ScanText(text), TypeDOB) {
			t.Errorf("%q: date of birth not found", text)
		}
	}
	keys := []string{"fecha_nacimiento", "date_naissance", "geburtsdatum", "geboortedatum", "data_di_nascita", "birth_date"}
	for i, k := range keys {
		v := fmt.Sprintf("%02d/%02d/%d", 1+i, 3+i, 1960+i)
		if !hasType(sc.ScanValue("p", map[string]any{"person": map[string]any{k: v}}), TypeDOB) {
			t.Errorf("%s=%q: date of birth not found", k, v)
		}
	}
	// Other dates pass.
	for i := range 20 {
		y, m, d := 2000+r.IntN(30), 1+r.IntN(12), 1+r.IntN(28)
		for _, text := range []string{
			fmt.Sprintf("The release is due on %02d/%02d/%d.", d, m, y),
			fmt.Sprintf("Invoice date: %d-%02d-%02d", y, m, d),
			fmt.Sprintf("Meeting moved to %s %d, %d.", months[i%len(months)], d, y),
		} {
			if fs := sc.ScanText(text); len(fs) > 0 {
				t.Errorf("%q: %v", text, fs)
			}
		}
	}
}
