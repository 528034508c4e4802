package pii

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// keyContext makes findings about a whole value from what its key says it is: a value under
// "first_name" is a name, under "dob" a date of birth, under "password" a password, under
// "pesel" an id number that must pass the PESEL check. Free-text detection still runs on the
// value afterwards; overlaps are resolved in favour of the stronger finding.
func (x *scanCtx) keyContext() {
	s := x.s
	a, b := 0, len(s)
	for a < b && (s[a] == ' ' || s[a] == '\t' || s[a] == '\n') {
		a++
	}
	for b > a && (s[b-1] == ' ' || s[b-1] == '\t' || s[b-1] == '\n') {
		b--
	}
	if a >= b || b-a > 4096 {
		return
	}
	v := s[a:b]
	digits := func() ([]byte, bool) {
		var d []byte
		for i := 0; i < len(v); i++ {
			switch c := v[i]; {
			case isDigit(c):
				d = append(d, c)
			case c == ' ' || c == '-' || c == '.' || c == '/' || c == '(' || c == ')' || c == '+':
			default:
				return nil, false
			}
		}
		return d, len(d) > 0
	}
	switch x.key {
	case keyPersonName, keyName:
		if cjkNameValue(v) {
			x.add(TypeName, a, b, 0.85, "name.key")
			break
		}
		if x.key == keyName {
			if looksName(v, true) {
				x.add(TypeName, a, b, 0.7, "name.key")
			}
			break
		}
		if looksName(v, false) {
			x.add(TypeName, a, b, 0.9, "name.key")
		}
	case keyAddress:
		if looksAddress(v) {
			x.add(TypeAddress, a, b, 0.85, "address.key")
		}
	case keyDOB:
		if isDateValue(v) {
			x.add(TypeDOB, a, b, 0.95, "dob.key")
		}
	case keyHealth:
		if len(v) >= 3 && hasLetter(v) && !isBoolWord(v) && x.healthVocabScan(false) {
			// A condition or medicine under a health key is a record about someone.
			x.add(TypeHealth, a, b, 0.85, "health.key")
		} else if len(v) >= 3 && hasLetter(v) && !isBoolWord(v) {
			x.healthCues = append(x.healthCues, Finding{Type: TypeHealth, Start: a, End: b, Confidence: 0.85, Rule: "health.key"})
		}
	case keyPassword, keyToken, keyPrivate, keySumoID:
		if t, c, rule := x.secretValue(x.key, a, b); t != 0 {
			if x.key == keyPassword {
				c = 0.95
			}
			x.add(t, a, b, c, strings.Replace(rule, "assignment", "key", 1))
		} else if x.key == keyToken && loginPair(v) {
			x.add(TypePassword, a, b, 0.9, "secret.login-pair")
		}
	case keyLogin:
		if loginPair(v) {
			x.add(TypePassword, a, b, 0.9, "secret.login-pair")
		}
	case keySSN:
		if d, ok := digits(); ok && len(d) == 9 {
			if itinValid(d) {
				x.add(TypeITIN, a, b, 0.95, "itin.key")
			} else if ssnValid(d) {
				x.add(TypeSSN, a, b, 0.97, "ssn.key")
			}
		}
	case keyNationalID:
		if rule, ok := nationalValueAs(v, x.siblingID); ok {
			x.add(TypeNationalID, a, b, 0.95, rule)
		}
	case keyNHS:
		if d, ok := digits(); ok && nhsValid(d) {
			x.add(TypeNHS, a, b, 0.97, "nhs.key")
		}
	case keyCard:
		if u := strings.ToUpper(v); panValid([]byte(u)) && u == v {
			x.add(TypeNationalID, a, b, 0.9, "in.pan") // "pan" names India's PAN as well as a card number
		}
		if d, ok := digits(); ok && len(d) >= 12 && len(d) <= 19 && luhn(d) && iinOK(d) {
			x.add(TypeCard, a, b, 0.97, "card.key")
		}
	case keyRouting:
		if d, ok := digits(); ok && abaValid(d) {
			x.add(TypeABARouting, a, b, 0.97, "aba.key")
		}
	case keyAccount:
		if d, ok := digits(); ok && len(d) >= 6 && len(d) <= 17 {
			x.add(TypeBankAccount, a, b, 0.9, "bank_account.key")
		}
	case keyPassport:
		if len(v) >= 6 && len(v) <= 12 && hasDigit(v) && isAlnumStr(v) {
			x.add(TypePassport, a, b, 0.9, "passport.key")
		}
	case keyDL:
		if len(v) >= 5 && len(v) <= 20 && hasDigit(v) {
			x.add(TypeDriversLicense, a, b, 0.9, "drivers_license.key")
		}
	case keyPhone:
		if x.phoneValue(a, b) {
			x.add(TypePhone, a, b, 0.95, "phone.key")
		}
	}
}

func hasLetter(v string) bool {
	for i := 0; i < len(v); i++ {
		if isAlpha(v[i]) {
			return true
		}
	}
	return false
}

func hasDigit(v string) bool {
	for i := 0; i < len(v); i++ {
		if isDigit(v[i]) {
			return true
		}
	}
	return false
}

func isAlnumStr(v string) bool {
	for i := 0; i < len(v); i++ {
		if !isAlnum(v[i]) && v[i] != ' ' && v[i] != '-' {
			return false
		}
	}
	return true
}

func isBoolWord(v string) bool {
	switch strings.ToLower(v) {
	case "true", "false", "yes", "no", "none", "null", "n/a", "na", "unknown", "nil":
		return true
	}
	return false
}

var orgWords = toSet(`inc inc. ltd ltd. llc gmbh ag sa plc corp corp. corporation company co co. group bank
university college institute foundation association services solutions systems technologies labs
partners holdings agency department ministry council office hospital clinic school team project
service api tool server client app application bot agent ops operations desk helpdesk oncall support finance
legal procurement billing payroll accounting compliance security marketing ` + agentWords + ` ` + unitWords)

// unitWords name more teams and departments of a firm, which approve, review and own things as
// people do ("reviewer": "Legal Ops", "owner": "Infrastructure Team").
const unitWords = `engineering facilities infrastructure committee devops sre qa hr it`

// agentWords name what a software agent does, so that a display name under a bare "name" key
// ("Calendar Assistant", "Travel Planner", "Weather Forecaster"), which every directory record
// has, is not read as a person's. None is a common given name or surname; words that are
// (Baker, Porter, Walker, Page) are left out.
const agentWords = `assistant assistants copilot chatbot planner scheduler helper advisor adviser concierge
translator summarizer summariser analyzer analyser classifier forecaster forecast tracker monitor
checker finder search lookup engine desk hub portal gateway platform registry directory router
proxy pipeline worker model calendar weather travel booking echo`

// looksName: 1-5 words of letters; for a bare "name" key, 2-4 capitalised words and no
// organisation word.
func looksName(v string, strict bool) bool {
	if len(v) > 80 {
		return false
	}
	words := strings.Fields(v)
	if len(words) == 0 || len(words) > 5 {
		return false
	}
	caps := 0
	for i, w := range words {
		if i > 0 && i < len(words)-1 && nameParticles.has(w) {
			continue // "Breno das Neves", "Kyano van de Greef"
		}
		caps++
	}
	if strict && (caps < 2 || caps > 4) {
		return false
	}
	for i, w := range words {
		lw := strings.ToLower(strings.Trim(w, ".,"))
		if orgWords.has(lw) || orgAfter.has(lw) || orgSuffixes[strings.Trim(w, ",")] {
			return false
		}
		for i := 0; i < len(w); i++ {
			c := w[i]
			if !(isAlpha(c) || c >= 0x80 || c == '\'' || c == '-' || c == '.' || c == ',') {
				return false
			}
		}
		if w[0] >= 0x80 {
			// A name in another script: its letters are letters, a cased script's first a capital.
			r, _ := utf8.DecodeRuneInString(w)
			if !isLetterRune(r) || strict && unicode.IsLower(r) {
				return false
			}
			for _, r := range w {
				if !isLetterRune(r) && r != '-' && r != '\'' {
					return false
				}
			}
		}
		if strict && !isUpper(w[0]) && w[0] < 0x80 && (i == 0 || i == len(words)-1 || !nameParticles.has(w)) {
			return false
		}
	}
	return true
}

// looksAddress: letters and at least two words, with a digit or a comma.
func looksAddress(v string) bool {
	if len(v) > 300 || !hasLetter(v) {
		return false
	}
	if len(strings.Fields(v)) < 2 {
		return false
	}
	return hasDigit(v) || strings.Contains(v, ",")
}
