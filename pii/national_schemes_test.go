package pii

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// Generators for the identifiers of national_schemes.go, written from the issuers' published
// rules and independently of the validators, as national_world_test.go does for its own.

func randDate(r *rand.Rand, from, span int) (y, m, d int) {
	return from + r.IntN(span), 1 + r.IntN(12), 1 + r.IntN(28)
}

// genEEIK: G YYMMDD SSS C, G = 3/4 for the 1900s, 5/6 for the 2000s.
func genEEIK(r *rand.Rand) string {
	y, m, d := randDate(r, 1930, 90)
	g := 3 + r.IntN(2)
	if y >= 2000 {
		g += 2
	}
	s := fmt.Sprintf("%d%02d%02d%02d%03d", g, y%100, m, d, r.IntN(1000))
	sum := func(w []int) int {
		t := 0
		for i, c := range s {
			t += int(c-'0') * w[i]
		}
		return t % 11
	}
	c := sum([]int{1, 2, 3, 4, 5, 6, 7, 8, 9, 1})
	if c == 10 {
		if c = sum([]int{3, 4, 5, 6, 7, 8, 9, 1, 2, 3}); c == 10 {
			c = 0
		}
	}
	return s + fmt.Sprint(c)
}

// genLVPK: DDMMYY-CNNNX, C the century (1 for the 1900s, 2 for the 2000s).
func genLVPK(r *rand.Rand) string {
	for {
		y, m, d := randDate(r, 1930, 90)
		s := fmt.Sprintf("%02d%02d%02d%d%03d", d, m, y%100, y/100-18, r.IntN(1000))
		t := 1
		for i, w := range []int{10, 5, 8, 4, 2, 1, 6, 3, 7, 9} {
			t += int(s[i]-'0') * w
		}
		return s[:6] + "-" + s[6:] + fmt.Sprint(t%11%10)
	}
}

func genILID(r *rand.Rand) string {
	d := digitsOf(r, 8)
	d[0] = r.IntN(4)
	return join(append(d, luhnDigit(d)))
}

// genZAID: YYMMDD SSSS C A Z; the serial's first digit says the sex, C is 0 or 1, A is 8.
func genZAID(r *rand.Rand) string {
	y, m, d := randDate(r, 1940, 70)
	body := fmt.Sprintf("%02d%02d%02d%04d%d8", y%100, m, d, r.IntN(10000), r.IntN(2))
	dd := make([]int, len(body))
	for i, c := range body {
		dd[i] = int(c - '0')
	}
	return body + fmt.Sprint(luhnDigit(dd))
}

// genTHPIN: N-NNNN-NNNNN-NN-N, the check digit 11 - (sum of d[i]*(13-i)) mod 11, mod 10.
func genTHPIN(r *rand.Rand) string {
	d := digitsOf(r, 12)
	d[0] = 1 + r.IntN(8)
	s := 0
	for i, v := range d {
		s += v * (13 - i)
	}
	x := join(append(d, (11-s%11)%10))
	return x[0:1] + "-" + x[1:5] + "-" + x[5:10] + "-" + x[10:12] + "-" + x[12:]
}

// genPPS: seven digits and a check letter from the weights 8..2, mod 23 (W for 0).
func genPPS(r *rand.Rand) string {
	d := digitsOf(r, 7)
	s := 0
	for i, v := range d {
		s += v * (8 - i)
	}
	return join(d) + string("WABCDEFGHIJKLMNOPQRSTUV"[s%23])
}

// mutateCheck changes the check character of v (its last digit, or its check letter).
func mutateCheck(v string) string {
	b := []byte(v)
	if last := b[len(b)-1]; isUpper(last) {
		b[len(b)-1] = 'A' + (last-'A'+1)%26
		if b[len(b)-1] == 'W' {
			b[len(b)-1] = 'X'
		}
		return string(b)
	}
	return mutate(v)
}

var schemeFamilies = []struct {
	rule  string
	gen   func(*rand.Rand) string
	names []string // what people and forms call it, in several languages
}{
	{"ee.ik", genEEIK, []string{"isikukood", "Isikukood", "isikukoodi", "Estonian isikukood"}},
	{"lv.pk", genLVPK, []string{"personas kods", "Personas kods", "personas kodu", "personas koda"}},
	{"il.idnr", genILID, []string{"Teudat Zehut", "teudat zehut no.", "תעודת זהות", "Israeli ID"}},
	{"za.idnr", func(r *rand.Rand) string { return genZAID(r) }, []string{"SA ID number", "South African ID", "RSA ID no", "SA ID"}},
	{"th.pin", genTHPIN, []string{"Thai ID", "บัตรประชาชน", "Thai national ID", "เลขประจำตัวประชาชน"}},
	{"ie.pps", genPPS, []string{"PPSN", "PPS number", "PPS No.", "personal public service number"}},
}

var schemeTemplates = []string{
	"Verified caller with %s %s before changing the address.",
	"Nach Prüfung: %s %s stimmt mit dem Ausweis überein.",
	"client gave their %s (%s) over chat, stored in the case",
	"Ověřeno: %s %s.",
	"%s: %s\n",
	"Kundens %s är %s enligt kopian.",
}

func TestSchemeIDsInProse(t *testing.T) {
	sc, _ := New(nil)
	for _, f := range schemeFamilies {
		r := rand.New(rand.NewPCG(3, uint64(len(f.rule))))
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
		}
	}
}

// A tool's result names the document beside its number; a field's label beside its value.
func TestSchemeIDsBesideTheirName(t *testing.T) {
	sc, _ := New(nil)
	for _, f := range schemeFamilies {
		r := rand.New(rand.NewPCG(5, uint64(len(f.rule))))
		for i := range 24 {
			v := f.gen(r)
			name := strings.TrimSuffix(f.names[i%2], " no.")
			shapes := []func(string) map[string]any{
				func(v string) map[string]any {
					return map[string]any{"kyc": map[string]any{"status": "pending", "document": name, "number": v, "country": "XX"}}
				},
				func(v string) map[string]any {
					return map[string]any{"field": name, "value": v, "valid": true}
				},
				func(v string) map[string]any {
					return map[string]any{"doc": map[string]any{"id_type": name, "id": v}}
				},
				func(v string) map[string]any {
					return map[string]any{"applicant": map[string]any{"id_type": name, "id_value": v}}
				},
				func(v string) map[string]any {
					return map[string]any{"document_type": name, "document_number": v}
				},
			}
			shape := shapes[i%len(shapes)]
			if fs := sc.ScanValue("p", shape(v)); !hasType(fs, TypeNationalID) {
				t.Errorf("%s: %v not found: %v", f.rule, shape(v), fs)
			}
			if fs := sc.ScanValue("p", shape(mutateCheck(v))); len(fs) > 0 {
				t.Errorf("%s: check changed, %v still reported: %v", f.rule, shape(mutateCheck(v)), fs)
			}
			// The same as a JSON text in a string, as a log line or a ticket quotes it.
			b, _ := json.Marshal(shape(mutateCheck(v)))
			if fs := sc.ScanText(string(b)); len(fs) > 0 {
				t.Errorf("%s: check changed, %s still reported: %v", f.rule, b, fs)
			}
		}
	}
}

// Written as its card prints it, a Thai, South African or Latvian number needs no name.
func TestSchemeIDsByLayout(t *testing.T) {
	sc, _ := New(nil)
	layouts := []struct {
		rule string
		gen  func(*rand.Rand) string
	}{
		{"th.pin", genTHPIN},
		{"za.idnr", func(r *rand.Rand) string {
			s := genZAID(r)
			return s[0:6] + " " + s[6:10] + " " + s[10:]
		}},
		{"lv.pk", genLVPK},
	}
	for _, l := range layouts {
		r := rand.New(rand.NewPCG(9, uint64(len(l.rule))))
		for i := range 24 {
			v := l.gen(r)
			text := []string{"The copy shows %s in the second box.", "scan ok -> %s", "Dokument: %s, gültig."}[i%3]
			if fs := sc.ScanText(fmt.Sprintf(text, v)); !hasType(fs, TypeNationalID) {
				t.Errorf("%s: %q not found: %v", l.rule, fmt.Sprintf(text, v), fs)
			}
			if fs := sc.ScanText(fmt.Sprintf(text, mutateCheck(v))); hasType(fs, TypeNationalID) {
				t.Errorf("%s: check changed, %q still reported: %v", l.rule, fmt.Sprintf(text, mutateCheck(v)), fs)
			}
		}
	}
}

func TestSchemeKnownAnswers(t *testing.T) {
	for _, c := range []struct {
		rule, v string
		ok      func([]byte) bool
	}{
		{"ee.ik", "36805280109", eeIKValid},
		{"lv.pk", "16117519997", lvPKValid},
		{"il.idnr", "039337423", ilIDValid},
		{"za.idnr", "7503305044089", zaIDValid},
		{"th.pin", "1112034563562", thPINValid},
	} {
		if !c.ok([]byte(c.v)) {
			t.Errorf("%s %s: want valid", c.rule, c.v)
		}
		if bad := mutate(c.v); c.ok([]byte(bad)) {
			t.Errorf("%s %s: mutated still valid", c.rule, bad)
		}
	}
	if !ppsValid([]byte("6433435F")) || ppsValid([]byte("6433435E")) {
		t.Error("ie.pps 6433435F: check letter not applied")
	}
}

// Latvia's codes issued since 2017 start with 32 and hold no date nor check digit: a word or a
// sibling field naming them is all that tells them from any number.
func TestLatvianCodesWithoutDate(t *testing.T) {
	sc, _ := New(nil)
	r := rand.New(rand.NewPCG(13, 17))
	for i := range 24 {
		v := fmt.Sprintf("32%04d-%05d", r.IntN(10000), r.IntN(100000))
		named := fmt.Sprintf([]string{"personas kods %s", "Personas kods: %s.", "klienta personas kodu %s pārbaudījām"}[i%3], v)
		if !hasType(sc.ScanText(named), TypeNationalID) {
			t.Errorf("%q not found", named)
		}
		if fs := sc.ScanValue("p", map[string]any{"document": "personas kods", "number": v}); !hasType(fs, TypeNationalID) {
			t.Errorf("%s beside its name not found", v)
		}
		for _, f := range sc.ScanValue("p", map[string]any{"national_id": strings.ReplaceAll(v, "-", "")}) {
			if f.Rule == "lv.pk" {
				t.Errorf("%s under a key naming no scheme: %v", v, f)
			}
		}
		if fs := sc.ScanText("Batch " + v + " shipped."); hasType(fs, TypeNationalID) {
			t.Errorf("%s with no name: %v", v, fs)
		}
	}
}
