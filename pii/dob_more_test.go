package pii

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// TestBirthDatesMoreLanguages: a date of birth written in words after the birth word of Welsh,
// Maltese, Albanian, Icelandic, Catalan, Serbian, Spanish or Portuguese, with the Iberian "de"
// between day, month and year, is one; the same dates of an event, with no birth word, are not.
func TestBirthDatesMoreLanguages(t *testing.T) {
	sc := mustScanner(t)
	r := rand.New(rand.NewPCG(77, 78))
	langs := []struct {
		cue, event string
		months     []string
		format     string
	}{
		{"ganwyd", "Agorwyd yr amgueddfa ar", []string{"Ionawr", "Mai", "Awst", "Rhagfyr"}, "%d %s %d"},
		{"imwieled fl-", "Il-mużew infetaħ fl-", []string{"Jannar", "Frar", "Settembru", "Diċembru"}, "%d %s %d"},
		{"i lindur më", "Muzeu u hap më", []string{"janar", "shtator", "nëntor", "dhjetor"}, "%d %s %d"},
		{"fædd", "Safnið var opnað", []string{"janúar", "júlí", "nóvember", "desember"}, "%d. %s %d"},
		{"nascuda el", "El museu va obrir el", []string{"gener", "març", "juliol", "desembre"}, "%d de %s de %d"},
		{"rođen", "Muzej je otvoren", []string{"januar", "avgust", "septembar", "decembar"}, "%d. %s %d"},
		{"nacida el", "El museo abrió el", []string{"enero", "marzo", "agosto", "diciembre"}, "%d de %s de %d"},
		{"nasceu em", "O museu abriu em", []string{"janeiro", "março", "julho", "dezembro"}, "%d de %s de %d"},
	}
	for i := range 64 {
		l := langs[i%len(langs)]
		m := l.months[r.IntN(len(l.months))]
		d := 1 + r.IntN(28)
		born := fmt.Sprintf(l.format, d, m, 1930+r.IntN(75))
		if text := "Resum: " + l.cue + " " + born + "."; !hasType(sc.ScanText(text), TypeDOB) {
			t.Errorf("%q: date of birth not found", text)
		}
		event := fmt.Sprintf(l.format, d, m, 1950+r.IntN(70))
		if text := l.event + " " + event + "."; len(sc.ScanText(text)) > 0 {
			t.Errorf("%q: %v", text, sc.ScanText(text))
		}
	}
	if text := "nascut el 3 d'abril de 1985"; !hasType(sc.ScanText(text), TypeDOB) {
		t.Errorf("%q: date of birth not found", text)
	}
}
