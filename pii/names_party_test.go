package pii

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// TestContractParties: a made-up name that no list holds is a person's when a contract gives it
// a role only people hold, in brackets or after "hereinafter", in the languages of leases and
// loans; firms with roles that firms hold too, and documents "named in" a schedule, are none.
func TestContractParties(t *testing.T) {
	sc := mustScanner(t)
	r := rand.New(rand.NewPCG(31, 5))
	frames := []string{
		"This Tenancy Agreement is made between Dublin Lettings Ltd (the Landlord) and %s (the Tenant) for the premises below.",
		`LEASE AGREEMENT entered into by and between Cape Rentals (Pty) Ltd and %s ("the Lessee").`,
		"BAIL DE LOGEMENT entre Gestion Laval inc. (le locateur) et %s (le locataire), signé à Montréal.",
		"HYRESAVTAL mellan Bostadsbolaget Väst AB och %s (hyresgäst) avseende lägenhet nr 1204.",
		"De ondergetekenden: Stichting Woonzorg, hierna verhuurder, en %s, hierna huurder, verklaren het volgende.",
		"UMOWA NAJMU zawarta pomiędzy Spółdzielnią Ursynów a %s, zwanym dalej Najemcą.",
		"Loan agreement between Northbank plc and %s (the Borrower), with %s (the Guarantor).",
		"Contrat de prêt: %s, ci-après l'emprunteur, reconnaît avoir reçu la somme.",
		"Heskem sechirut bein Azorim Ltd. u-bein %s (ha-socher).",
		"Mietvertrag zwischen der Wohnbau GmbH und %s (Mieter).",
	}
	for k := 0; k < 40; k++ {
		first, last := madeUpName(r)
		name := first + " " + last
		f := frames[r.IntN(len(frames))]
		g1, g2 := madeUpName(r)
		text := fmt.Sprintf(f, name)
		if f == frames[6] {
			text = fmt.Sprintf(f, name, g1+" "+g2)
		}
		if !hasType(sc.ScanText(text), TypeName) {
			t.Errorf("%q: no name", text)
		}
	}
	for k := 0; k < 30; k++ {
		n := r.IntN(9) + 1
		text := fmt.Sprintf([]string{
			"This Tenancy Agreement is made between Cork Homes DAC (the Landlord) and the Tenant named in Schedule %d.",
			"The persons named on the policy schedule %d are covered.",
			"Sale agreement between Riverside Homes (the Seller) and the Buyer named in Annex %d.",
			"Contract %d between Acme Logistics (the Employer) and the employee named in the offer letter.",
			"Lease %d: Harbour Estates (the Lessor); the Lessee is named of record in the register.",
		}[r.IntN(5)], n)
		if fs := sc.ScanText(text); hasType(fs, TypeName) {
			t.Errorf("%q: a name: %v", text, fs)
		}
	}
}
