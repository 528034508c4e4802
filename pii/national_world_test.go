package pii

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// The generators below build valid identifiers from the issuers' published rules, written
// independently of the validators (check digits by their textbook formulas), so that the tests
// check the scanner against the rules rather than against itself. Known-answer vectors from
// python-stdnum are in testdata/stdnum_world.jsonl.

func digitsOf(r *rand.Rand, n int) []int {
	d := make([]int, n)
	for i := range d {
		d[i] = r.IntN(10)
	}
	return d
}

func join(d []int) string {
	var b strings.Builder
	for _, v := range d {
		b.WriteByte(byte('0' + v))
	}
	return b.String()
}

func genAadhaar(r *rand.Rand) string {
	// Verhoeff: find the check digit c for which the whole number checks to zero.
	d := digitsOf(r, 11)
	d[0] = 2 + r.IntN(8)
	for c := 0; c < 10; c++ {
		if verhoeffRef(append(append([]int{}, d...), c)) {
			return join(append(d, c))
		}
	}
	panic("no verhoeff digit")
}

// verhoeffRef is the Verhoeff check written from its definition: multiplication in D5 and
// the permutation (1 5 7 6 2 8 3 0 9 4) applied i times at position i from the right.
func verhoeffRef(d []int) bool {
	mul := func(a, b int) int {
		// D5 elements 0-4 are rotations, 5-9 reflections.
		switch {
		case a < 5 && b < 5:
			return (a + b) % 5
		case a < 5:
			return 5 + (a+b-5)%5
		case b < 5:
			return 5 + (a-5-b+5)%5
		}
		return (a - b + 5) % 5
	}
	perm := [10]int{1, 5, 7, 6, 2, 8, 3, 0, 9, 4}
	c := 0
	for i := range d {
		v := d[len(d)-1-i]
		for range i % 8 {
			v = perm[v]
		}
		c = mul(c, v)
	}
	return c == 0
}

func genMyNumber(r *rand.Rand) string {
	d := digitsOf(r, 11)
	sum := 0
	for n := 1; n <= 11; n++ {
		q := n + 1
		if n > 6 {
			q = n - 5
		}
		sum += d[11-n] * q
	}
	c := 11 - sum%11
	if sum%11 <= 1 {
		c = 0
	}
	return join(append(d, c))
}

func brCheck(d []int, top int) int {
	s := 0
	for i, v := range d {
		s += v * (top - i)
	}
	if c := 11 - s%11; c < 10 {
		return c
	}
	return 0
}

func genCPF(r *rand.Rand) string {
	d := digitsOf(r, 9)
	d = append(d, brCheck(d, 10))
	d = append(d, brCheck(d, 11))
	s := join(d)
	return s[0:3] + "." + s[3:6] + "." + s[6:9] + "-" + s[9:]
}

func genCNPJ(r *rand.Rand) string {
	d := append(digitsOf(r, 8), 0, 0, 0, 1)
	w := func(d []int, ws []int) int {
		s := 0
		for i, v := range d {
			s += v * ws[i]
		}
		if c := 11 - s%11; c < 10 {
			return c
		}
		return 0
	}
	d = append(d, w(d, []int{5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2}))
	d = append(d, w(d, []int{6, 5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2}))
	s := join(d)
	return s[0:2] + "." + s[2:5] + "." + s[5:8] + "/" + s[8:12] + "-" + s[12:]
}

func luhnDigit(d []int) int {
	s := 0
	for i := range d {
		v := d[len(d)-1-i]
		if i%2 == 0 {
			v *= 2
			if v > 9 {
				v -= 9
			}
		}
		s += v
	}
	return (10 - s%10) % 10
}

func genSIN(r *rand.Rand) string {
	d := digitsOf(r, 8)
	d[0] = []int{1, 2, 3, 4, 5, 6, 7, 9}[r.IntN(8)]
	s := join(append(d, luhnDigit(d)))
	return s[0:3] + " " + s[3:6] + " " + s[6:]
}

func genTFN(r *rand.Rand) string {
	w := []int{1, 4, 3, 7, 5, 8, 6, 9, 10}
	for {
		d := digitsOf(r, 9)
		s := 0
		for i, v := range d {
			s += v * w[i]
		}
		if s%11 == 0 {
			t := join(d)
			return t[0:3] + " " + t[3:6] + " " + t[6:]
		}
	}
}

func genMedicare(r *rand.Rand) string {
	d := digitsOf(r, 8)
	d[0] = 2 + r.IntN(5)
	s := 0
	for i, v := range d {
		s += v * []int{1, 3, 7, 9, 1, 3, 7, 9}[i]
	}
	t := join(append(d, s%10, 1+r.IntN(9)))
	return t[0:4] + " " + t[4:9] + " " + t[9:]
}

func genRIC(r *rand.Rand) string {
	prov := []string{"11", "31", "44", "51", "65"}[r.IntN(5)]
	body := fmt.Sprintf("%s%04d%04d%02d%02d%03d", prov, r.IntN(10000), 1950+r.IntN(60), 1+r.IntN(12), 1+r.IntN(28), r.IntN(1000))
	sum := 0
	for i := 0; i < 17; i++ {
		w := 1
		for range 17 - i {
			w = w * 2 % 11
		}
		sum += int(body[i]-'0') * w
	}
	return body + string("10X98765432"[sum%11])
}

func genPAN(r *rand.Rand) string {
	l := func() byte { return byte('A' + r.IntN(26)) }
	return string([]byte{l(), l(), l(), 'P', l()}) + fmt.Sprintf("%04d", r.IntN(10000)) + string(l())
}

func genNINO(r *rand.Rand) string {
	const first, second = "ABCEGHJKLMNOPRSTWXYZ", "ABCEGHJKLMNPRSTWXYZ"
	for {
		p := string([]byte{first[r.IntN(len(first))], second[r.IntN(len(second))]})
		switch p {
		case "BG", "GB", "KN", "NK", "NT", "TN", "ZZ":
			continue
		}
		return fmt.Sprintf("%s %02d %02d %02d %c", p, r.IntN(100), r.IntN(100), r.IntN(100), "ABCD"[r.IntN(4)])
	}
}

// mutate changes the last digit of v.
func mutate(v string) string {
	b := []byte(v)
	for i := len(b) - 1; i >= 0; i-- {
		if isDigit(b[i]) {
			b[i] = '0' + (b[i]-'0'+1)%10
			break
		}
	}
	return string(b)
}

var worldFamilies = []struct {
	name string
	gen  func(*rand.Rand) string
	cues []string
	typ  Type
}{
	{"in.aadhaar", func(r *rand.Rand) string {
		s := genAadhaar(r)
		return s[0:4] + " " + s[4:8] + " " + s[8:]
	}, []string{"Aadhaar", "Aadhaar number", "my aadhar no."}, TypeNationalID},
	{"jp.mynumber", genMyNumber, []string{"My Number", "個人番号", "individual number"}, TypeNationalID},
	{"br.cpf", genCPF, []string{"CPF", "meu CPF é", "CPF nº"}, TypeNationalID},
	{"br.cnpj", genCNPJ, []string{"CNPJ", "CNPJ da empresa"}, TypeNationalID},
	{"ca.sin", genSIN, []string{"SIN", "social insurance number", "SIN:"}, TypeNationalID},
	{"au.tfn", genTFN, []string{"TFN", "tax file number", "TFN:"}, TypeNationalID},
	{"au.medicare", genMedicare, []string{"Medicare", "Medicare card number", "medicare no"}, TypeNationalID},
	{"cn.ric", genRIC, []string{"身份证号", "resident ID", "ID number"}, TypeNationalID},
	{"in.pan", genPAN, []string{"PAN", "PAN:", "permanent account number"}, TypeNationalID},
	{"gb.nino", genNINO, []string{"NI number", "National Insurance number", "NINO"}, TypeNINO},
}

func TestWorldIDsInContext(t *testing.T) {
	sc, _ := New(nil)
	templates := []string{"%s %s", "Her %s is %s, please update the file.", "%s: %s\n", "Record — %s %s (verified)"}
	for _, f := range worldFamilies {
		r := rand.New(rand.NewPCG(7, uint64(len(f.name))))
		for i := range 24 {
			v := f.gen(r)
			text := fmt.Sprintf(templates[i%len(templates)], f.cues[i%len(f.cues)], v)
			if !hasType(sc.ScanText(text), f.typ) {
				t.Errorf("%s: %q not found as %v", f.name, text, f.typ)
			}
			if f.name == "gb.nino" || f.name == "in.pan" {
				continue // no check character
			}
			bad := mutate(v)
			if f.name == "au.medicare" {
				bad = mutate(v[:11]) + v[11:] // the check digit, not the issue number
			}
			if fs := sc.ScanText(fmt.Sprintf(templates[i%len(templates)], f.cues[i%len(f.cues)], bad)); len(fs) > 0 {
				t.Errorf("%s: check digit changed %q still reported: %v", f.name, bad, fs)
			}
		}
	}
}

// Written as printed on a card or form, these need no context word.
func TestWorldIDsByFormat(t *testing.T) {
	sc, _ := New(nil)
	for _, f := range []struct {
		name string
		gen  func(*rand.Rand) string
	}{{"br.cpf", genCPF}, {"br.cnpj", genCNPJ}, {"cn.ric", genRIC}, {"au.medicare", genMedicare}, {"in.pan", genPAN}} {
		r := rand.New(rand.NewPCG(11, uint64(len(f.name))))
		for range 20 {
			text := "The form shows " + f.gen(r) + " in the second box."
			if !hasType(sc.ScanText(text), TypeNationalID) {
				t.Errorf("%s: %q not found", f.name, text)
			}
		}
	}
}

func TestWorldKnownAnswers(t *testing.T) {
	for _, c := range []struct {
		rule, v string
		ok      func([]byte) bool
	}{
		{"in.aadhaar", "234123412346", aadhaarValid},
		{"cn.ric", "11010519491231002X", ricValid},
		{"br.cpf", "52998224725", cpfValid},
		{"br.cnpj", "11222333000181", cnpjValid},
		{"jp.mynumber", "123456789018", myNumberValid},
		{"au.tfn", "123456782", tfnValid},
		{"au.medicare", "2123456701", medicareValid},
		{"ca.sin", "130692544", sinValid},
		{"de.idcard", "T220001293", idCardDEValid},
	} {
		if !c.ok([]byte(c.v)) {
			t.Errorf("%s %s: want valid", c.rule, c.v)
		}
		bad := mutate(c.v)
		if c.rule == "au.medicare" {
			bad = mutate(c.v[:9]) + c.v[9:] // the ninth digit is the check digit
		}
		if c.ok([]byte(bad)) {
			t.Errorf("%s %s: mutated still valid", c.rule, bad)
		}
	}
	sc, _ := New(nil)
	for _, r := range readJSONL[stdnumRow](t, "stdnum_world.jsonl") {
		got := false
		for _, f := range sc.ScanValue("p", map[string]any{"national_id": r.Text}) {
			got = got || f.Type == TypeNationalID && f.Rule == r.Module
		}
		if got != r.ExpectValid {
			t.Errorf("%s %q: found %v, want %v", r.Module, r.Text, got, r.ExpectValid)
		}
	}
}

func hasType(fs []Finding, t Type) bool {
	for _, f := range fs {
		if f.Type == t {
			return true
		}
	}
	return false
}

// Every identifier name is a national id cue too: namedIDBefore runs only after one.
func TestNamedIDsAreCues(t *testing.T) {
	for _, c := range namedIDs {
		if !hasCue(c.cue+"1", 0, len(c.cue)+1, nationalCues) {
			t.Errorf("%q is not in nationalCues", c.cue)
		}
	}
}
