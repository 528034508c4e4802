package pii

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// Generators for the identifiers of national_more.go, written from the issuers' published
// rules.

// genAHV: 756, nine digits and the EAN-13 check digit, printed 756.NNNN.NNNN.NC.
func genAHV(r *rand.Rand) string {
	d := append([]int{7, 5, 6}, digitsOf(r, 9)...)
	s := 0
	for i, v := range d {
		s += v * (1 + 2*(i%2))
	}
	x := join(append(d, (10-s%10)%10))
	return x[:3] + "." + x[3:7] + "." + x[7:11] + "." + x[11:]
}

// genSVNR: a serial NNN (not from 0), the check digit, and the date of birth DDMMYY.
func genSVNR(r *rand.Rand) string {
	for {
		y, m, d := randDate(r, 1940, 65)
		ser := 100 + r.IntN(900)
		x := fmt.Sprintf("%03d0%02d%02d%02d", ser, d, m, y%100)
		s := 0
		for i, w := range []int{3, 7, 9, 0, 5, 8, 4, 2, 1, 6} {
			s += int(x[i]-'0') * w
		}
		if s%11 == 10 {
			continue // no check digit: the serial is not issued
		}
		return fmt.Sprintf("%s%d %s", x[:3], s%11, x[4:])
	}
}

// genCUIT: a type, a DNI of eight digits and the check digit modulo 11, printed TT-NNNNNNNN-C.
func genCUIT(r *rand.Rand) string {
	for {
		x := []string{"20", "23", "27"}[r.IntN(3)] + fmt.Sprintf("%08d", 10000000+r.IntN(35000000))
		s := 0
		for i, w := range []int{5, 4, 3, 2, 7, 6, 5, 4, 3, 2} {
			s += int(x[i]-'0') * w
		}
		c := 11 - s%11
		switch c {
		case 11:
			c = 0
		case 10:
			continue // issued with type 23 instead
		}
		return fmt.Sprintf("%s-%s-%d", x[:2], x[2:], c)
	}
}

// genRNOKPP: nine digits and a check over them, weights -1 5 7 9 4 6 10 5 7, mod 11 mod 10.
func genRNOKPP(r *rand.Rand) string {
	d := digitsOf(r, 9)
	d[0] = 1 + r.IntN(3)
	s := 0
	for i, w := range []int{-1, 5, 7, 9, 4, 6, 10, 5, 7} {
		s += d[i] * w
	}
	return join(append(d, ((s%11)+11)%11%10))
}

var moreSchemeFamilies = []struct {
	rule  string
	gen   func(*rand.Rand) string
	names []string
}{
	{"ch.ahv", genAHV, []string{"AHV-Nr.", "numéro AVS", "AHV number", "N. AVS"}},
	{"at.svnr", genSVNR, []string{"SVNR", "Sozialversicherungsnummer", "SV-Nummer", "SVNR"}},
	{"ar.cuit", genCUIT, []string{"CUIT", "CUIL", "CUIT no.", "CUIL"}},
	{"ua.rntrc", genRNOKPP, []string{"РНОКПП", "ІПН", "RNOKPP", "ідентифікаційний код"}},
}

// TestMoreSchemeIDs: an AHV number, an SVNR, a CUIT or an RNOKPP named by its word is found in
// prose, and one whose check fails is not (nor read as a phone number); a number that passes
// their checks after a word for any identifier, or none, is none of them, since one number in
// ten does.
func TestMoreSchemeIDs(t *testing.T) {
	sc := mustScanner(t)
	for _, f := range moreSchemeFamilies {
		r := rand.New(rand.NewPCG(7, uint64(len(f.rule))))
		for i := range 24 {
			v := f.gen(r)
			tpl, name := schemeTemplates[i%len(schemeTemplates)], f.names[i%len(f.names)]
			text := fmt.Sprintf(tpl, name, v)
			if !hasType(sc.ScanText(text), TypeNationalID) {
				t.Errorf("%s: %q not found", f.rule, text)
			}
			bad := fmt.Sprintf(tpl, name, mutateCheck(v))
			if fs := sc.ScanText(bad); len(fs) > 0 {
				t.Errorf("%s: check changed, %q still reported: %v", f.rule, bad, fs)
			}
			plain := fmt.Sprintf("Order %s shipped; the tracking page has the details.", digitsOnly(v))
			if fs := sc.ScanText(plain); hasType(fs, TypeNationalID) {
				t.Errorf("%s: %q reported: %v", f.rule, plain, fs)
			}
		}
	}
}

// TestBelgianCroatianNames: Belgium's national register number named in French or Dutch, and
// Croatia's OIB named in full, are found; one whose check fails passes and is no phone number.
func TestBelgianCroatianNames(t *testing.T) {
	sc := mustScanner(t)
	r := rand.New(rand.NewPCG(9, 10))
	for i := range 24 {
		var v, name string
		if i%2 == 0 {
			v, name = genBENN(r), []string{"NISS", "INSZ", "rijksregisternummer", "numéro de registre national"}[i/2%4]
		} else {
			v, name = genOIB(r), "osobni identifikacijski broj"
		}
		text := fmt.Sprintf(schemeTemplates[i%len(schemeTemplates)], name, v)
		if !hasType(sc.ScanText(text), TypeNationalID) {
			t.Errorf("%q not found", text)
		}
		bad := fmt.Sprintf(schemeTemplates[i%len(schemeTemplates)], name, mutateCheck(v))
		if fs := sc.ScanText(bad); len(fs) > 0 {
			t.Errorf("%q still reported: %v", bad, fs)
		}
	}
}

// genBENN: YY.MM.DD-SSS.CC, CC = 97 - (YYMMDDSSS mod 97), for the 1900s.
func genBENN(r *rand.Rand) string {
	y, m, d := randDate(r, 1930, 69)
	base := fmt.Sprintf("%02d%02d%02d%03d", y%100, m, d, 1+r.IntN(997))
	var n int
	fmt.Sscan(base, &n)
	return fmt.Sprintf("%s.%s.%s-%s.%02d", base[:2], base[2:4], base[4:6], base[6:9], 97-n%97)
}

// genOIB: ten digits (the first not zero) and the ISO 7064 MOD 11,10 check digit.
func genOIB(r *rand.Rand) string {
	d := digitsOf(r, 10)
	d[0] = 1 + r.IntN(9)
	p := 10
	for _, v := range d {
		s := (v + p) % 10
		if s == 0 {
			s = 10
		}
		p = s * 2 % 11
	}
	return join(append(d, (11-p)%10))
}

func digitsOnly(v string) string {
	out := []byte{}
	for i := 0; i < len(v); i++ {
		if isDigit(v[i]) {
			out = append(out, v[i])
		}
	}
	return string(out)
}

// An EMŠO whose weighted sum leaves 1 mod 11 carries a check digit of 0, as the JMBG rule of the
// former Yugoslavia has it, and a label printed in capitals with letters beyond ASCII ("EMŠO",
// as on the Slovene identity card) names its scheme as the lower-case label does.
func TestEMSOCheckAndCapitalLabels(t *testing.T) {
	sc, _ := New(nil)
	for _, text := range []string{
		"EMŠO 0706950500280",
		"emšo: 0706950500280",
		"OSEBNA IZKAZNICA\nPriimek NOVAK Ime JANA\nEMŠO 2708981505298",
	} {
		if !hasType(sc.ScanText(text), TypeNationalID) {
			t.Errorf("%q: national id not found", text)
		}
	}
	if hasType(sc.ScanText("EMŠO 0706950500281"), TypeNationalID) {
		t.Errorf("an EMŠO failing its check was taken")
	}
	if got := upperBeyondASCII("emšo дата"); got != "emŠo ДАТА" {
		t.Errorf("upperBeyondASCII: %q", got)
	}
}
