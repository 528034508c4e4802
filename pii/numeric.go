package pii

import "strings"

// Numbers: a run of digit groups joined by single separators, classified by digit count, grouping
// and check digits, then by context words. Dates and version-like runs are recognised first so
// that they never become phone numbers.

type numSpan struct {
	start, end int // bytes; start includes a leading '+' or '('
	d          [40]byte
	nd         int
	glen       [16]uint8
	gsep       [16]byte // separator before group g ('(' and ')' included); 0 for the first
	ng         int
	plus       bool
	paren      bool
	over       bool // more digits or groups than fit: not an identifier we know
	tail       bool // a letter or digit follows end directly: the number is part of a word
}

func (n *numSpan) digits() []byte { return n.d[:n.nd] }

func (n *numSpan) sameSep() byte {
	if n.ng < 2 {
		return 0
	}
	c := n.gsep[1]
	for g := 2; g < n.ng; g++ {
		if n.gsep[g] != c {
			return 0
		}
	}
	return c
}

func (n *numSpan) groups(want ...int) bool {
	if n.ng != len(want) {
		return false
	}
	for g, w := range want {
		if int(n.glen[g]) != w {
			return false
		}
	}
	return true
}

// extractNum reads the number starting at digit i.
func (x *scanCtx) extractNum(i int, n *numSpan) {
	s := x.s
	n.start = i
	if i > 0 && s[i-1] == '(' {
		n.start = i - 1
		n.paren = true
		if i > 1 && s[i-2] == '+' {
			n.start = i - 2
			n.plus = true
		}
	} else if i > 0 && s[i-1] == '+' && (i < 2 || !isAlnum(s[i-2])) {
		n.start = i - 1
		n.plus = true
	} else if spacedPlusAt(s, i) {
		n.start = i - 2
		n.plus = true
	}
	k := i
	for {
		g0 := k
		for k < len(s) && isDigit(s[k]) {
			if n.nd < len(n.d) {
				n.d[n.nd] = s[k]
				n.nd++
			} else {
				n.over = true
			}
			k++
		}
		if n.ng < len(n.glen) {
			n.glen[n.ng] = uint8(min(k-g0, 255))
			n.ng++
		} else {
			n.over = true
		}
		// Separator?
		var sep byte
		adv := 0
		if k+1 < len(s) {
			c := s[k]
			switch {
			case (c == ' ' || c == '-' || c == '.' || c == '/') && isDigit(s[k+1]):
				sep, adv = c, 1
			case c == '.' && s[k+1] == ' ' && k+2 < len(s) && isDigit(s[k+2]) && x.cueBefore(n.start, 48, dobCues):
				// "narozen 26. 5. 1945", "született 1959. 12. 06.": a date written with ". " after a birth cue.
				sep, adv = c, 2
			case c == ' ' && s[k+1] == '(' && k+2 < len(s) && isDigit(s[k+2]):
				sep, adv = '(', 2
				n.paren = true
			case c == '(' && isDigit(s[k+1]):
				sep, adv = '(', 1
				n.paren = true
			case c == ')' && isDigit(s[k+1]):
				sep, adv = ')', 1
			case c == ')' && s[k+1] == ' ' && k+2 < len(s) && isDigit(s[k+2]):
				sep, adv = ')', 2
			case c == ')' && s[k+1] == '-' && k+2 < len(s) && isDigit(s[k+2]):
				sep, adv = ')', 2
			case c == ' ' && s[k+1] == '-':
				if adv = dashGroupAt(s, k, n); adv > 0 {
					sep = '-'
				}
			}
		}
		if sep == 0 || n.over {
			break
		}
		// After a '-', '.' or '/' a space ends the run: "2000-04-16 11:34" is a date and a time.
		if sep == ' ' && n.ng >= 2 && (n.gsep[n.ng-1] == '-' || n.gsep[n.ng-1] == '.' || n.gsep[n.ng-1] == '/') {
			break
		}
		if n.ng < len(n.gsep) {
			n.gsep[n.ng] = sep
		}
		k += adv
	}
	if k < len(s) && s[k] == ')' && n.paren && n.ng == 1 {
		k++
	}
	// A phone extension ("555-0100x123") ends the run; its digits are not part of the number.
	if n.ng >= 2 && k+1 < len(s) && s[k] == 'x' && isDigit(s[k+1]) {
		k++
		for k < len(s) && isDigit(s[k]) {
			k++
		}
	}
	n.end = k
	// A CJK character next to a number does not make it part of a word: "请拨打010 2826 9006联系我".
	n.tail = k < len(s) && isWordByte(s[k]) && !(s[k] >= 0xE3 && s[k] <= 0xED)
}

// numeric handles a word s[i:j] that holds a digit (only digits when digits is set); it returns
// where scanning resumes.
func (x *scanCtx) numeric(i, j int, digits bool) int {
	s := x.s
	if !isDigit(s[i]) {
		if k := cjkDigits(s, i, j); k > i {
			return x.numeric(k, j, true)
		}
		return x.alnumWord(i, j)
	}
	if e := x.digitSecret(i, j); e > j {
		return e
	}
	if j-i <= 2 && j+4 < len(s) && s[j] == '-' && isAlpha(s[j+1]) {
		// "11-Oct-1997": a day before a hyphen and a month is no lone number (textDate).
		if da, db, ok := x.textDate(i, j); ok {
			if x.key == keyDOB || x.cueBefore(da, 48, dobCues) {
				x.add(TypeDOB, da, db, 0.9, "dob.context")
			}
			return db
		}
	}
	lone := j-i <= 4 && digits && x.loneShort(i, j)
	if lone && x.quietNumber(i, j) && !yearMarked(s, i, j) {
		return j
	}
	if j-i <= 4 {
		if da, db, ok := x.textDate(i, j); ok {
			if x.key == keyDOB || x.cueBefore(da, 48, dobCues) {
				x.add(TypeDOB, da, db, 0.9, "dob.context")
			}
			return db
		}
	}
	// "NO 02 1503 7577 003": an IBAN whose country code stands apart.
	if i >= 3 && s[i-1] == ' ' && isUpper(s[i-2]) && isUpper(s[i-3]) && (i == 3 || !isWordByte(s[i-4])) {
		if e := x.iban(i - 3); e > i {
			return e
		}
	}
	if lone {
		// One to four digits standing alone ("420 ms", "3 attempts"): no identifier, date or
		// phone number is that short, but a house number is.
		if e := x.address(i, j); e > j {
			return e
		}
		return j
	}
	n := &x.num
	*n = numSpan{}
	x.extractNum(i, n)
	if n.over {
		return n.end
	}
	if e := x.classifyNum(n); e > j {
		return e
	}
	if e := x.address(i, j); e > j {
		return e
	}
	if n.end > j && n.ng > 1 {
		// A run that is nothing we know (e.g. "3.14"): skip it whole, so its later groups are not
		// taken for numbers of their own.
		return n.end
	}
	return j
}

// quietNumber reports, for a number s[i:j] of one to four digits that stands alone
// (loneShort), that no detector can find anything at it, which is the case of most numbers in
// prose ("420 ms", "week 37"): no month name is next to it, so it is no date; and, in
// text that is not all lower case, neither neighbour is capitalised, a street word or a street
// prefix, so it is no house number. Each test is the cheap front of the detector it stands for
// (textDate, address), which would otherwise run in full.
func (x *scanCtx) quietNumber(i, j int) bool {
	s := x.s
	// After: "3 March", "3 of march", "3 de marzo", "12 Baker Street", "12 rue de Tanger".
	if k := skipSpace(s, j); k < len(s) {
		c := s[k]
		switch {
		case isUpper(c) || c >= 0x80 || isDigit(c):
			return false
		case isLower(c):
			m := k
			if strings.HasPrefix(s[k:], "of ") || strings.HasPrefix(s[k:], "de ") {
				m = k + 3
			} else if strings.HasPrefix(s[k:], "d'") {
				m = k + 2
			}
			if m < len(s) && monthFirst[s[m]] {
				if _, ok := isMonthAt(s, m); ok {
					return false
				}
			}
			if c == 'r' || c == 'a' {
				if w, ok := wordAt(s, k, false); ok && w.b-w.a <= 10 && streetPrefixes.hasFold(s[w.a:w.b]) {
					return false
				}
			}
		}
	}
	// Before: "March 3", "Friedhofstrasse 33", "Erzsébet tér 19", as textDate and address look.
	p := i - 1
	for p > 0 && s[p] == ' ' {
		p--
	}
	dot := p > 0 && s[p] == '.'
	if dot {
		p--
	}
	q := p
	for q >= 0 && q > p-10 && isAlpha(s[q]) {
		q--
	}
	if q < p && monthFirst[s[q+1]] {
		if _, ok := isMonthAt(s, q+1); ok {
			return false
		}
	}
	// The word before, as wordBefore reads it: the letters just read back, when they were
	// all of it (what stopped the reading is no part of a word), else read again.
	pw, ok := word{q + 1, p + 1}, q < p
	if dot || p < 1 || s[p] == ' ' || q >= 0 && (q <= p-10 || inWordTab[s[q]]) {
		pw, ok = wordBefore(s, i)
	}
	if ok && pw.b-pw.a < 30 && (capitalized(s, pw) || streetWords.hasFold(s[pw.a:pw.b])) {
		return false
	}
	return !isLowerText(s, i, j)
}

// loneShort reports whether extractNum would read the word s[i:j], all digits, as a single
// group: no '+' or '(' before it, and no separator followed by a digit after it.
func (x *scanCtx) loneShort(i, j int) bool {
	s := x.s
	if i > 0 && (s[i-1] == '+' || s[i-1] == '(') {
		return false
	}
	if j+1 < len(s) {
		switch s[j] {
		case ' ', '-', '.', '/', '(', ')':
			c := s[j+1]
			return !isDigit(c) && c != '(' && !(c == ' ' || c == '-') || s[j] == ' ' && c == ' '
		}
	}
	return true
}

// classifyNum emits the best reading of a number and returns n.end if it consumed it.
func (x *scanCtx) classifyNum(n *numSpan) int {
	s := x.s
	d := n.digits()
	nd := n.nd
	a, b := n.start, n.end

	// Dates come first: a date is never a phone number or an identifier.
	if y, ok := x.numericDate(n); ok {
		_ = y
		if x.key == keyDOB || x.cueBefore(a, 48, dobCues) || x.cueAround(a, b, 0, 24, dobCues) {
			x.add(TypeDOB, a, b, 0.9, "dob.context")
		}
		return b
	}
	sep := n.sameSep()
	if n.ng >= 3 && sep == '.' && !n.plus {
		if n.ng == 4 && allShort(n, 3) && !x.notOctets(n) || nd < 9 {
			return b // IP address or version number
		}
	}
	if n.ng == 2 && sep == '.' {
		return b // decimal number
	}
	if n.tail {
		// Number glued to letters: Spanish DNI (8 digits + letter), Finnish HETU, else nothing.
		return x.numberWithLetter(n)
	}
	if n.ng == 2 && n.glen[0] == 4 && n.glen[1] == 4 && isYear(d[:4]) && isYear(d[4:8]) {
		return b // "1990-2000"
	}
	if nd < 6 {
		if nd == 4 && b < len(s) && (s[b] == 0xE5 || s[b] == 0xEB) { // the first byte of 年, of 년
			if e := x.cjkDate(n); e > 0 {
				return e // "1962年8月11日"
			}
		}
		return a // too short for any identifier we know; maybe a house number
	}
	if x.key == keyLabel || x.labelledNumber(a) || x.labelledAfter(b) {
		return b // an order, SKU, invoice or tracking number
	}
	if nd >= 8 && nd <= 14 && x.gs1Number(n) {
		return b // a product's barcode
	}

	bestT, bestC, bestRule := Type(0), 0.0, ""
	try := func(t Type, c float64, rule string) {
		if c > bestC && !x.sc.disabled[t] {
			bestT, bestC, bestRule = t, c, rule
		}
	}
	contiguous := n.ng == 1

	// Payment cards.
	cardCue := x.key == keyCard || x.cueBefore(a, 40, cardCues) && !x.cueBefore(a, 40, idCardCues)
	if nd >= 12 && nd <= 19 && cardGrouping(n) && (iinOK(d) || cardCue) && luhn(d) && (cardCue || !x.cueBefore(a, 32, nationalCues)) {
		// With a card cue the Luhn check suffices; without one the number must also fall in an
		// issuer range.
		switch {
		case cardCue:
			try(TypeCard, 0.97, "card.luhn")
		case nd >= 14:
			try(TypeCard, 0.85, "card.luhn")
		default:
			try(TypeCard, 0.45, "card.luhn")
		}
	}
	switch nd {
	case 9:
		f324 := n.groups(3, 2, 4)
		if itinValid(d) && (f324 || contiguous) {
			switch {
			case x.cueBefore(a, 40, itinCues):
				try(TypeITIN, 0.95, "itin.format")
			case x.cueBefore(a, 40, ssnCues):
				// Called an SSN, a number in the ITIN ranges fails the SSN's rules.
			case f324:
				try(TypeITIN, 0.75, "itin.format")
			default:
				try(TypeITIN, 0.4, "itin.format")
			}
		}
		if ssnValid(d) && (f324 || contiguous) {
			switch {
			case x.key == keySSN || x.cueBefore(a, 40, ssnCues):
				try(TypeSSN, 0.97, "ssn.ssa")
			case f324 && sep != 0:
				try(TypeSSN, 0.75, "ssn.ssa")
			case f324:
				try(TypeSSN, 0.6, "ssn.ssa")
			default:
				try(TypeSSN, 0.4, "ssn.ssa")
			}
		}
		if abaValid(d) && (contiguous || n.groups(4, 4, 1)) {
			if x.key == keyRouting || x.cueBefore(a, 40, abaCues) {
				try(TypeABARouting, 0.96, "aba.checksum")
			} else {
				try(TypeABARouting, 0.4, "aba.checksum")
			}
		}
	case 10:
		if nhsValid(d) && (contiguous || n.groups(3, 3, 4)) {
			switch {
			case x.key == keyNHS || x.cueBefore(a, 40, nhsCues):
				try(TypeNHS, 0.97, "nhs.mod11")
			case !contiguous:
				try(TypeNHS, 0.55, "nhs.mod11")
			default:
				try(TypeNHS, 0.45, "nhs.mod11")
			}
		}
	}
	if t, c, rule := x.nationalNumber(n); t != 0 {
		try(t, c, rule)
	}
	if nd >= 7 && bestC < 0.9 && !x.namedNotPhone(a, nd) && !x.mistypedCard(n, d, cardCue) {
		if c, rule := x.phone(n); c > 0 {
			// A valid phone number outranks a bare checksum match of the same digits.
			if bestC < 0.6 || c >= bestC {
				try(TypePhone, c, rule)
			}
		}
	}
	// Context-only readings.
	if bestC < 0.8 && nd >= 6 && nd <= 17 && x.namedIDBefore(a, x.cueBefore(a, 48, nationalCues)) == "" {
		switch {
		case x.key == keyAccount || x.cueBefore(a, 32, accountCues) && !x.cueBefore(a, 32, routingCues):
			try(TypeBankAccount, 0.85, "bank_account.context")
		case x.key == keyPassport || (nd <= 9 && x.cueBefore(a, 40, passportCues)):
			try(TypePassport, 0.9, "passport.context")
		case x.key == keyDL || x.cueBefore(a, 40, dlCues):
			try(TypeDriversLicense, 0.85, "drivers_license.context")
		}
	}
	if bestT != 0 {
		x.add(bestT, a, b, bestC, bestRule)
		if bestC >= x.sc.minConf {
			return b
		}
	}
	_ = s
	return a
}

func allShort(n *numSpan, max int) bool {
	for g := range n.ng {
		if int(n.glen[g]) > max {
			return false
		}
	}
	return true
}

func isYear(d []byte) bool {
	y := atoi(d)
	return y >= 1900 && y <= 2099
}

// cardGrouping accepts the ways card numbers are written: contiguous, in fours (the last group
// may be shorter), or 4-6-5 / 4-6-4 (Amex, Diners), with one separator.
func cardGrouping(n *numSpan) bool {
	if n.ng == 1 {
		return true
	}
	if n.sameSep() == 0 || n.sameSep() == '.' || n.sameSep() == '/' {
		return false
	}
	if n.groups(4, 6, 5) || n.groups(4, 6, 4) {
		return true
	}
	for g := range n.ng - 1 {
		if n.glen[g] != 4 {
			return false
		}
	}
	l := n.glen[n.ng-1]
	return l >= 1 && l <= 4
}

// iinOK checks the issuer identification number ranges of the card networks against the length.
func iinOK(d []byte) bool {
	n := len(d)
	p2 := atoi(d[:2])
	p4 := atoi(d[:4])
	p6 := atoi(d[:6])
	switch d[0] {
	case '1':
		return n == 15 // UATP; JCB's 1800 range is 15 digits too
	case '2':
		// Mir (2200-2204) is 16 to 19 digits.
		return (p4 >= 2221 && p4 <= 2720 && n == 16) || (p4 == 2131 && n == 15) || (p4 == 2014 || p4 == 2149) && n == 15 ||
			p4 >= 2200 && p4 <= 2204 && n >= 16 && n <= 19
	case '3':
		switch {
		case p2 == 34 || p2 == 37:
			return n == 15
		case p2 == 30 || p2 == 36 || p2 == 38 || p2 == 39:
			return n >= 14 && n <= 19
		case p2 == 35:
			return p4 >= 3528 && p4 <= 3589 && n >= 16 && n <= 19
		}
		return false
	case '4':
		return n == 13 || n == 16 || n == 19
	case '5':
		if p2 >= 51 && p2 <= 55 {
			return n == 16
		}
		return n >= 12 && n <= 19 // Maestro 50, 56-59
	case '6':
		if p4 == 6011 || (p6 >= 622126 && p6 <= 622925) || (p2 == 64 && d[2] >= '4') || p2 == 65 {
			return n >= 16 && n <= 19
		}
		return n >= 12 && n <= 19 // Maestro, UnionPay 62, RuPay 60
	case '8':
		return p2 == 81 && n >= 16 && n <= 19
	case '9':
		return p4 == 9792 && n == 16 // Troy
	}
	return false
}

// numberWithLetter: digits directly followed by letters.
func (x *scanCtx) numberWithLetter(n *numSpan) int {
	s := x.s
	d := n.digits()
	a, b := n.start, n.end
	if e := x.ricWithX(n); e > b {
		return e
	}
	if e := x.ppsWord(n); e > b {
		return e
	}
	// Spanish DNI: 8 digits and the mod-23 letter.
	if n.ng == 1 && n.nd == 8 && b < len(s) && isAlpha(s[b]) && (b+1 >= len(s) || !isWordByte(s[b+1])) &&
		(isUpper(s[b]) || x.key == keyNationalID || x.cueBefore(a, 40, nationalCues)) {
		// A lower-case letter ("dni 11394319g") counts after a cue.
		if dniLetter[atoi(d)%23] == upper(s[b]) {
			c := 0.7
			if x.key == keyNationalID || x.cueBefore(a, 40, nationalCues) {
				c = 0.95
			}
			x.add(TypeNationalID, a, b+1, c, "es.dni")
			return b + 1
		}
	}
	return a
}

const dniLetter = "TRWAGMYFPDXBNJZSQVHLCKE"

var routingCues = newCues("routing")
