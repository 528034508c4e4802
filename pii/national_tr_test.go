package pii

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// genTCKN returns a Turkish identity number; bad makes its last check digit wrong.
func genTCKN(r *rand.Rand, bad bool) string {
	d := make([]byte, 11)
	d[0] = byte('1' + r.IntN(9))
	for i := 1; i < 9; i++ {
		d[i] = byte('0' + r.IntN(10))
	}
	odd, even := 0, 0
	for i := 0; i < 9; i++ {
		if i%2 == 0 {
			odd += int(d[i] - '0')
		} else {
			even += int(d[i] - '0')
		}
	}
	d[9] = byte('0' + ((odd*7-even)%10+10)%10)
	c := (odd + even + int(d[9]-'0')) % 10
	if bad {
		c = (c + 1 + r.IntN(9)) % 10
	}
	d[10] = byte('0' + c)
	return string(d)
}

// TestTurkishIdentityNumber: a Kimlik number named by its words, in prose, forms and column
// headers, is a national identifier; one whose check fails passes in prose (under a column
// header the row's other cells are read by the header's cue too), and so does a valid one that
// nothing names (one number in a hundred passes the check by chance).
func TestTurkishIdentityNumber(t *testing.T) {
	sc := mustScanner(t)
	r := rand.New(rand.NewPCG(71, 11))
	frames := []string{"T.C. Kimlik No: %s", "Kiracının TC kimlik numarası %s olarak girildi.", "student_ref;TCKN;year\nS%d;%s;4",
		"Müşteri kimlik no %s, teyit edildi.", "Applicant's Turkish ID %s was verified."}
	for k := 0; k < 40; k++ {
		f := frames[r.IntN(len(frames))]
		for _, bad := range []bool{false, true} {
			n := genTCKN(r, bad)
			text := fmt.Sprintf(f, n)
			if f == frames[2] {
				text = fmt.Sprintf(f, 10000+r.IntN(90000), n)
			}
			fs := sc.ScanText(text)
			if !bad && !hasType(fs, TypeNationalID) {
				t.Errorf("%q: no national id: %v", text, fs)
			}
			if bad && f != frames[2] && len(fs) > 0 {
				t.Errorf("%q (check fails): %v", text, fs)
			}
		}
	}
	for k := 0; k < 20; k++ {
		text := fmt.Sprintf("Batch %s processed in %d ms.", genTCKN(r, false), 10+r.IntN(900))
		if fs := sc.ScanText(text); hasType(fs, TypeNationalID) {
			t.Errorf("%q: a national id with no word naming it: %v", text, fs)
		}
	}
}
