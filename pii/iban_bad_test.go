package pii

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/moltgate/moltgate/wire"
)

// ibanBBAN writes a basic bank account number for country cc: a bank code of four letters where
// the country's has letters (NL, GB, IE), one check letter first for Italy, digits elsewhere.
func ibanBBAN(r *rand.Rand, cc string) string {
	n := ibanLen[cc] - 4
	var b strings.Builder
	switch cc {
	case "NL", "GB", "IE":
		for range 4 {
			b.WriteByte(byte('A' + r.IntN(26)))
		}
	case "IT", "SM":
		b.WriteByte(byte('A' + r.IntN(26)))
	}
	for b.Len() < n {
		b.WriteByte(byte('0' + r.IntN(10)))
	}
	return b.String()
}

// ibanWith returns the IBAN of country cc and account bban, with its check digits when valid,
// else with check digits that fail mod 97.
func ibanWith(r *rand.Rand, cc, bban string, valid bool) string {
	check := 98 - mod97([]byte(bban+cc+"00"))
	if !valid {
		check = (check + 1 + r.IntN(95)) % 97 // any other value; 0, 1 and 97+ never pass either
		if check < 2 {
			check += 2
		}
	}
	return fmt.Sprintf("%s%02d%s", cc, check, bban)
}

func groupsOfFour(v string) string {
	var parts []string
	for len(v) > 4 {
		parts, v = append(parts, v[:4]), v[4:]
	}
	return strings.Join(append(parts, v), " ")
}

var ibanShapes = []string{
	"<CdtTrfTxInf><Cdtr><Nm>%s</Nm></Cdtr><CdtrAcct><Id><IBAN>%s</IBAN></Id></CdtrAcct><RjctRsn>AC01 IncorrectAccountNumber</RjctRsn></CdtTrfTxInf>",
	"Invoice INV-%s: payee IBAN %s could not be validated, please resend.",
	"Zahlung an %s abgelehnt: IBAN %s ungültig.",
	"Customer ID and tax id on file for %s; IBAN: %s (rejected by the bank)",
	"%s — virement refusé, IBAN %s incorrect.",
}

// TestBadIBANPasses: an IBAN whose check digits fail mod 97, whatever its country, case of the
// shape and grouping, is a mistyped account number and passes, in text beside identifier words
// and under its key; the same accounts with their right check digits are found as IBANs.
func TestBadIBANPasses(t *testing.T) {
	sc := mustScanner(t)
	r := rand.New(rand.NewPCG(97, 1))
	countries := []string{"DE", "FR", "NO", "FI", "NL", "GB", "IT", "ES", "BE", "PL", "SE", "DK", "CH", "AT", "HU", "HR", "PT", "IE", "CZ", "RO"}
	holders := []string{"Holmberg Nieminen Oyj", "Kukkonen Korhonen As Oy", "Müller & Söhne GmbH", "Dupont SARL", "Nowak Sp. z o.o."}
	variants := 0
	for k := 0; k < 200; k++ {
		cc := countries[k%len(countries)]
		bban := ibanBBAN(r, cc)
		for _, valid := range []bool{false, true} {
			v := ibanWith(r, cc, bban, valid)
			if r.IntN(3) == 0 {
				v = groupsOfFour(v)
			}
			shape := ibanShapes[r.IntN(len(ibanShapes))]
			text := fmt.Sprintf(shape, holders[r.IntN(len(holders))], v)
			if strings.HasPrefix(shape, "Invoice") {
				text = fmt.Sprintf(shape, fmt.Sprint(10000+r.IntN(90000)), v)
			}
			for _, p := range []wire.Value{
				wire.ObjectValue(wire.Member{Key: "text", Value: wire.StringValue(text)}),
				wire.ObjectValue(wire.Member{Key: "iban", Value: wire.StringValue(v)}),
				wire.ObjectValue(wire.Member{Key: "account", Value: wire.ObjectValue(wire.Member{Key: "id", Value: wire.StringValue(v)})}),
			} {
				block, fs := gateDecision(sc, p)
				switch {
				case !valid && block:
					t.Errorf("%s: a failing IBAN blocked: %v", p, fs)
				case valid && !hasType(fs, TypeIBAN):
					t.Errorf("%s: no IBAN found: %v", p, fs)
				}
				variants++
			}
		}
	}
	if variants < 20 {
		t.Fatalf("only %d variants", variants)
	}
	// A valid IBAN written with the letters O and I for its zeros and ones is still one.
	for k := 0; k < 60; k++ {
		cc := countries[k%len(countries)]
		v := ibanWith(r, cc, ibanBBAN(r, cc), true)
		w := v[:4] + strings.NewReplacer("0", "O", "1", "I").Replace(v[4:])
		if w == v {
			continue
		}
		if s := "IBAN: " + groupsOfFour(w); !hasType(sc.ScanText(s), TypeIBAN) {
			t.Errorf("%q: no IBAN", s)
		}
	}
}
