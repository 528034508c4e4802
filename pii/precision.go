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
quote quotation contract claim project report patch container vin asset barcode
revision rev cl changelist pipeline run commit`)

// numberFillers may stand between a label and its number: "order number", "SKU no.", "case id".
var numberFillers = toSet("number numbers no nr num nos id ids code codes ref")

// labelledNumber reports whether the number starting at a is labelled as a reference.
func (x *scanCtx) labelledNumber(a int) bool {
	s := x.s
	k := a
	for w := 0; w < 3; w++ {
		for k > 0 && k > a-24 && strings.IndexByte(" :#.-(=_/\t", s[k-1]) >= 0 {
			k--
		}
		e := k
		for k > 0 && isAlpha(s[k-1]) && s[k-1] < 0x80 {
			k--
		}
		if k == e || e-k > 12 {
			return false
		}
		var buf [16]byte
		lw := string(lowerInto(buf[:0], s[k:e]))
		switch {
		case numberLabels.has(lw):
			return true
		case !numberFillers.has(lw):
			return false
		}
	}
	return false
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

// idLabelled reports whether an identifier cue stands in the 32 bytes before a.
func (x *scanCtx) idLabelled(a int) bool {
	return x.cueBefore(a, 32, idCues)
}

// scpRemote reports whether the address-like text ending at e is followed by ":path", as in
// git@github.com:org/repo.git or deploy@host:~/app: a remote repository or file, not a mailbox.
// In a URL (scheme://user:pass@host:port/path) the same shape holds credentials, whatever
// characters the password has: that is for the URL detector, and a line with a scheme before
// the address is left to it.
func scpRemote(s string, a, e int) bool {
	if e+1 >= len(s) || s[e] != ':' {
		return false
	}
	line := s[max(0, a-256):a]
	if nl := strings.LastIndexByte(line, '\n'); nl >= 0 {
		line = line[nl+1:]
	}
	if strings.Contains(line, "://") {
		return false
	}
	p := e + 1
	q := p
	for q < len(s) && (isAlnum(s[q]) || strings.IndexByte("/~._-+%", s[q]) >= 0) {
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
