package pii

import "strings"

// Parties to a contract. Leases, loans and contracts of employment name each party once and
// give it the role by which the rest of the text refers to it: in brackets after the name
// ("Oisín McNamara (the Tenant)", `Lwazi Nkosi ("the Lessee")`, "Marie Côté (le locataire)",
// "Erik Berg (hyresgäst)") or after a comma and a word for "hereinafter" ("Jan de Vries, hierna
// huurder", "Panem Adam Nowak, zwanym dalej Najemcą"). Where the role is one that only people
// hold (a tenant, a borrower, an employee, a guarantor), the capitalised pair before it is a
// person's name whether a list knows it or not. Roles that firms hold as often (the landlord,
// the seller, the employer) say nothing, and a firm's pair is left to the firm rules.

// partyRoles are contract roles held by natural persons, in the languages the gate sees most.
var partyRoles = toSet(`tenant tenants lessee lessees borrower borrowers guarantor guarantors employee
licensee occupant occupier resident student pupil patient beneficiary insured policyholder subtenant
locataire locataires preneur emprunteur emprunteuse garant garante salarié salariée employé employée
huurder huurders onderhuurder lener borg werknemer mieter mieterin untermieter darlehensnehmer bürge arbeitnehmer
hyresgäst låntagare borgensman arbetstagare lejer låntager leietaker låntaker arbeidstaker vuokralainen
lainanottaja takaaja työntekijä nájemce nájemkyně dlužník ručitel zaměstnanec najemca najemcą najemcy
pożyczkobiorca poręczyciel pracownik kiracı borçlu kefil socher sochert umuupa nangungupahan inquilino
inquilina arrendatario arrendataria prestatario fiador empleado conduttore mutuatario garante dipendente
locatário locatária mutuário fiadora empregado penyewa peminjam penjamin pekerja`)

// partyArticles may stand before the role: "(the Tenant)", "(le locataire)", "(ha-socher)".
var partyArticles = toSet(`the le la les de het der die el los las il lo o a os as ang ha-`)

// partyAfter reports whether the capitalised pair that ends at e is followed by a role that
// only people hold in a contract, in brackets or after "hereinafter".
func partyAfter(s string, e int) bool {
	if e+4 >= len(s) {
		return false
	}
	lim := min(len(s), e+48)
	var rest string
	switch {
	case s[e] == ' ' && s[e+1] == '(':
		c := strings.IndexByte(s[e+2:lim], ')')
		if c <= 0 {
			return false
		}
		rest = s[e+2 : e+2+c]
	case s[e] == ',' && s[e+1] == ' ':
		rest = s[e+2 : lim]
		cut := false
		for _, h := range partyHereinafter {
			if hasFoldPrefix(rest, h) {
				rest, cut = rest[len(h):], true
				break
			}
		}
		if !cut {
			return false
		}
	default:
		return false
	}
	rest = strings.TrimLeft(rest, ` "'“‘«`)
	for n := 0; n < 3 && rest != ""; n++ {
		for _, el := range []string{"l'", "l’", "L'", "L’"} {
			rest = strings.TrimPrefix(rest, el) // "l'emprunteur"
		}
		w := rest
		if k := strings.IndexAny(rest, ` "'”’»,.)`); k >= 0 {
			w = rest[:k]
		}
		lw := strings.ToLower(w)
		if strings.HasPrefix(lw, "ha-") && len(lw) > 3 {
			lw = lw[3:] // Hebrew's article is written onto the word: "ha-socher"
		}
		switch {
		case partyRoles.has(lw):
			return true
		case partyArticles.has(lw), lw == "referred", lw == "to", lw == "as", lw == "called":
			rest = strings.TrimLeft(rest[len(w):], ` "'“‘«`)
			continue
		}
		return false
	}
	return false
}

// partyHereinafter are the words for "hereinafter" that follow a party's name and a comma.
var partyHereinafter = []string{"hereinafter ", "hereafter ", "hierna ", "hierna te noemen ", "ci-après ",
	"ci-apres ", "zwanym dalej ", "zwaną dalej ", "zwanymi dalej ", "nedan kallad ", "nedan ", "im folgenden ",
	"nachfolgend ", "en lo sucesivo ", "in seguito ", "doravante ", "selanjutnya disebut ", "dále jen ",
	"jäljempänä ", "heretter ", "herefter "}
