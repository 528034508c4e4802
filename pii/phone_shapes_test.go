package pii

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestPhoneShapes: a number spaced out digit by digit after a phone word is a phone number; the
// layouts of national identifiers, and numbers under an identifier's key, are not.
func TestPhoneShapes(t *testing.T) {
	sc := mustScanner(t)
	r := rand.New(rand.NewPCG(9, 4))
	digits := func(n int) string {
		var b strings.Builder
		for range n {
			b.WriteByte(byte('0' + r.IntN(10)))
		}
		return b.String()
	}
	for k := 0; k < 30; k++ {
		num := []string{"06" + digits(8), "015" + []string{"1", "2", "7"}[r.IntN(3)] + digits(8), "07" + []string{"4", "5", "7", "8", "9"}[r.IntN(5)] + digits(8)}[r.IntN(3)]
		s := fmt.Sprintf("%s %s", []string{"call me on", "my number is", "ring", "text me at", "phone:"}[r.IntN(5)], strings.Join(strings.Split(num, ""), " "))
		if !hasType(sc.ScanText(s), TypePhone) {
			t.Errorf("%q: no phone", s)
		}
		if fs := sc.ScanText("lottery draw: " + strings.Join(strings.Split(num, ""), " ")); hasType(fs, TypePhone) {
			t.Errorf("spaced digits with no phone word read as a phone: %v", fs)
		}
	}
	for k := 0; k < 30; k++ {
		var v string
		switch k % 3 {
		case 0:
			v = fmt.Sprintf("%03d-%02d-%04d", 900+r.IntN(100), 1+r.IntN(49), r.IntN(10000))
		case 1:
			d := digits(11)
			v = fmt.Sprintf("%s.%s.%s-%s", d[:3], d[3:6], d[6:9], d[9:])
		default:
			v = fmt.Sprintf("%d%s %s %s", 1+r.IntN(9), digits(3), digits(4), digits(4))
		}
		if fs := sc.ScanText("value checked: " + v); hasType(fs, TypePhone) {
			t.Errorf("%q read as a phone: %v", v, fs)
		}
	}
	for k := 0; k < 24; k++ {
		key := []string{"sin_number", "bsn_no", "cpf_number", "tfn_number", "ssn", "passport_number"}[k%6]
		v := fmt.Sprintf("6%s %s %s", digits(2), digits(3), digits(3))
		fs, err := sc.ScanJSON("p", []byte(fmt.Sprintf(`{%q: %q}`, key, v)))
		if err != nil {
			t.Fatal(err)
		}
		if hasType(fs, TypePhone) {
			t.Errorf("%s=%s read as a phone: %v", key, v, fs)
		}
	}
}
