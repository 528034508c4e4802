package pii

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// genIRD: eight digits from 10,000,000 to 14,999,999 and the check digit, printed NNN-NNN-NNN.
func genIRD(r *rand.Rand) string {
	for {
		base := fmt.Sprintf("%08d", 10000000+r.IntN(5000000))
		for c := 0; c < 10; c++ {
			if v := base + fmt.Sprint(c); nzIRDValid([]byte(v)) {
				return v[:3] + "-" + v[3:6] + "-" + v[6:]
			}
		}
	}
}

// genMUNID: a surname's initial, DDMMYY, six digits and the check character.
func genMUNID(r *rand.Rand) string {
	const alpha = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	body := fmt.Sprintf("%c%02d%02d%02d%06d", 'A'+r.IntN(26), 1+r.IntN(28), 1+r.IntN(12), r.IntN(9), r.IntN(1000000))
	sum := 0
	for i := 0; i < 13; i++ {
		sum += (14 - i) * (map[bool]int{true: int(body[i] - '0'), false: int(body[i]-'A') + 10}[isDigit(body[i])])
	}
	return body + string(alpha[((17-sum)%17+17)%17])
}

// TestIRDAndMauritianID: an IRD number named as one, and a Mauritian identity number under a
// word for an identifier, are found; with the check changed, neither is reported, nor the IRD
// number read as a phone number.
func TestIRDAndMauritianID(t *testing.T) {
	sc := mustScanner(t)
	r := rand.New(rand.NewPCG(20, 26))
	for i := range 24 {
		ird, nid := genIRD(r), genMUNID(r)
		for _, c := range []struct{ good, bad string }{
			{fmt.Sprintf("IRD no. %s for the payroll run", ird), fmt.Sprintf("IRD no. %s for the payroll run", mutateCheck(ird))},
			{fmt.Sprintf(`{"IRDNumber": "%s"}`, ird), fmt.Sprintf(`{"Field": "IRDNumber", "Value": "%s", "Valid": false}`, mutateCheck(ird))},
			{fmt.Sprintf("National Identity Card No. %s", nid), fmt.Sprintf("ID number %s fails its check", nid[:13]+string("0123456789ABCDEFG"[(indexByte("0123456789ABCDEFG", nid[13])+1+i%15)%17]))},
		} {
			if !hasType(sc.ScanText(c.good), TypeNationalID) {
				t.Errorf("%q not found", c.good)
			}
			if fs := sc.ScanText(c.bad); len(fs) > 0 {
				t.Errorf("%q reported: %v", c.bad, fs)
			}
		}
	}
}

func indexByte(s string, c byte) int {
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			return i
		}
	}
	return -1
}
