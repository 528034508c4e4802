package pii

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// Dates of birth written in words in the languages of monthWords, day first with or without a
// full stop after the day, and year first (Latvian, Hungarian, Lithuanian), after a birth cue of the same
// language; the same dates after words of events pass.
func TestDatesOfBirthInWords(t *testing.T) {
	sc, _ := New(nil)
	r := rand.New(rand.NewPCG(20, 26))
	type lang struct {
		cue, event string
		months     []string
		format     string // %[1]d day, %[2]s month, %[3]d year
	}
	langs := []lang{
		{"Geburtsdatum:", "Die Messe findet am", []string{"Januar", "März", "Juli", "Dezember"}, "%d. %s %d"},
		{"Geboortedatum:", "De beurs opent op", []string{"januari", "maart", "mei", "oktober"}, "%d %s %d"},
		{"Födelsedatum:", "Mässan öppnar den", []string{"januari", "mars", "maj", "augusti"}, "%d %s %d"},
		{"Data urodzenia:", "Targi odbędą się", []string{"stycznia", "marca", "września", "października"}, "%d %s %d r."},
		{"Datum narození:", "Veletrh začíná", []string{"ledna", "března", "června", "října"}, "%d. %s %d"},
		{"Dzimšanas datums:", "Izstāde notiks", []string{"janvārī", "martā", "jūnijā", "decembrī"}, "%[3]d. gada %[1]d. %[2]s"},
		{"Születési dátum:", "A vásár kezdete", []string{"január", "március", "május", "október"}, "%[3]d. %[2]s %[1]d."},
		{"Fecha de nacimiento:", "La feria abre el", []string{"enero", "marzo", "julio", "diciembre"}, "%d de %s de %d"},
		{"Data di nascita:", "La fiera apre il", []string{"gennaio", "marzo", "luglio", "dicembre"}, "%d %s %d"},
		{"Sünniaeg:", "Mess avatakse", []string{"jaanuar", "märts", "juuli", "detsember"}, "%d. %s %d"},
		{"narodila jsem se", "uzávěrka je", []string{"ledna", "února", "července", "prosince"}, "%d. %s %d"},
		{"je rojen", "sejem se začne", []string{"januarja", "marca", "julija", "decembra"}, "%d. %s %d"},
		{"gimė", "mugė prasidės", []string{"sausio", "kovo", "liepos", "gruodžio"}, "%[3]d m. %[2]s %[1]d d."},
		{"народилася", "ярмарок відкриється", []string{"січня", "березня", "липня", "грудня"}, "%d %s %d р."},
		{"s-a născut pe", "târgul se deschide pe", []string{"ianuarie", "martie", "iulie", "decembrie"}, "%d %s %d"},
	}
	for i := range 90 {
		l := langs[i%len(langs)]
		m := l.months[r.IntN(len(l.months))]
		d := 1 + r.IntN(28)
		born := fmt.Sprintf(l.format, d, m, 1930+r.IntN(75))
		event := fmt.Sprintf(l.format, d, m, 2020+r.IntN(8))
		if l.format == "%d de %s de %d" {
			// Spanish joins day, month and year with "de"; read as day and month, the year apart.
			born = fmt.Sprintf("%d %s %d", d, m, 1930+r.IntN(75))
			event = fmt.Sprintf("%d %s %d", d, m, 2020+r.IntN(8))
		}
		if text := l.cue + " " + born; !hasType(sc.ScanText(text), TypeDOB) {
			t.Errorf("%q: date of birth not found", text)
		}
		if text := l.event + " " + event + "."; len(sc.ScanText(text)) > 0 {
			t.Errorf("%q: %v", text, sc.ScanText(text))
		}
	}
}
