package pii

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// phoneShaped returns a number written like a North American or British phone number.
func phoneShaped(r *rand.Rand) string {
	switch r.IntN(4) {
	case 0:
		return fmt.Sprintf("%d%02d-%d%02d-%04d", 2+r.IntN(8), r.IntN(100), 2+r.IntN(8), r.IntN(100), r.IntN(10000))
	case 1:
		return fmt.Sprintf("(%d%02d) %d%02d-%04d", 2+r.IntN(8), r.IntN(100), 2+r.IntN(8), r.IntN(100), r.IntN(10000))
	case 2:
		return fmt.Sprintf("%09d", r.IntN(1e9))
	}
	return fmt.Sprintf("020 %04d %04d", r.IntN(10000), r.IntN(10000))
}

func TestLabelledNumbersAreNotPhones(t *testing.T) {
	sc, _ := New(nil)
	labels := []string{"Order", "order number", "SKU", "Invoice #", "tracking no.", "Build", "version",
		"ticket", "PO", "part no", "serial number", "model", "ref", "Ref:", "case ID", "shipment",
		"ISBN", "batch", "RMA", "confirmation number"}
	r := rand.New(rand.NewPCG(3, 4))
	for i := range 80 {
		text := fmt.Sprintf("Please check %s %s before Friday.", labels[i%len(labels)], phoneShaped(r))
		if fs := sc.ScanText(text); len(fs) > 0 {
			t.Errorf("%q: %v", text, fs)
		}
	}
	keys := []string{"order_id", "invoice_number", "tracking_number", "sku", "build", "shipment_ref"}
	foreign := []string{"Bestellnummer", "Rechnungsnummer:", "número de pedido", "Numéro de commande :", "Your order number is"}
	for i := range 30 {
		v := phoneShaped(r)
		if fs := sc.ScanValue("p", map[string]any{"item": map[string]any{keys[i%len(keys)]: v, "qty": 3}}); len(fs) > 0 {
			t.Errorf("%s=%q: %v", keys[i%len(keys)], v, fs)
		}
		text := foreign[i%len(foreign)] + " " + v
		if i%3 == 0 {
			text = fmt.Sprintf("%s %d-%06d", foreign[i%len(foreign)], 2020+i%7, r.IntN(1e6))
		}
		if fs := sc.ScanText(text); len(fs) > 0 {
			t.Errorf("%q: %v", text, fs)
		}
	}
	// The same numbers after a phone cue are phone numbers.
	for i := range 20 {
		v := fmt.Sprintf("(%d%02d) %d%02d-%04d", 2+r.IntN(7), r.IntN(100), 2+r.IntN(7), r.IntN(100), r.IntN(10000))
		text := "Call me on " + v + " after six."
		if !hasType(sc.ScanText(text), TypePhone) {
			t.Errorf("%q: phone not found", text)
		}
		_ = i
	}
}

func TestGitRemoteIsNotEmail(t *testing.T) {
	sc, _ := New(nil)
	users := []string{"git", "deploy", "ec2-user", "hg", "ubuntu"}
	hosts := []string{"github.com", "gitlab.example.org", "bitbucket.org", "git.internal.acme.io"}
	paths := []string{"moltgate/moltgate.git", "team/repo", "~/app", "/srv/www/site", "org/sub-project.git"}
	for i := range 25 {
		text := fmt.Sprintf("git clone %s@%s:%s", users[i%len(users)], hosts[i%len(hosts)], paths[i%len(paths)])
		if fs := sc.ScanText(text); len(fs) > 0 {
			t.Errorf("%q: %v", text, fs)
		}
	}
	for i := range 20 {
		text := fmt.Sprintf("ssh -p %d %s@%s info", 2000+i, users[i%len(users)], hosts[i%len(hosts)])
		if fs := sc.ScanText(text); len(fs) > 0 {
			t.Errorf("%q: %v", text, fs)
		}
	}
	for _, text := range []string{"mail jane.doe@example.com: she answers", "write to ops@example.org.",
		"Please ssh into the box, then email jane.doe@example.com the log."} {
		if !hasType(sc.ScanText(text), TypeEmail) {
			t.Errorf("%q: e-mail not found", text)
		}
	}
}

func TestFailingChecksPass(t *testing.T) {
	sc, _ := New(nil)
	r := rand.New(rand.NewPCG(5, 6))
	for i := range 30 {
		// SSNs the SSA never issues: area 000, 666 or 900-999; group 00; serial 0000.
		var v string
		switch i % 4 {
		case 0:
			v = fmt.Sprintf("000-%02d-%04d", 1+r.IntN(99), 1+r.IntN(9999))
		case 1:
			v = fmt.Sprintf("666-%02d-%04d", 1+r.IntN(99), 1+r.IntN(9999))
		case 2:
			// 9xx with a group outside the ITIN ranges (50-65, 70-88, 90-92, 94-99).
			v = fmt.Sprintf("9%02d-%02d-%04d", r.IntN(100), 1+r.IntN(49), 1+r.IntN(9999))
		case 3:
			v = fmt.Sprintf("%03d-00-%04d", 1+r.IntN(665), 1+r.IntN(9999))
		}
		text := fmt.Sprintf("SSN: %s", v)
		if fs := sc.ScanText(text); len(fs) > 0 {
			t.Errorf("%q: %v", text, fs)
		}
	}
	for range 20 {
		// An IBAN whose check digits are off by one fails mod 97.
		bban := fmt.Sprintf("%08d%010d", r.IntN(1e8), r.IntN(1e10))
		var buf []byte
		buf = append(buf, bban...)
		buf = append(buf, "131400"...)
		chk := 98 - mod97(buf)
		text := fmt.Sprintf("IBAN DE%02d %s %s %s %s %s", (chk+1)%100, bban[0:4], bban[4:8], bban[8:12], bban[12:16], bban[16:])
		if fs := sc.ScanText(text); len(fs) > 0 {
			t.Errorf("%q: %v", text, fs)
		}
	}
}

func TestPhonesBesideCJK(t *testing.T) {
	sc, _ := New(nil)
	r := rand.New(rand.NewPCG(8, 9))
	for i := range 20 {
		var text string
		switch i % 4 {
		case 0:
			text = fmt.Sprintf("请拨打010 %04d %04d联系我。", 2000+r.IntN(7000), r.IntN(10000))
		case 1:
			text = fmt.Sprintf("携帯は03-%04d-%04dです。", 5000+r.IntN(4000), r.IntN(10000))
		case 2:
			text = fmt.Sprintf("请拨打+86 139 %04d %04d联系我。", r.IntN(10000), r.IntN(10000))
		case 3:
			text = fmt.Sprintf("携帯は+8190%04d%04dです。", r.IntN(10000), r.IntN(10000))
		}
		if !hasType(sc.ScanText(text), TypePhone) {
			t.Errorf("%q: phone not found", text)
		}
	}
}

func TestDatesAreNotAddresses(t *testing.T) {
	sc, _ := New(nil)
	days := []string{"Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"}
	months := []string{"January", "March", "June", "August", "October", "December"}
	for i := range 21 {
		text := fmt.Sprintf("Reminder: the Rapid Jump Rope review is on %s %d %s at %02d:00.", days[i%7], 1+i, months[i%6], 8+i%9)
		if fs := sc.ScanText(text); len(fs) > 0 {
			t.Errorf("%q: %v", text, fs)
		}
	}
	if !hasType(sc.ScanText("Ship the parcel to 12 Baker Street, London."), TypeAddress) {
		t.Error("12 Baker Street: address not found")
	}
}

func TestNumbersCalledReferencesAfterwards(t *testing.T) {
	sc, _ := New(nil)
	r := rand.New(rand.NewPCG(14, 15))
	after := []string{"is the supplier's customer number with us, not a bank account.", "is our order reference.",
		"is their internal reference."}
	for i := range 21 {
		text := fmt.Sprintf("Account no. %s %s", phoneShaped(r), after[i%len(after)])
		if fs := sc.ScanText(text); len(fs) > 0 {
			t.Errorf("%q: %v", text, fs)
		}
	}
	if !hasType(sc.ScanText("Account no. 12345678 is the one to pay into."), TypeBankAccount) {
		t.Error("a bank account named as such was not found")
	}
}
