package pii

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/moltgate/moltgate/wire"
)

// genUnknownName makes a given name and a surname from syllables, so that neither is on a list.
func genUnknownName(r *rand.Rand) string {
	syl := []string{"ka", "ri", "mo", "ze", "lu", "ta", "vo", "ni", "še", "dė", "ga", "ro", "bel", "tan"}
	word := func(n int) string {
		var b strings.Builder
		for i := 0; i < n; i++ {
			b.WriteString(syl[r.IntN(len(syl))])
		}
		w := []rune(b.String())
		return strings.ToUpper(string(w[:1])) + string(w[1:])
	}
	return word(2+r.IntN(2)) + " " + word(3)
}

// TestSignOffNames: a pair under a sign-off line, in the languages the gate sees, is a person's
// name even when the lists know neither word; a team's or a department's signature is not.
func TestSignOffNames(t *testing.T) {
	sc := mustScanner(t)
	r := rand.New(rand.NewPCG(21, 22))
	offs := []string{"Cheers,", "Best regards,", "S pozdravem,", "Med vänlig hälsning,", "Saygılarımla,", "Cumprimentos,",
		"Met vriendelijke groeten,", "Pozdrawiam,", "Terveisin,", "Cordialement,"}
	for k := 0; k < 30; k++ {
		off := offs[r.IntN(len(offs))]
		s := fmt.Sprintf("See the attached quote.\n\n%s\n%s\n%s", off, genUnknownName(r), []string{"Procurement", "Legal Ops", ""}[r.IntN(3)])
		if !hasType(sc.ScanText(s), TypeName) {
			t.Errorf("%q: no name", s)
		}
		neg := fmt.Sprintf("Your ticket has been closed.\n\n%s\n%s\n%s", off,
			[]string{"Kundservice", "Zákaznická podpora", "Customer Care", "The Billing Team", "Asiakaspalvelu"}[r.IntN(5)],
			[]string{"Nordlys AB", "Kovo Praha a.s.", "Atlas Logistics Oy", "Szabó és Társa Kft."}[r.IntN(4)])
		if fs := sc.ScanText(neg); hasType(fs, TypeName) {
			t.Errorf("%q: a name: %v", neg, fs)
		}
	}
}

// TestRoleKeyNames: a person under a key that names a role in a workflow (approved_by,
// reviewer, organizer...) is a name, in Latin, Cyrillic, Greek or Han script; a team or a bot
// under the same keys is not.
func TestRoleKeyNames(t *testing.T) {
	sc := mustScanner(t)
	r := rand.New(rand.NewPCG(23, 24))
	keys := []string{"approved_by", "reviewer", "requested_by", "organizer", "assignedTo", "supervisor"}
	other := []string{"Ювеналий Прохоров", "Διδώ Γουργουλής", "江淑芬", "Богдан Нестеренко"}
	scan := func(k, v string) []Finding {
		p, err := wire.Parse([]byte(fmt.Sprintf(`{"request":{"id":"AR-%d",%q:%q}}`, r.IntN(9999), k, v)), 0)
		if err != nil {
			t.Fatal(err)
		}
		return sc.ScanTree("", p, nil)
	}
	for k := 0; k < 30; k++ {
		key := keys[r.IntN(len(keys))]
		v := genUnknownName(r)
		if k%3 == 0 {
			v = other[r.IntN(len(other))]
		}
		if !hasType(scan(key, v), TypeName) {
			t.Errorf("%s: %q: no name", key, v)
		}
		neg := []string{"Finance Team", "unassigned", "@platform-oncall", "Procurement Bot", "Legal Ops", "N/A"}[r.IntN(6)]
		if fs := scan(key, neg); hasType(fs, TypeName) {
			t.Errorf("%s: %q: a name: %v", key, neg, fs)
		}
	}
}

// TestBrandsAndFirms: a person's name that a product noun follows is a brand's, and one that a
// legal form of Central or Northern Europe ends is a firm's.
func TestBrandsAndFirms(t *testing.T) {
	sc := mustScanner(t)
	r := rand.New(rand.NewPCG(25, 26))
	for k := 0; k < 30; k++ {
		s := []string{
			fmt.Sprintf("Return label for the %s %s, order total %d EUR.", []string{"Tommy Hilfiger", "Hugo Boss", "Calvin Klein", "Ralph Lauren"}[r.IntN(4)],
				[]string{"jacket", "belt", "shirt", "cap", "handbag", "sneakers"}[r.IntN(6)], r.IntN(400)+20),
			fmt.Sprintf("The Louis Vuitton %s moved to the old town.", []string{"pop-up", "boutique", "flagship"}[r.IntN(3)]),
			fmt.Sprintf("<Cdtr><Nm>%s %s</Nm></Cdtr>", []string{"Nagy Horváth", "Kowalski Nowak", "Holmberg Nieminen", "Novák Dvořák"}[r.IntN(4)],
				[]string{"Kft.", "Oyj", "a.s.", "s.r.o.", "d.o.o.", "Zrt."}[r.IntN(6)]),
		}[r.IntN(3)]
		if fs := sc.ScanText(s); hasType(fs, TypeName) {
			t.Errorf("%q: a name: %v", s, fs)
		}
	}
}
