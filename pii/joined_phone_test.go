package pii

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/moltgate/moltgate/wire"
)

// TestPhoneParts: a mobile number split into a country code, an area code and a subscriber
// number under members that say so is a phone number on each part; the same members holding
// numbers no numbering plan has, and numbers side by side under other names, are not.
func TestPhoneParts(t *testing.T) {
	sc := mustScanner(t)
	r := rand.New(rand.NewPCG(41, 42))
	scan := func(js string) []Finding {
		p, err := wire.Parse([]byte(js), 0)
		if err != nil {
			t.Fatal(err)
		}
		return sc.ScanTree("", p, nil)
	}
	digits := func(n int) string {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte('0' + r.IntN(10))
		}
		return string(b)
	}
	for k := 0; k < 30; k++ {
		cc, area, num := []func() (string, string, string){
			func() (string, string, string) { return "+46", "7" + string("0236"[r.IntN(4)]), digits(7) },
			func() (string, string, string) { return "+48", "69" + string("0123456789"[r.IntN(10)]), digits(6) },
			func() (string, string, string) { return "+420", "77" + string("3456"[r.IntN(4)]), digits(6) },
			func() (string, string, string) { return "+351", "9" + string("1236"[r.IntN(4)]), digits(7) },
		}[r.IntN(4)]()
		ck := []string{"country_code", "countryCode", "dial_code", "cc"}[r.IntN(4)]
		nk := []string{"number", "subscriber", "local_number"}[r.IntN(3)]
		js := fmt.Sprintf(`{"contact":{%q:%q,"area":%q,%q:%q}}`, ck, cc, area, nk, num)
		if !hasType(scan(js), TypePhone) {
			t.Errorf("%s: no phone", js)
		}
		neg := []string{
			fmt.Sprintf(`{"contact":{%q:"+46","area":"00","%s":"%s"}}`, ck, nk, digits(3)),
			fmt.Sprintf(`{"stats":{"count":%q,"area":%q,"total":%q}}`, cc[1:], area, num),
		}[r.IntN(2)]
		if fs := scan(neg); hasType(fs, TypePhone) {
			t.Errorf("%s: a phone: %v", neg, fs)
		}
	}
}
