package main

import (
	"fmt"
	"strings"

	"github.com/nyaruka/phonenumbers"
)

// structTexts carry one structured identifier each, as requests, tool input, replies and logs.
var structTexts = []struct{ typ, t string }{
	{"email", "Send the report to {email} when it is ready."},
	{"email", "User {email} requested a password reset at 09:14 UTC."},
	{"email", "search_contacts(query=\"{email}\") returned 1 result"},
	{"email", "Could you add {email} to the beta list?"},
	{"email", "INFO mailer: delivered message 7c1f to={email} status=250"},
	{"email", "Reply-To: {email}"},
	{"phone", "Call the customer back on {usphone} after 5 pm."},
	{"phone", "SMS verification code sent to {usphone}."},
	{"phone", "Their support line is busy; the account owner's mobile is {usphone}."},
	{"card", "Please retry the charge on {card}."},
	{"card", "Card ending in the full number {card} was declined (insufficient funds)."},
	{"card", "tool: payments.capture {\"pan\": \"{card}\", \"amount\": 42.50}"},
	{"ssn", "Employee SSN {ssn} is missing from the W-2 export."},
	{"ssn", "Social Security No. {ssn}"},
	{"address", "Ship the replacement to {address}."},
	{"address", "Her home address is {address}."},
	{"address", "Billing address on file: {address}"},
	{"email", "Hey, it's me - write to {email} instead, the old inbox is dead."},
	{"email", "name,email,plan\n{name},{email},pro\n"},
	{"email", "INSERT INTO customers (name, email) VALUES ('{name}', '{email}');"},
	{"email", "| name | email |\n|---|---|\n| {name} | {email} |"},
	{"phone", "contact:\n  name: {name}\n  phone: \"{usphone}\"\n"},
	{"address", "<customer><name>{name}</name><street>{street}</street><city>{city}</city><zip>{zip}</zip></customer>"},
	{"card", "POST /v1/charges HTTP/1.1\nContent-Type: application/x-www-form-urlencoded\n\ncard[number]={card}&amount=2000"},
	{"ssn", "ssn\t{ssn}\nstatus\tpending"},
}

var structJSON = []struct {
	typ string
	f   func(v map[string]string) any
}{
	{"email", func(v map[string]string) any { return map[string]any{"to": []any{v["email"]}, "subject": "Your order"} }},
	{"email", func(v map[string]string) any {
		return map[string]any{"user": map[string]any{"login": v["email"], "role": "viewer"}}
	}},
	{"phone", func(v map[string]string) any {
		return map[string]any{"contact": map[string]any{"mobile": v["usphone"]}}
	}},
	{"card", func(v map[string]string) any { return map[string]any{"card_number": v["card"], "exp": "08/29"} }},
	{"ssn", func(v map[string]string) any {
		return map[string]any{"employee": map[string]any{"ssn": v["ssn"], "dept": "ops"}}
	}},
	{"address", func(v map[string]string) any {
		return map[string]any{"shipping": map[string]any{"street": v["street"], "city": v["city"], "zip": v["zip"]}}
	}},
}

func (g *gen) fakeValues() map[string]string {
	f := g.fk
	v := map[string]string{"email": strings.ToLower(f.Email()), "name": f.Name()}
	a := f.Address()
	v["address"] = a.Address
	v["street"], v["city"], v["zip"] = a.Street, a.City, a.Zip
	for {
		c := f.CreditCardNumber(nil)
		if luhnValid(c) && (len(c) == 15 || len(c) == 16) {
			v["card"] = c
			break
		}
	}
	for {
		s := f.SSN()
		if len(s) == 9 && ssnRules(s) {
			v["ssn"] = s[:3] + "-" + s[3:5] + "-" + s[5:]
			break
		}
	}
	for {
		p := f.Phone()
		n, err := phonenumbers.Parse(p, "US")
		if err == nil && phonenumbers.IsValidNumberForRegion(n, "US") {
			v["usphone"] = phonenumbers.Format(n, phonenumbers.NATIONAL)
			break
		}
	}
	return v
}

func genStruct(g *gen) {
	for i := 0; i < 420; i++ {
		v := g.fakeValues()
		if i%3 == 2 {
			s := pick(g, structJSON)
			g.json("struct_pii", true, []string{s.typ}, s.f(v))
			continue
		}
		s := pick(g, structTexts)
		t := s.t
		for k, x := range v {
			t = strings.ReplaceAll(t, "{"+k+"}", x)
		}
		g.text("struct_pii", true, []string{s.typ}, t)
	}
}

// phoneRegions are the regions whose formats the gate must read, with the words people write
// around a number there.
var phoneRegions = []struct {
	region string
	texts  []string
}{
	{"JP", []string{"電話番号: {P}", "携帯は{P}です。", "Call me on {P} (Tokyo office).", "連絡先 {P} までお願いします。"}},
	{"FR", []string{"Mon numéro : {P}", "Rappelez-moi au {P} s'il vous plaît.", "Tél. {P}", "Call the Paris client on {P}."}},
	{"AU", []string{"Give me a ring on {P}.", "Mobile: {P}", "Contact the Sydney site manager on {P}.", "ph {P}"}},
	{"CN", []string{"手机号：{P}", "请拨打{P}联系我。", "Phone (Shanghai): {P}", "联系电话 {P}"}},
	{"IN", []string{"My mobile number is {P}.", "WhatsApp me at {P}", "Contact no. {P}", "मेरा नंबर {P} है"}},
	{"GB", []string{"Ring me on {P}.", "Tel: {P}", "The landlord's number is {P}."}},
	{"DE", []string{"Telefon: {P}", "Rufen Sie mich unter {P} an.", "Handy {P}"}},
	{"BR", []string{"Meu celular é {P}.", "Telefone: {P}", "Liga pra mim no {P}"}},
	{"ES", []string{"Mi teléfono es el {P}.", "Móvil: {P}"}},
	{"IT", []string{"Il mio cellulare è {P}.", "Tel. {P}"}},
	{"US", []string{"Text me at {P}.", "Phone: {P}"}},
}

var phoneKeys = []string{"phone", "mobile", "tel", "contact_number", "phone_number", "whatsapp"}

// validPhone varies the last digits of the region's example number until libphonenumber's
// metadata accepts it as a number of the region.
func validPhone(g *gen, region string) *phonenumbers.PhoneNumber {
	types := []phonenumbers.PhoneNumberType{phonenumbers.MOBILE, phonenumbers.FIXED_LINE}
	for {
		ex := phonenumbers.GetExampleNumberForType(region, pick(g, types))
		if ex == nil {
			continue
		}
		// Keep the example's leading digits (the area or mobile prefix) and draw the rest, so
		// that no number keeps the example's 1234... run.
		nsn := fmt.Sprint(ex.GetNationalNumber())
		keep := 1 + g.r.IntN(3)
		if keep > len(nsn)-4 {
			keep = len(nsn) - 4
		}
		cand := nsn[:keep] + digitStr(g, len(nsn)-keep)
		n, err := phonenumbers.Parse("+"+fmt.Sprint(ex.GetCountryCode())+cand, "")
		if err == nil && phonenumbers.IsValidNumberForRegion(n, region) && cand != nsn {
			return n
		}
	}
}

// formatPhone writes n as libphonenumber formats it, or with the dots, dashes or no separators
// people also use.
func formatPhone(g *gen, n *phonenumbers.PhoneNumber) string {
	switch g.r.IntN(6) {
	case 0:
		return phonenumbers.Format(n, phonenumbers.INTERNATIONAL)
	case 1:
		return phonenumbers.Format(n, phonenumbers.E164)
	case 2:
		// Dots in France, dashes or nothing elsewhere; a national format with an area code in
		// brackets is kept as it is.
		nat := phonenumbers.Format(n, phonenumbers.NATIONAL)
		switch {
		case phonenumbers.GetRegionCodeForNumber(n) == "FR":
			return strings.ReplaceAll(nat, " ", ".")
		case strings.Contains(nat, "("):
			return nat
		}
		return strings.ReplaceAll(nat, " ", pick(g, []string{"-", ""}))
	case 3:
		return strings.ReplaceAll(phonenumbers.Format(n, phonenumbers.INTERNATIONAL), " ", "-")
	default:
		return phonenumbers.Format(n, phonenumbers.NATIONAL)
	}
}

func genPhones(g *gen) {
	for i := 0; i < 560; i++ {
		pr := phoneRegions[i%len(phoneRegions)]
		p := formatPhone(g, validPhone(g, pr.region))
		if i%4 == 3 {
			g.json("intl_phone", true, []string{"phone"}, map[string]any{"contact": map[string]any{pick(g, phoneKeys): p, "country": pr.region}})
			continue
		}
		g.text("intl_phone", true, []string{"phone"}, fill(pick(g, pr.texts), "{P}", p))
	}
}

func genProse(g *gen) {
	f := g.fk
	mk := []func() string{
		func() string { return f.HackerPhrase() + " " + f.HackerPhrase() },
		func() string { return f.Sentence() + " " + f.Sentence() },
		func() string { return f.Question() },
		func() string {
			return fmt.Sprintf("The %s team shipped %s %d.%d.%d; %s", f.BuzzWord(), f.AppName(), f.Number(1, 9), f.Number(0, 30), f.Number(0, 99), f.HackerPhrase())
		},
		func() string { return fmt.Sprintf("Summary: %s %s", f.Phrase(), f.HipsterSentence()) },
		func() string {
			return fmt.Sprintf("Reminder: the %s review is on %s at %02d:00.", f.ProductName(), f.Date().Format("Monday 2 January"), f.Number(8, 17))
		},
		func() string { return f.Paragraph(1, 3, 8, " ") },
		func() string {
			d := f.Date()
			return fmt.Sprintf(pick(g, []string{"Delivery date: %s.", "Contract start %s, renewal yearly.", "Rechnungsdatum: %s",
				"Date de facturation : %s", "The report covers the period up to %s."}), d.Format(pick(g, []string{"02.01.2006", "01/02/2006", "2006-01-02", "January 2, 2006"})))
		},
	}
	for i := 0; i < 520; i++ {
		if i%4 == 3 {
			g.json("benign_prose", false, nil, map[string]any{"task": "summarise", "input": map[string]any{"text": pick(g, mk)(), "max_words": f.Number(50, 300)}})
			continue
		}
		g.text("benign_prose", false, nil, pick(g, mk)())
	}
}

// genBadStructured writes SSNs outside the SSA's rules, IBANs failing mod 97 and card numbers
// failing Luhn, in the sentences the valid ones appear in.
func genBadStructured(g *gen) {
	ssnTexts := []string{"SSN: {V}", "Employee SSN {V} is missing from the export.", "social security number {V}"}
	ibanTexts := []string{"Refund to IBAN {V}.", "IBAN: {V}", "Bank details for the payout: {V}"}
	cardTexts := []string{"Please retry the charge on {V}.", "card number {V}", "Card {V} was declined."}
	for i := 0; i < 300; i++ {
		var v string
		var texts []string
		switch i % 3 {
		case 0:
			// A 9xx area is an ITIN's when the group is 50-65, 70-88, 90-92 or 94-99: the
			// groups below 50 are neither.
			area := pick(g, []string{"000", "666", fmt.Sprintf("9%02d", g.r.IntN(100))})
			v = area + "-" + fmt.Sprintf("%02d-%04d", 1+g.r.IntN(49), 1+g.r.IntN(9999))
			if g.r.IntN(3) == 0 {
				v = fmt.Sprintf("%03d-00-%04d", 1+g.r.IntN(665), 1+g.r.IntN(9999))
			}
			texts = ssnTexts
		case 1:
			for {
				cc := pick(g, []string{"DE", "FR", "GB", "NL", "ES", "IT"})
				bban := map[string]int{"DE": 18, "FR": 23, "GB": 18, "NL": 14, "ES": 20, "IT": 23}[cc]
				body := digitStr(g, bban)
				if cc == "GB" || cc == "NL" {
					body = strings.ToUpper(g.fk.LetterN(4)) + body[4:]
				}
				v = cc + fmt.Sprintf("%02d", g.r.IntN(100)) + body
				if !ibanValid(v) {
					break
				}
			}
			texts = ibanTexts
		default:
			for {
				c := g.fk.CreditCardNumber(nil)
				v = c[:len(c)-1] + fmt.Sprint(otherDigit(g, int(c[len(c)-1]-'0')))
				if !luhnValid(v) {
					break
				}
			}
			texts = cardTexts
		}
		g.text("bad_checksum", false, nil, fill(pick(g, texts), "{V}", v))
	}
}
