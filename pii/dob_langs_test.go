package pii

import "testing"

// TestBirthDatesInMoreLanguages: a date of birth written with the month in words, after the word
// for being born or for a date of birth, in Slovak, Croatian, Macedonian, Georgian, Galician and
// Afrikaans; the same dates after no such word (an invoice, a meeting) are no date of birth.
func TestBirthDatesInMoreLanguages(t *testing.T) {
	sc := mustScanner(t)
	for _, text := range []string{
		"Žiak, narodený 14. júla 1965, nastupuje do 1. ročníka.",
		"Žiačka narodená 3. októbra 1990.",
		"dátum narodenia: 7. augusta 1957",
		"učenica, rođena 5. siječnja 1999, upisuje se u 5. razred.",
		"ученикот, роден на 19 април 1966, е запишан.",
		"родена на 2 декември 1971",
		"მოსწავლე, დაბადების თარიღი: 8 იანვარი, 1986",
		"naceu o 3 de xuño de 1990 en Lugo",
		"Leerder, gebore 12 Maart 1988, skryf in vir graad 8.",
	} {
		if !hasType(sc.ScanText(text), TypeDOB) {
			t.Errorf("%q: no date of birth", text)
		}
	}
	for _, text := range []string{
		"Faktúra splatná 14. júla 2026.",
		"Sastanak je 5. siječnja 2027 u 10 sati.",
		"Состанокот е на 19 април 2026.",
		"შეხვედრა: 8 იანვარი, 2027",
		"A reunión é o 3 de xuño de 2026.",
		"Die vergadering is op 12 Maart 2026.",
	} {
		if fs := sc.ScanText(text); hasType(fs, TypeDOB) {
			t.Errorf("%q: read as a date of birth: %v", text, fs)
		}
	}
}
