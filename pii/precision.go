package pii

import "strings"

// Precision: numbers and addresses that something else plainly says are not personal data. A
// number labelled as an order, SKU, invoice, tracking, build or ticket number is a reference,
// whatever its digits look like; a number labelled as an identifier (SSN, PESEL, NHS...) whose
// check fails is a mistyped identifier, not a phone number; and git@host:path is a remote
// repository, not an e-mail address.

// numberLabels name the references that a business document numbers: the word directly before
// a number (past "number", "no.", "#" or "id") says what the number is.
var numberLabels = toSet(`order orders sku skus invoice invoices inv tracking track shipment parcel package
consignment waybill awb build builds version ver isbn issn ean upc gtin ticket tickets po purchase part
serial sn model ref reference case item product article catalog catalogue catalogno item release batch lot
transaction txn receipt booking confirmation reservation pnr job rma incident bug issue pr request req
quote quotation contract claim project report patch container vin asset barcode ndc hcpcs cpt policy
revision rev cl changelist pipeline run commit bestellnummer rechnungsnummer auftragsnummer sendungsnummer
artikelnummer lieferscheinnummer bestellung rechnung auftrag sendung pedido factura envío envio seguimiento commande
facture colis suivi ordine fattura spedizione bestelling factuur zending zamówienie zamowienie faktura przesyłka`)

// numberFillers may stand between a label and its number: "order number", "SKU no.", "case id".
var numberFillers = toSet("number numbers no nr num nos id ids code codes ref is was are with your the a an our this de du di do")

// labelledNumber reports whether the number starting at a is labelled as a reference.
func (x *scanCtx) labelledNumber(a int) bool {
	return labelledBack(x.s, a) // refs_labels.go: the labels of English and of other languages
}

// idCues name identifiers other than phone numbers. A number they label that fails the
// identifier's check is not a phone number either: it is a mistyped identifier.
var idCues = func() *cueList {
	var all []string
	for _, cl := range []*cueList{ssnCues, itinCues, nationalCues, nhsCues, ninoCues, cardCues, passportCues, dlCues, abaCues, accountCues} {
		all = append(all, cl.cues...)
	}
	return newCues(append(all, "iban", "bic", "swift", "sort code")...)
}()

// idLabelled reports whether the number s[a:b] is labelled as an identifier: by its key, by a
// cue in the 48 bytes before it or in the 40 after it ("It's the CPF from the claim").
func (x *scanCtx) idLabelled(a, b int) bool {
	switch x.key {
	case keySSN, keyNationalID, keyPassport, keyDL, keyNHS, keyNINO, keyCard, keyIBAN, keyAccount, keyRouting:
		return true
	}
	return x.cueBefore(a, 48, idCues) || hasCue(x.s, b, b+40, idCues)
}

// scpRemote reports whether the address-like text s[a:e] is a remote login rather than a
// mailbox: followed by ":path", as in git@github.com:org/repo.git or deploy@host:~/app, the
// account of a version control host (git@, hg@), or the target of an ssh command.
// In a URL (scheme://user:pass@host:port/path) the same shape holds credentials, whatever
// characters the password has: that is for the URL detector, and a line with a scheme before
// the address is left to it.
func scpRemote(s string, a, e int) bool {
	line := s[max(0, a-256):a]
	if nl := strings.LastIndexByte(line, '\n'); nl >= 0 {
		line = line[nl+1:]
	}
	if strings.Contains(line, "://") {
		return false
	}
	// The service accounts of version control hosts, and a login in an ssh command line.
	if at := strings.IndexByte(s[a:e], '@'); at > 0 {
		switch s[a : a+at] {
		case "git", "hg", "svn":
			return true
		}
	}
	if k := strings.LastIndex(line, "ssh "); k >= 0 && len(line)-k <= 48 && !strings.ContainsAny(line[k:], ",;.!?") {
		return true // "ssh -p 2222 deploy@host"
	}
	if e+1 >= len(s) || s[e] != ':' {
		return false
	}
	p := e + 1
	q := p
	for q < len(s) && (isAlnum(s[q]) || oneOf(s[q], "/~._-+%")) {
		q++
	}
	if q == p {
		return false
	}
	path := s[p:q]
	return strings.ContainsAny(path, "/~") || strings.HasSuffix(path, ".git")
}

// strongPhoneCues say a phone number follows even after an identifier's name; the weaker
// phone cues ("number", "contact", "registered") do not.
var strongPhoneCues = newCues("phone", "call", "tel", "mobile", "cell", "fax", "sms", "text me", "whatsapp", "dial", "ring", "hotline")

// labelKey reports whether a normalised key names a business reference: "orderid",
// "invoicenumber", "trackingnumber", "sku", "build".
func labelKey(n string) bool {
	switch n {
	case "sku", "build", "isbn", "ean", "upc", "gtin", "ean13", "ean8", "gtin13", "gtin14", "upca", "upce", "barcode", "po", "ponumber", "rma", "pnr", "version", "serial", "serialnumber",
		"partnumber", "modelnumber", "lot", "batch":
		return true
	}
	return hasPrefixAny(n, "order", "invoice", "tracking", "shipment", "ticket", "booking", "confirmation",
		"reservation", "transaction", "receipt", "purchaseorder", "sku", "build", "release", "waybill", "parcel",
		"consignment", "bestell", "rechnung", "pedido", "factura", "commande", "facture") &&
		!containsAny(n, "phone", "email", "name", "address", "contact", "card", "iban", "account")
}

func hasPrefixAny(n string, list ...string) bool {
	for _, p := range list {
		if strings.HasPrefix(n, p) {
			return true
		}
	}
	return false
}

// idCardCues name an identity card, whose number is no payment card's.
var idCardCues = newCues("id card", "id-card", "identity card", "identification card")

// checkedShape reports whether w is written as an identifier that carries a check character
// (a Spanish NIE, an Italian fiscal code, an Indian PAN): such a value that reached the generic
// context rule has failed its check, and passes.
func checkedShape(w string) bool {
	letters := func(a, b int) bool {
		for k := a; k < b; k++ {
			if !isUpper(w[k]) {
				return false
			}
		}
		return true
	}
	switch len(w) {
	case 9:
		return (w[0] == 'X' || w[0] == 'Y' || w[0] == 'Z') && isDigits([]byte(w[1:8])) && isUpper(w[8])
	case 10:
		return letters(0, 3) && isDigits([]byte(w[5:9]))
	case 14:
		return muNIDShape([]byte(w))
	case 16:
		return letters(0, 6) && isDigit(w[6])
	}
	return false
}

var weekdays = toSet(`monday tuesday wednesday thursday friday saturday sunday mon tue tues wed thu thur thurs fri sat sun
montag dienstag mittwoch donnerstag freitag samstag sonntag lundi mardi mercredi jeudi vendredi samedi dimanche
lunes martes miércoles jueves viernes sábado domingo`)

// isMonthWord reports whether the word w is a month's name.
func isMonthWord(s string, w word) bool {
	e, ok := isMonthAt(s, w.a)
	return ok && e >= w.b
}

// labelAfterWords, after "is the" and a number, say it is a reference: "X is the supplier's
// customer number", "X is our order reference".
var labelAfterWords = toSet("customer supplier vendor member membership loyalty internal reference ref order invoice ticket tracking booking")

// labelledAfter reports whether the number ending at b is called a reference after it: "is the
// (someone's) customer number", "is our order reference".
func (x *scanCtx) labelledAfter(b int) bool {
	s := x.s
	k := skipSpace(s, b)
	if !strings.HasPrefix(s[k:], "is ") {
		return false
	}
	k += 3
	for w := 0; w < 4; w++ {
		wd, ok := wordAt(s, k, false)
		if !ok || wd.b-wd.a > 16 {
			return false
		}
		lw := strings.TrimSuffix(strings.ToLower(s[wd.a:wd.b]), "'s")
		switch {
		case labelAfterWords.has(lw):
			return true
		case lw == "the" || lw == "our" || lw == "your" || lw == "their" || lw == "an" || lw == "a" || wd.b < len(s) && s[wd.b-1] == 's' && s[wd.b-2] == '\'':
			k = wd.b
		default:
			return false
		}
	}
	return false
}
