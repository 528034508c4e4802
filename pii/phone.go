package pii

// Phone numbers. A digit run is only a phone candidate when it is written like one: with a
// leading + or international prefix, with parentheses, or in groups. It is then validated against
// the numbering plans of github.com/nyaruka/phonenumbers (international numbers against their
// country, national numbers against the configured regions). Plain runs of digits need a context
// word ("call", "phone", "fax"...) or a phone key. Dates, versions and IP addresses never get here.

// phone returns the confidence that n is a phone number (0: it is not) and the rule.
func (x *scanCtx) phone(n *numSpan) (float64, string) {
	nd := n.nd
	if nd < 7 || nd > 15 || x.glued(n.start, n.end) {
		return 0, ""
	}
	d := n.digits()
	formatted := n.ng >= 2 || n.paren
	if n.ng >= 2 {
		// Groups of one digit ("1 2 3 4 5 6 7") are lists, not phone numbers; a leading country
		// code or trunk digit may be one digit, and so may the area code after a country code
		// ("+33 1 23 45 67 89", "+61 2 9876 5432").
		ones := 0
		for g := range n.ng {
			if n.glen[g] == 1 && !(g == 1 && n.plus) {
				ones++
			}
			if n.glen[g] > 8 && !longSubscriber(n) {
				return 0, ""
			}
		}
		if ones > 1 || (ones == 1 && n.glen[0] != 1 && n.gsep[n.ng-1] != 'x') {
			if !(ones == 1 && n.paren) && !x.spacedPhone(n) && !spacedCountryCode(n) {
				return 0, ""
			}
		}
	}
	if n.ng == 2 && n.glen[0] == 4 && isYear(d[:4]) && n.glen[1] >= 5 && n.gsep[1] == '-' && !x.cueBefore(n.start, 40, strongPhoneCues) {
		return 0, "" // a year and a serial: "2025-050735" is a reference
	}
	if x.key != keyPhone && x.idLayout(n) || idKey(x.key) {
		return 0, ""
	}
	cue := x.key == keyPhone || x.cueBefore(n.start, 40, phoneCues) || x.cueAround(n.start, n.end, 0, 16, phoneAfterCues)
	if !n.plus && x.idLabelled(n.start, n.end) && !x.cueBefore(n.start, 40, strongPhoneCues) && !x.spacedPhone(n) {
		return 0, ""
	}
	intl := n.plus || (nd >= 9 && d[0] == '0' && d[1] == '0') || (nd >= 11 && d[0] == '0' && d[1] == '1' && d[2] == '1')
	var buf [48]byte
	num := buf[:0]
	if intl {
		num = append(num, '+')
		switch {
		case n.plus:
			num = append(num, d...)
		case d[0] == '0' && d[1] == '0':
			num = append(num, d[2:]...)
		default:
			num = append(num, d[3:]...)
		}
	} else {
		num = append(num, d...)
	}
	if intl {
		valid, possible := phoneIntl(string(num[1:]))
		if !valid && needsValidPlan(n) {
			return 0, ""
		}
		switch {
		case valid && cue:
			return 0.95, "phone.intl"
		case valid:
			return 0.9, "phone.intl"
		case possible && cue:
			return 0.85, "phone.intl"
		case possible:
			return 0.6, "phone.intl"
		case cue && formatted:
			return 0.7, "phone.context"
		}
		return 0, ""
	}
	if !formatted && !cue {
		return 0, ""
	}
	str := string(num)
	for _, r := range x.sc.regions {
		if phoneNational(str, r) {
			switch {
			case cue:
				return 0.95, "phone.national"
			case formatted:
				return 0.8, "phone.national"
			}
			return 0.45, "phone.national"
		}
	}
	if cue && (formatted || nd >= 8) {
		return 0.75, "phone.context"
	}
	return 0, ""
}

// glued reports whether s[a:b] is one piece of a longer hexadecimal token, such as a group of a
// UUID ("d3db4ba8-0644-4802-afda-…") or of a hash written in groups: part of an identifier,
// not a phone number or an account number of its own. The token runs over letters, digits,
// '-' and '_'; it must reach beyond s[a:b] and hold nothing but hexadecimal digits and those
// separators, with at least one letter ("788-063-Office" is a phone number and its label).
func (x *scanCtx) glued(a, b int) bool {
	s := x.s
	i, j := a, b
	for i > 0 && (isAlnum(s[i-1]) || s[i-1] == '-' || s[i-1] == '_') {
		i--
	}
	for j < len(s) && (isAlnum(s[j]) || s[j] == '-' || s[j] == '_') {
		j++
	}
	if i == a && j == b {
		return false
	}
	letter := false
	for k := i; k < j; k++ {
		switch c := s[k]; {
		case isDigit(c), c == '-', c == '_':
		case c|0x20 >= 'a' && c|0x20 <= 'f':
			letter = true
		default:
			return false
		}
	}
	return letter
}

// phoneValue validates a whole value under a phone key.
func (x *scanCtx) phoneValue(a, b int) bool {
	for i := a; i < b; i++ {
		if isDigit(x.s[i]) {
			var n numSpan
			x.extractNum(i, &n)
			c, _ := x.phone(&n)
			return c > 0 && !n.over
		}
	}
	return false
}

var phoneAfterCues = newCues("office", "mobile", "fax", "home", "cell", "work")
