package main

import (
	"fmt"
	"strconv"
	"strings"
)

// idScheme makes a valid identifier and, from the same body, one whose check fails.
type idScheme struct {
	name   string
	labels []string // how people label it in text, in its country's language and in English
	keys   []string // JSON keys it is sent under
	make   func(g *gen) (valid, broken string)
}

func digitStr(g *gen, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte('0' + g.r.IntN(10))
	}
	return string(b)
}

func ints(s string) []int { return digitsOf(s) }

// otherDigit returns a digit different from d.
func otherDigit(g *gen, d int) int { return (d + 1 + g.r.IntN(9)) % 10 }

var idSchemes = []idScheme{
	{"uk_nino", []string{"National Insurance number", "NI number", "NINO"}, []string{"nino", "ni_number", "national_insurance_number"},
		func(g *gen) (string, string) {
			const first, second = "ABCEGHJKLMNOPRSTWXYZ", "ABCEGHJKLMNPRSTWXYZ"
			var p string
			for {
				p = string(first[g.r.IntN(len(first))]) + string(second[g.r.IntN(len(second))])
				if !strings.Contains(" BG GB KN NK NT TN ZZ ", " "+p+" ") {
					break
				}
			}
			d := digitStr(g, 6)
			suf := string("ABCD"[g.r.IntN(4)])
			v := p + d + suf
			if g.r.IntN(2) == 0 {
				v = p + " " + d[:2] + " " + d[2:4] + " " + d[4:] + " " + suf
			}
			// No checksum: an invalid prefix is the issuing rule that fails.
			bad := string("DFIQUV"[g.r.IntN(6)]) + string(second[g.r.IntN(len(second))]) + d + suf
			return v, bad
		}},
	{"de_steuer_id", []string{"Steuer-ID", "Steueridentifikationsnummer", "steuerliche Identifikationsnummer", "tax ID"}, []string{"steuer_id", "tax_id", "steuernummer_id"},
		func(g *gen) (string, string) {
			for {
				// Ten digits, first not zero, one digit twice and the rest at most once.
				perm := g.r.Perm(10)
				if perm[0] == 0 {
					continue
				}
				d := perm[:9]
				d = append(d, d[1+g.r.IntN(8)])
				body := ""
				for _, x := range d {
					body += strconv.Itoa(x)
				}
				c := steuerIDDigit(body)
				v := body + strconv.Itoa(c)
				bad := body + strconv.Itoa(otherDigit(g, c))
				if !anyDigitCheck(bad) {
					return v, bad
				}
			}
		}},
	{"fr_nir", []string{"numéro de sécurité sociale", "NIR", "n° INSEE", "social security number"}, []string{"nir", "numero_securite_sociale", "insee"},
		func(g *gen) (string, string) {
			body := fmt.Sprintf("%d%02d%02d%02d%03d%03d", 1+g.r.IntN(2), g.r.IntN(100), 1+g.r.IntN(12), 1+g.r.IntN(95), 1+g.r.IntN(990), 1+g.r.IntN(999))
			k := nirKey(body)
			bk := (k + 1 + g.r.IntN(95)) % 97
			if bk == 0 {
				bk = 1
			}
			f := func(k int) string {
				if g.r.IntN(2) == 0 {
					return fmt.Sprintf("%s %s %s %s %s %s %02d", body[:1], body[1:3], body[3:5], body[5:7], body[7:10], body[10:], k)
				}
				return fmt.Sprintf("%s%02d", body, k)
			}
			return f(k), f(bk)
		}},
	{"it_codice_fiscale", []string{"codice fiscale", "CF", "tax code"}, []string{"codice_fiscale", "cf", "tax_code"},
		func(g *gen) (string, string) {
			const L = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
			var b strings.Builder
			for i := 0; i < 6; i++ {
				b.WriteByte(L[g.r.IntN(26)])
			}
			b.WriteString(fmt.Sprintf("%02d", g.r.IntN(100)))
			b.WriteByte("ABCDEHLMPRST"[g.r.IntN(12)])
			day := 1 + g.r.IntN(28)
			if g.r.IntN(2) == 0 {
				day += 40
			}
			b.WriteString(fmt.Sprintf("%02d", day))
			b.WriteByte("ABCDEFGHILMZ"[g.r.IntN(12)])
			b.WriteString(fmt.Sprintf("%03d", 1+g.r.IntN(999)))
			body := b.String()
			c := cfCheck(body)
			bc := byte('A' + (int(c-'A')+1+g.r.IntN(25))%26)
			return body + string(c), body + string(bc)
		}},
	{"es_dni", []string{"DNI", "documento nacional de identidad", "NIF"}, []string{"dni", "nif", "documento"},
		func(g *gen) (string, string) {
			n := g.r.IntN(100000000)
			c := dniLetters[n%23]
			bc := dniLetters[(n%23+1+g.r.IntN(22))%23]
			return fmt.Sprintf("%08d%c", n, c), fmt.Sprintf("%08d%c", n, bc)
		}},
	{"es_nie", []string{"NIE", "número de identidad de extranjero"}, []string{"nie"},
		func(g *gen) (string, string) {
			p := g.r.IntN(3)
			n := g.r.IntN(10000000)
			c := dniLetters[(p*10000000+n)%23]
			bc := dniLetters[((p*10000000+n)%23+1+g.r.IntN(22))%23]
			return fmt.Sprintf("%c%07d%c", "XYZ"[p], n, c), fmt.Sprintf("%c%07d%c", "XYZ"[p], n, bc)
		}},
	{"nl_bsn", []string{"BSN", "burgerservicenummer", "citizen service number"}, []string{"bsn", "burgerservicenummer"},
		func(g *gen) (string, string) {
			for {
				s := digitStr(g, 9)
				if s[0] == '0' {
					continue
				}
				if bsnValid(s) {
					b := s[:8] + strconv.Itoa(otherDigit(g, int(s[8]-'0')))
					if !anyDigitCheck(b) {
						return s, b
					}
				}
			}
		}},
	{"pl_pesel", []string{"PESEL", "numer PESEL"}, []string{"pesel"},
		func(g *gen) (string, string) {
			for {
				body := fmt.Sprintf("%02d%02d%02d%04d", g.r.IntN(100), 1+g.r.IntN(12)+20*g.r.IntN(2), 1+g.r.IntN(28), g.r.IntN(10000))
				c := (10 - weighted(ints(body), []int{1, 3, 7, 9, 1, 3, 7, 9, 1, 3})%10) % 10
				b := body + strconv.Itoa(otherDigit(g, c))
				if !anyDigitCheck(b) {
					return body + strconv.Itoa(c), b
				}
			}
		}},
	{"in_aadhaar", []string{"Aadhaar", "Aadhaar number", "UIDAI number", "आधार संख्या"}, []string{"aadhaar", "aadhaar_number", "uid"},
		func(g *gen) (string, string) {
			for {
				body := strconv.Itoa(2+g.r.IntN(8)) + digitStr(g, 10)
				c := verhoeffDigit(body)
				b := body + strconv.Itoa(otherDigit(g, c))
				if anyDigitCheck(b) {
					continue
				}
				f := func(s string) string {
					if g.r.IntN(2) == 0 {
						return s[:4] + " " + s[4:8] + " " + s[8:]
					}
					return s
				}
				return f(body + strconv.Itoa(c)), f(b)
			}
		}},
	{"in_pan", []string{"PAN", "PAN card", "permanent account number"}, []string{"pan", "pan_number"},
		func(g *gen) (string, string) {
			const L = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
			s := ""
			for i := 0; i < 3; i++ {
				s += string(L[g.r.IntN(26)])
			}
			s += string("PCHFATBLJG"[g.r.IntN(10)]) + string(L[g.r.IntN(26)]) + digitStr(g, 4) + string(L[g.r.IntN(26)])
			// The fourth character names the holder's kind; no kind is written with a digit.
			bad := s[:3] + strconv.Itoa(g.r.IntN(10)) + s[4:]
			return s, bad
		}},
	{"cn_ric", []string{"身份证号", "居民身份证号码", "resident identity card number", "ID card"}, []string{"id_card", "shenfenzheng", "ric"},
		func(g *gen) (string, string) {
			areas := []string{"110101", "110105", "310101", "310115", "440106", "440305", "320102", "330106", "510104", "420102"}
			body := pick(g, areas) + fmt.Sprintf("%04d%02d%02d%03d", 1950+g.r.IntN(55), 1+g.r.IntN(12), 1+g.r.IntN(28), g.r.IntN(1000))
			c := ricCheck(ints(body))
			const cs = "10X98765432"
			bc := cs[(strings.IndexByte(cs, c)+1+g.r.IntN(10))%11]
			return body + string(c), body + string(bc)
		}},
	{"jp_my_number", []string{"マイナンバー", "個人番号", "My Number", "individual number"}, []string{"my_number", "kojin_bango"},
		func(g *gen) (string, string) {
			for {
				body := digitStr(g, 11)
				c := myNumberDigit(ints(body))
				b := body + strconv.Itoa(otherDigit(g, c))
				if anyDigitCheck(b) {
					continue
				}
				f := func(s string) string {
					if g.r.IntN(2) == 0 {
						return s[:4] + " " + s[4:8] + " " + s[8:]
					}
					return s
				}
				return f(body + strconv.Itoa(c)), f(b)
			}
		}},
	{"br_cpf", []string{"CPF", "número do CPF", "Cadastro de Pessoas Físicas"}, []string{"cpf"},
		func(g *gen) (string, string) {
			for {
				body := ints(digitStr(g, 9))
				a, b := cpfDigits(body)
				s := ""
				for _, x := range body {
					s += strconv.Itoa(x)
				}
				bad := s + strconv.Itoa(a) + strconv.Itoa(otherDigit(g, b))
				if anyDigitCheck(bad) {
					continue
				}
				f := func(v string) string {
					if g.r.IntN(3) > 0 {
						return v[:3] + "." + v[3:6] + "." + v[6:9] + "-" + v[9:]
					}
					return v
				}
				return f(s + strconv.Itoa(a) + strconv.Itoa(b)), f(bad)
			}
		}},
	{"ca_sin", []string{"SIN", "social insurance number", "numéro d'assurance sociale", "NAS"}, []string{"sin", "social_insurance_number"},
		func(g *gen) (string, string) {
			for {
				body := strconv.Itoa(1+g.r.IntN(7)) + digitStr(g, 7)
				if body[0] == '8' {
					continue
				}
				c := luhnDigit(body)
				b := body + strconv.Itoa(otherDigit(g, c))
				if anyDigitCheck(b) {
					continue
				}
				f := func(s string) string {
					if g.r.IntN(2) == 0 {
						return s[:3] + " " + s[3:6] + " " + s[6:]
					}
					return s
				}
				return f(body + strconv.Itoa(c)), f(b)
			}
		}},
	{"au_tfn", []string{"TFN", "tax file number"}, []string{"tfn", "tax_file_number"},
		func(g *gen) (string, string) {
			for {
				s := digitStr(g, 9)
				if s[0] == '0' || !tfnValid(s) {
					continue
				}
				b := s[:8] + strconv.Itoa(otherDigit(g, int(s[8]-'0')))
				if anyDigitCheck(b) {
					continue
				}
				f := func(v string) string {
					if g.r.IntN(2) == 0 {
						return v[:3] + " " + v[3:6] + " " + v[6:]
					}
					return v
				}
				return f(s), f(b)
			}
		}},
}

// idTexts are sentences an agent writes around an identifier; {L} is its label, {V} the value.
var idTexts = []string{
	"{L}: {V}",
	"My {L} is {V}.",
	"Please verify the applicant's {L} {V} before onboarding.",
	"The customer gave {L} {V} on the form.",
	"Updated the payroll record ({L} {V}).",
	"For the tax return I need your {L} - I have {V} on file, is that still right?",
	"KYC check failed for {L} {V}: name mismatch.",
	"{L} of the account holder: {V}",
	"Tool input: verify_identity(document=\"{L}\", number=\"{V}\")",
	"Here is my {L} as requested: {V}",
	"Record 2291: holder's {L} = {V}",
	"Can you look up {V}? It's the {L} from the claim.",
}

func genNational(g *gen) {
	for _, s := range idSchemes {
		for i := 0; i < 48; i++ {
			v, bad := s.make(g)
			lbl := pick(g, s.labels)
			if i%4 == 3 {
				k := pick(g, s.keys)
				g.json("national_id", true, []string{"national_id"}, map[string]any{"applicant": map[string]any{k: v, "status": "pending"}})
				g.json("bad_checksum", false, nil, map[string]any{"applicant": map[string]any{k: bad, "status": "pending"}})
				continue
			}
			t := pick(g, idTexts)
			g.text("national_id", true, []string{"national_id"}, fill(t, "{L}", lbl, "{V}", v))
			t = pick(g, idTexts)
			g.text("bad_checksum", false, nil, fill(t, "{L}", lbl, "{V}", bad))
		}
	}
}

// fill replaces each placeholder with its value.
func fill(t string, kv ...string) string {
	return strings.NewReplacer(kv...).Replace(t)
}
