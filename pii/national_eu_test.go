package pii

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// Generators for the EU's and the UK's identifiers from their published rules, for table tests
// in text with their usual cue, and with their check character changed.

func genPESEL(r *rand.Rand) string {
	y, m, d := r.IntN(100), 1+r.IntN(12), 1+r.IntN(28)
	if r.IntN(2) == 0 {
		m += 20 // born 2000-2099
	}
	body := fmt.Sprintf("%02d%02d%02d%04d", y, m, d, r.IntN(10000))
	w := []int{1, 3, 7, 9, 1, 3, 7, 9, 1, 3}
	s := 0
	for i, c := range body {
		s += int(c-'0') * w[i]
	}
	return body + fmt.Sprint((10-s%10)%10)
}

func genBSN(r *rand.Rand) string {
	for {
		d := digitsOf(r, 8)
		s := 0
		for i, v := range d {
			s += v * (9 - i)
		}
		if c := s % 11; c < 10 && s != 0 {
			return join(append(d, c))
		}
	}
}

func genDNI(r *rand.Rand) string {
	n := r.IntN(1e8)
	return fmt.Sprintf("%08d%c", n, "TRWAGMYFPDXBNJZSQVHLCKE"[n%23])
}

func genNIE(r *rand.Rand) string {
	p := r.IntN(3)
	n := r.IntN(1e7)
	return fmt.Sprintf("%c%07d%c", "XYZ"[p], n, "TRWAGMYFPDXBNJZSQVHLCKE"[(p*1e7+n)%23])
}

func genNIR(r *rand.Rand) string {
	body := fmt.Sprintf("%d%02d%02d%02d%03d%03d", 1+r.IntN(2), r.IntN(100), 1+r.IntN(12), 1+r.IntN(95), 1+r.IntN(990), 1+r.IntN(999))
	m := 0
	for _, c := range body {
		m = (m*10 + int(c-'0')) % 97
	}
	k := 97 - m
	return fmt.Sprintf("%s %s %s %s %s %s %02d", body[0:1], body[1:3], body[3:5], body[5:7], body[7:10], body[10:13], k)
}

func genNHS(r *rand.Rand) string {
	for {
		d := digitsOf(r, 9)
		s := 0
		for i, v := range d {
			s += v * (10 - i)
		}
		c := 11 - s%11
		if c == 11 {
			c = 0
		}
		if c != 10 {
			t := join(append(d, c))
			return t[0:3] + " " + t[3:6] + " " + t[6:]
		}
	}
}

func TestEUIdsInContext(t *testing.T) {
	sc, _ := New(nil)
	for _, f := range []struct {
		name string
		gen  func(*rand.Rand) string
		cue  string
		typ  Type
	}{
		{"pl.pesel", genPESEL, "numer PESEL", TypeNationalID},
		{"nl.bsn", genBSN, "BSN", TypeNationalID},
		{"es.dni", genDNI, "DNI", TypeNationalID},
		{"es.nie", genNIE, "NIE", TypeNationalID},
		{"fr.nir", genNIR, "numéro de sécurité sociale", TypeNationalID},
		{"gb.nhs", genNHS, "NHS number", TypeNHS},
	} {
		r := rand.New(rand.NewPCG(21, uint64(len(f.name))))
		for i := range 20 {
			v := f.gen(r)
			text := fmt.Sprintf("%s: %s", f.cue, v)
			if i%2 == 1 {
				text = fmt.Sprintf("Can you look up %s? It's the %s from the claim.", v, f.cue)
			}
			if !hasType(sc.ScanText(text), f.typ) {
				t.Errorf("%s: %q not found", f.name, text)
			}
			bad := mutate(v)
			if f.name == "es.dni" || f.name == "es.nie" {
				bad = v[:len(v)-1] + string("TRWAGMYFPDXBNJZSQVHLCKE"[(len(v)+i)%23])
				if bad == v {
					continue
				}
			}
			// The mutated number must not pass as this identifier, nor as a phone number or a
			// bank account; whether its digits, read without their spaces, make a card number is
			// the card check's business.
			fs := sc.ScanText(fmt.Sprintf("%s: %s", f.cue, bad))
			if hasType(fs, f.typ) || hasType(fs, TypePhone) || hasType(fs, TypeBankAccount) {
				t.Errorf("%s: check changed %q still reported: %v", f.name, bad, fs)
			}
		}
	}
}
