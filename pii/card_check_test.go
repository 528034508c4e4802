package pii

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// genCard returns a card number of an issuer's range and length with its Luhn digit, in the
// issuer's printed layout (4-6-5 for American Express, groups of four for the others), or in one
// run of digits.
func genCard(r *rand.Rand, grouped bool) string {
	issuers := []struct {
		prefix string
		n      int
	}{{"34", 15}, {"37", 15}, {"4", 16}, {"51", 16}, {"55", 16}, {"2221", 16}, {"6011", 16}, {"3530", 16}, {"6221", 16}, {"65", 16}}
	is := issuers[r.IntN(len(issuers))]
	d := make([]int, 0, is.n)
	for _, c := range is.prefix {
		d = append(d, int(c-'0'))
	}
	for len(d) < is.n-1 {
		d = append(d, r.IntN(10))
	}
	s := join(append(d, luhnDigit(d)))
	switch {
	case !grouped:
		return s
	case is.n == 15:
		return s[0:4] + " " + s[4:10] + " " + s[10:]
	}
	sep := []string{" ", "-"}[r.IntN(2)]
	return s[0:4] + sep + s[4:8] + sep + s[8:12] + sep + s[12:]
}

func TestMistypedCardsPass(t *testing.T) {
	sc, _ := New(nil)
	templates := []string{
		"Karte %s ungültig laut Prüfsumme, Kunde informiert.",
		"Test charge with %s rejected by the form (checksum).",
		"Refund failed: the card number on file %s does not pass validation, asked customer to re-enter.",
		"La carte bancaire %s est refusée : numéro invalide.",
		"Tarjeta %s rechazada, el número no es válido.",
		"Customer typed %s, which the gateway rejected.",
	}
	r := rand.New(rand.NewPCG(21, 22))
	for i := range 60 {
		grouped := i%3 != 2
		v := genCard(r, grouped)
		tpl := templates[i%len(templates)]
		if !grouped && i%len(templates) == 5 {
			continue // a bare run with no word naming a card may be a phone number without its plus
		}
		if fs := sc.ScanText(fmt.Sprintf(tpl, v)); !hasType(fs, TypeCard) {
			t.Errorf("%q: card not found: %v", fmt.Sprintf(tpl, v), fs)
		}
		bad := fmt.Sprintf(tpl, mutate(v))
		if fs := sc.ScanText(bad); len(fs) > 0 {
			t.Errorf("%q: a number that fails its check is reported: %v", bad, fs)
		}
	}
}

// A phone number is never written in a card's groups; one written as phone numbers are is still
// found beside a card word.
func TestMistypedCardKeepsPhones(t *testing.T) {
	sc, _ := New(nil)
	for _, text := range []string{
		"Card declined, call me on +44 7700 900123 about it.",
		"Karte gesperrt, Rückruf unter Tel. 030 12345678.",
		"my card is blocked, phone 0049 30 1234 5678",
	} {
		if !hasType(sc.ScanText(text), TypePhone) {
			t.Errorf("%q: phone not found", text)
		}
	}
}
