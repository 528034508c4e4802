package pii

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/moltgate/moltgate/wire"
)

func randDigits(r *rand.Rand, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte('0' + r.IntN(10))
	}
	return string(b)
}

// splitGroups cuts v into groups of lo to hi bytes, the last of two or more.
func splitGroups(r *rand.Rand, v string, lo, hi int) []string {
	var g []string
	for len(v) > 0 {
		n := min(lo+r.IntN(hi-lo+1), len(v))
		if len(v)-n < 2 {
			n = len(v)
		}
		g, v = append(g, v[:n]), v[n:]
	}
	return g
}

// mobile returns a country code and a mobile number of its plan.
func mobile(r *rand.Rand) (string, string) {
	switch r.IntN(5) {
	case 0:
		return "+62", "8" + []string{"11", "12", "13", "21", "52", "53", "57", "77"}[r.IntN(8)] + randDigits(r, 8)
	case 1:
		return "+234", []string{"803", "805", "806", "813", "816"}[r.IntN(5)] + randDigits(r, 7)
	case 2:
		return "+92", "3" + []string{"00", "01", "11", "21", "33", "45"}[r.IntN(6)] + randDigits(r, 7)
	case 3:
		return "+55", []string{"11", "21", "31", "41"}[r.IntN(4)] + "9" + string("6789"[r.IntN(4)]) + randDigits(r, 7)
	}
	return "+46", "7" + string("0236"[r.IntN(4)]) + randDigits(r, 7)
}

// TestGroupsBesidePieces: a number whose groups are an array's items beside the number's other
// pieces (a country code, an IBAN's country and check digits) is found on every piece and every
// group, the same by ScanJSON, ScanTree and ScanValue, and MaskTree hides every group; a mailbox
// split into user and domain members named in another language is found on both.
func TestGroupsBesidePieces(t *testing.T) {
	sc := mustScanner(t)
	r := rand.New(rand.NewPCG(44, 4))
	type form struct {
		name string
		typ  Type
		make func() (any, []string)
	}
	forms := []form{
		{"phone-cc-array", TypePhone, func() (any, []string) {
			cc, n := mobile(r)
			var g []string
			for _, k := range [][]int{{3, 3}, {3, 4}, {2, 4}, {4, 3}}[r.IntN(4)] {
				g, n = append(g, n[:k]), n[k:]
			}
			g = append(g, n)
			arr := make([]any, len(g))
			for i := range g {
				arr[i] = g[i]
			}
			ck := []string{"cc", "country_code", "dial_code", "countryCode"}[r.IntN(4)]
			rk := []string{"rest", "digits", "groups", "valor", "number"}[r.IntN(5)]
			outer := []string{"phone", "contact", "whatsapp", "mobile"}[r.IntN(4)]
			return map[string]any{outer: map[string]any{ck: cc, rk: arr}}, append([]string{cc}, g...)
		}},
		{"iban-check-bban-array", TypeIBAN, func() (any, []string) {
			cc := []string{"DE", "FR", "ES", "NL", "IT", "GB"}[r.IntN(6)]
			v := ibanWith(r, cc, ibanBBAN(r, cc), true)
			g := splitGroups(r, v[4:], 4, 8)
			arr := make([]any, len(g))
			for i := range g {
				arr[i] = g[i]
			}
			return map[string]any{"iban": map[string]any{"country": v[:2], "check": v[2:4], "bban": arr}}, append([]string{v[:2], v[2:4]}, g...)
		}},
		{"mailbox-words", TypeEmail, func() (any, []string) {
			k := [][2]string{{"usuario", "dominio"}, {"usuário", "domínio"}, {"utente", "dominio"}, {"utilisateur", "domaine"},
				{"utilizator", "domeniu"}, {"pengguna", "domain"}, {"felhasználó", "tartomány"}, {"benutzer", "domain"},
				{"gebruiker", "domein"}, {"kullanıcı", "alan_adi"}}[r.IntN(10)]
			l := []string{"lmoreira56", "marcela.pires", "a.popescu", "dewi_k", "kovacs.anna", "t.yilmaz"}[r.IntN(6)] + randDigits(r, 2)
			d := []string{"uol.com.br", "libero.it", "yahoo.ro", "telkom.net", "freemail.hu", "example.com.tr"}[r.IntN(6)]
			return map[string]any{"contato": map[string]any{k[0]: l, k[1]: d, "ativo": true}}, []string{l, d}
		}},
	}
	for _, f := range forms {
		for i := 0; i < 30; i++ {
			payload, pieces := f.make()
			data, _ := json.Marshal(payload)
			fs, err := sc.ScanJSON("p", data)
			if err != nil {
				t.Fatal(err)
			}
			paths := map[string]bool{}
			for _, x := range fs {
				if x.Type == f.typ && x.Via == Via(StageJoined) {
					paths[x.Path] = true
				}
			}
			if len(paths) != len(pieces) {
				t.Errorf("%s: %s: %d joined paths, want %d: %v", f.name, data, len(paths), len(pieces), fs)
			}
			v, err := wire.Parse(data, 0)
			if err != nil {
				t.Fatal(err)
			}
			if tree := sc.ScanTree("p", v, nil); fmt.Sprint(tree) != fmt.Sprint(fs) {
				t.Errorf("%s: ScanTree %v\nScanJSON %v", f.name, tree, fs)
			}
			var dec any
			if err := json.Unmarshal(data, &dec); err != nil {
				t.Fatal(err)
			}
			if !hasType(sc.ScanValue("p", dec), f.typ) {
				t.Errorf("%s: ScanValue finds no %v in %s", f.name, f.typ, data)
			}
			masked, err := sc.MaskTree("p", v, nil).MarshalJSON()
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range pieces {
				if len(p) > 2 && strings.Contains(string(masked), `"`+p+`"`) {
					t.Errorf("%s: MaskTree leaves the piece %q: %s", f.name, p, masked)
				}
			}
		}
	}
}

// TestGroupsBesidePiecesNegatives: arrays of short groups beside other members (versions, dates,
// coordinates, SKUs, a country code beside numbers no plan has, an IBAN's pieces that fail
// mod 97) hold no split number.
func TestGroupsBesidePiecesNegatives(t *testing.T) {
	sc := mustScanner(t)
	r := rand.New(rand.NewPCG(45, 5))
	for i := 0; i < 40; i++ {
		cc := []string{"DE", "FR", "ES", "IT"}[r.IntN(4)]
		bad := ibanWith(r, cc, ibanBBAN(r, cc), false)
		for _, js := range []string{
			fmt.Sprintf(`{"release":{"name":"v%d","version":["%d","%d","%d"],"build":"%d"}}`, r.IntN(9), r.IntN(9), r.IntN(40), r.IntN(100), r.IntN(9999)),
			fmt.Sprintf(`{"event":{"date":["%d","%02d","%02d"],"time":["%02d","%02d"],"room":"B%d"}}`, 2020+r.IntN(7), 1+r.IntN(12), 1+r.IntN(28), r.IntN(24), r.IntN(60), r.IntN(400)),
			fmt.Sprintf(`{"sku":{"family":"AB%d","parts":["%s","%s"],"size":"XL"}}`, r.IntN(99), randDigits(r, 4), randDigits(r, 3)),
			fmt.Sprintf(`{"contact":{"cc":"+46","rest":["000","%s"]}}`, randDigits(r, 3)),
			fmt.Sprintf(`{"stats":{"cc":"+1","counts":["%d","%d","%d"]}}`, r.IntN(1000), r.IntN(1000), r.IntN(1000)),
			fmt.Sprintf(`{"iban":{"country":%q,"check":%q,"bban":[%q,%q,%q]}}`, bad[:2], bad[2:4], bad[4:10], bad[10:16], bad[16:]),
			fmt.Sprintf(`{"geo":{"lat":"%d.%d","lon":["%d","%d"]}}`, r.IntN(90), r.IntN(9999), r.IntN(180), r.IntN(9999)),
		} {
			fs, err := sc.ScanJSON("p", []byte(js))
			if err != nil {
				t.Fatal(err)
			}
			if len(fs) > 0 {
				t.Errorf("%s: %v", js, fs)
			}
		}
	}
}

// TestRegionalCardNetworks: Mir (2200-2204, 16 to 19 digits) and Troy (9792, 16 digits) card
// numbers are cards when they pass Luhn, and pass when they fail it.
func TestRegionalCardNetworks(t *testing.T) {
	sc := mustScanner(t)
	r := rand.New(rand.NewPCG(46, 6))
	for i := 0; i < 40; i++ {
		var d []byte
		if i%2 == 0 {
			d = []byte(fmt.Sprintf("220%d", r.IntN(5)))
			for n := 16 + r.IntN(4); len(d) < n-1; {
				d = append(d, byte('0'+r.IntN(10)))
			}
		} else {
			d = []byte("9792")
			for len(d) < 15 {
				d = append(d, byte('0'+r.IntN(10)))
			}
		}
		good := string(append(d, cardCheckDigit(d)))
		badc := good[:len(good)-1] + string('0'+(good[len(good)-1]-'0'+1+byte(r.IntN(9)))%10)
		text := []string{"Pagamento com cartão %s aprovado.", "card: %s", "Kart numarası %s, son kullanma 09/29."}[r.IntN(3)]
		for _, v := range []string{good, groupsOfFour(good)} {
			if !hasType(sc.ScanText(fmt.Sprintf(text, v)), TypeCard) {
				t.Errorf("%q: no card", fmt.Sprintf(text, v))
			}
		}
		if fs := sc.ScanText(fmt.Sprintf(text, groupsOfFour(badc))); hasType(fs, TypeCard) {
			t.Errorf("%q: a card that fails Luhn: %v", fmt.Sprintf(text, groupsOfFour(badc)), fs)
		}
	}
}
