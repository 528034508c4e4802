package pii

import (
	"strings"
	"unsafe"
)

// Context cues: short lower-case phrases looked for in a window before (or after) a candidate.
// A cue must start at a word boundary; it may end inside a word, so "birth" matches "birthday".
var (
	cardCues     = []string{"card", "credit", "debit", "visa", "mastercard", "amex", "cc ", "cc#", "cc:", "cc no", "payment", "pan "}
	ssnCues      = []string{"ssn", "social security", "social sec", "ss#", "ss #", "ss no"}
	itinCues     = []string{"itin", "taxpayer", "tax id", "tin"}
	phoneCues    = []string{"phone", "call", "tel", "mobile", "cell", "fax", "sms", "text me", "whatsapp", "dial", "ring", "contact", "reach", "desk", "hotline", "answering", "messages to", "registered", "number", "mob", "ph:", "ph.", "direct", "office:", "home:", "work:"}
	nhsCues      = []string{"nhs", "health service"}
	abaCues      = []string{"routing", "aba", "rtn", "transit", "bank"}
	accountCues  = []string{"account", "acct", "a/c", "bank", "konto", "compte"}
	passportCues = []string{"passport", "reisepass", "passeport", "pasaporte", "passaporto", "paspoort"}
	dlCues       = []string{"driver", "driving", "licence", "license", "dl#", "dl:", "dl no", "führerschein"}
	nationalCues = []string{"national id", "national identity", "id number", "id no", "id#", "id card", "identity", "identification",
		"pesel", "personnummer", "personal number", "personal code", "personal id", "fødselsnummer", "fodselsnummer", "birth number",
		"rodné", "rodne", "egn", "cnp", "emšo", "emso", "amka", "kennitala", "codice fiscale", "fiscal code", "steuer", "tax id",
		"tax number", "bsn", "burgerservicenummer", "nir", "sécurité sociale", "securite sociale", "insee", "dni", "nie", "nif",
		"hetu", "henkilötunnus", "cpr", "pps", "oib", "isikukood", "asmens kod", "personas kods", "citizen", "social insurance"}
	dobCues = []string{"born", "birth", "dob", "d.o.b", "b-day", "bday", "geboren", "geb.", "né le", "née le", "nato il", "nata il", "nacido", "nacida"}
)

// lowerInto copies s lower-cased (ASCII) into buf.
func lowerInto(buf []byte, s string) []byte {
	buf = buf[:0]
	for i := 0; i < len(s); i++ {
		buf = append(buf, lower(s[i]))
	}
	return buf
}

// hasCue reports whether s[a:b] (lower-cased) holds one of cues at a word start.
func hasCue(s string, a, b int, cues []string) bool {
	if a < 0 {
		a = 0
	}
	if b > len(s) {
		b = len(s)
	}
	if a >= b {
		return false
	}
	var buf [160]byte
	if b-a > len(buf) {
		a = b - len(buf)
	}
	w := lowerInto(buf[:0], s[a:b])
	// ws aliases the stack buffer and never outlives this call.
	ws := unsafe.String(unsafe.SliceData(w), len(w))
	for p := 0; p < len(ws); p++ {
		if p == 0 && a > 0 && isAlnum(s[a-1]) || p > 0 && isAlnum(ws[p-1]) {
			continue
		}
		c0 := ws[p]
		for _, c := range cues {
			if c[0] == c0 && strings.HasPrefix(ws[p:], c) {
				return true
			}
		}
	}
	return false
}

// cueBefore looks for a cue in the window bytes before position p, not crossing a line break
// followed by an unrelated line (blank line), so that labels like "Phone:\n123" still count.
func (x *scanCtx) cueBefore(p, window int, cues []string) bool {
	return hasCue(x.s, p-window, p, cues)
}

// cueAround looks before and shortly after.
func (x *scanCtx) cueAround(a, b, before, after int, cues []string) bool {
	return hasCue(x.s, a-before, a, cues) || hasCue(x.s, b, b+after, cues)
}
