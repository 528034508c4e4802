package pii

import "testing"

// TestNamesWithAge: a name followed by its bearer's age, or by "is asking", is a person's; a
// number after a firm's or a place's name, or a count in parentheses after a product, is no age.
func TestNamesWithAge(t *testing.T) {
	sc := mustScanner(t)
	for _, text := range []string{
		"Направление: Дмитрий Кузнецов, 34 лет, диагноз уточняется.",
		"Krešimir Matić is a 24-year-old teacher from Rijeka.",
		"<thinking>Betelhem Haile is asking to move the viewing.</thinking>",
		"Referencia: Róger Baltodano, 51 años, acude a consulta.",
		"the patient (Mishari Al-Ajmi, 58, a fisherman in Tegucigalpa) has bipolar disorder",
	} {
		if !hasType(sc.ScanText(text), TypeName) {
			t.Errorf("%q: no name", text)
		}
	}
	for _, text := range []string{
		"Orders: Acme Logistics (12), Nordic Freight (7).",
		"Store Open Tuesday, 58, a record for the branch.",
		"Meet at Al-Rashid Street, 12, by the bank.",
	} {
		if fs := sc.ScanText(text); hasType(fs, TypeName) {
			t.Errorf("%q: read as a name: %v", text, fs)
		}
	}
	for _, c := range []struct {
		s  string
		at int
		ok bool
	}{
		{"X, 58, a fisherman", 1, true}, {"X (51) is", 1, true}, {"X (43 r.)", 1, true}, {"X, 34 лет", 1, true},
		{"X is a 24-year-old", 1, true}, {"X, 2026, report", 1, false}, {"X, 12 items", 1, false}, {"X (7 rooms)", 1, false},
	} {
		if got := ageAfter(c.s, c.at); got != c.ok {
			t.Errorf("ageAfter(%q) = %v, want %v", c.s, got, c.ok)
		}
	}
}
