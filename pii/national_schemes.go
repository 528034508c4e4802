package pii

// More personal numbers, each with its issuing rule and check: Estonia's isikukood, Latvia's
// personas kods, Israel's Teudat Zehut number, South Africa's identity number and Thailand's
// personal identification number. Ireland's PPS number, which ends in letters, is read in prose by
// ppsWord. Like the others, a number held to one of these by a word that names it passes when the
// check fails: it is a mistyped identifier, and a ticket may quote one.

// schemeValidators are the digit-only identifiers tried after worldValidators.
var schemeValidators = []natValidator{
	{"ee.ik", 11, eeIKValid},
	{"lv.pk", 11, lvPKValid},
	{"il.idnr", 9, ilIDValid},
	{"za.idnr", 13, zaIDValid},
	{"th.pin", 13, thPINValid},
	{"tr.tckimlik", 11, trTCKValid}, // national_tr.go
}

// namedOnlyValidators are identifiers with no check digit nor date to tell them from any other
// number: they count only where a word or a sibling field names them.
var namedOnlyValidators = []natValidator{
	{"lv.pk", 11, func(d []byte) bool { return d[0] == '3' && d[1] == '2' && !allSame(d[2:]) }},
}

// namedValid reports whether the digits d pass the check of the identifier rule, named beside them.
func namedValid(rule string, d []byte) bool {
	for _, v := range allNatValidators {
		if v.rule == rule && v.n == len(d) && v.ok(d) {
			return true
		}
	}
	for _, v := range namedOnlyValidators {
		if v.rule == rule && v.n == len(d) && v.ok(d) {
			return true
		}
	}
	return false
}

// schemeFormat reports how likely n is the identifier when written the way its card prints it,
// with no word naming it.
func schemeFormat(n *numSpan, rule string) (float64, bool) {
	sep := n.sameSep()
	switch rule {
	case "lv.pk":
		// DDMMYY-CNNNN
		if n.groups(6, 5) && sep == '-' {
			return 0.85, true
		}
	case "za.idnr":
		// YYMMDD SSSS CAZ, or with Z apart.
		if (n.groups(6, 4, 3) || n.groups(6, 4, 2, 1)) && (sep == ' ' || sep == '-') {
			return 0.85, true
		}
	case "th.pin":
		// N-NNNN-NNNNN-NN-N
		if n.groups(1, 4, 5, 2, 1) && (sep == '-' || sep == ' ') {
			return 0.9, true
		}
	}
	return 0, false
}

// contextOnlyScheme reports identifiers with no layout of their own whose check a run of digits
// passes too often by chance (one in ten for a Luhn digit): they count after a word naming them.
func contextOnlyScheme(rule string) bool {
	switch rule {
	case "nl.bsn", "hr.oib", "au.tfn", "il.idnr", "ee.ik", "tr.tckimlik", "ch.ahv", "at.svnr", "ar.cuit", "ua.rntrc", "nz.ird":
		return true
	}
	return false
}

// eeIKValid checks an Estonian personal code: a sex-and-century digit (1-8), the date of birth,
// a serial and a check digit over two rounds of weights, as Lithuania's code has.
func eeIKValid(d []byte) bool {
	if d[0] < '1' || d[0] > '8' {
		return false
	}
	if !validDate(1800+100*int((d[0]-'1')/2)+atoi(d[1:3]), atoi(d[3:5]), atoi(d[5:7])) {
		return false
	}
	return balticCheck(d) == int(d[10]-'0')
}

// balticCheck is the check digit of the Estonian and Lithuanian codes: the weighted sum mod 11,
// with a second round of weights when the first gives 10, and 0 when both do.
func balticCheck(d []byte) int {
	c := weightedMod(d, []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 1}, 11)
	if c == 10 {
		c = weightedMod(d, []int{3, 4, 5, 6, 7, 8, 9, 1, 2, 3}, 11)
		if c == 10 {
			c = 0
		}
	}
	return c
}

// lvPKValid checks a Latvian personal code. One issued before July 2017 is DDMMYY, a century
// digit (1 for the 1900s, 2 for the 2000s; 0, for the 1800s, is held by no one alive), a serial
// and a check digit: one plus the weighted sum, mod 11, mod 10. One issued since starts with 32
// and holds no date.
func lvPKValid(d []byte) bool {
	if d[6] != '1' && d[6] != '2' || !validDate(1800+100*int(d[6]-'0')+atoi(d[4:6]), atoi(d[2:4]), atoi(d[0:2])) {
		return false
	}
	c := (1 + weightedMod(d, []int{10, 5, 8, 4, 2, 1, 6, 3, 7, 9}, 11)) % 11 % 10
	return c == int(d[10]-'0')
}

// ilIDValid checks an Israeli identity number (Teudat Zehut): nine digits, the last a Luhn check
// digit.
func ilIDValid(d []byte) bool {
	return !allSame(d) && luhn(d)
}

// zaIDValid checks a South African identity number: YYMMDD, a serial (its first digit the sex),
// citizenship (0 a citizen, 1 a permanent resident, 2 a refugee), a digit once the race and now
// 8 or 9, and a Luhn check digit.
func zaIDValid(d []byte) bool {
	if d[10] > '2' || !validDate(2000+atoi(d[0:2]), atoi(d[2:4]), atoi(d[4:6])) && !validDate(1900+atoi(d[0:2]), atoi(d[2:4]), atoi(d[4:6])) {
		return false
	}
	return luhn(d)
}

// thPINValid checks a Thai personal identification number: a first digit 1-8 (the kind of
// person), a province and district, and a check digit: 11 minus the sum of the first twelve
// digits weighted 13 down to 2, mod 11, mod 10.
func thPINValid(d []byte) bool {
	if d[0] < '1' || d[0] > '8' {
		return false
	}
	s := 0
	for i := range 12 {
		s += int(d[i]-'0') * (13 - i)
	}
	return (11-s%11)%10 == int(d[12]-'0')
}

// ppsWord reads a run of seven digits followed by one or two capital letters, n and the letters
// after it, as Ireland's PPS number when a word before it names an identifier and the check
// letter is right. It returns the end of the finding, or n.start.
func (x *scanCtx) ppsWord(n *numSpan) int {
	s := x.s
	a, b := n.start, n.end
	if n.ng != 1 || n.nd != 7 || b >= len(s) || !isAlpha(s[b]) {
		return a
	}
	e := b + 1
	if e < len(s) && isAlpha(s[e]) {
		e++
	}
	if e < len(s) && isWordByte(s[e]) {
		return a
	}
	if x.key != keyNationalID && !x.cueBefore(a, 40, nationalCues) {
		return a
	}
	var buf [9]byte
	u := append(buf[:0], n.digits()...)
	for k := b; k < e; k++ {
		u = append(u, upper(s[k]))
	}
	if !ppsValid(u) {
		return a
	}
	if named := x.namedIDBefore(a, true); named != "" && named != "ie.pps" {
		return a // "BSN 1234567T" is not a BSN
	}
	x.add(TypeNationalID, a, e, 0.95, "ie.pps")
	return e
}

// namedNotPhone reports whether a word naming an identifier of nd digits stands before the number
// at a with no phone word between them: "Verified caller with isikukood 3520…" names the number
// an isikukood, and if its check failed it is a mistyped one, not a phone number. A name whose
// identifier has another length ("my number is 0 7 9 1…" is no twelve-digit My Number) says
// nothing about the number.
func (x *scanCtx) namedNotPhone(a, nd int) bool {
	rule, q := x.namedIDBeforeAt(a, x.cueBefore(a, 48, nationalCues))
	if rule == "" || hasCue(x.s, q, a, strongPhoneCues) || hasFoldPrefix(x.s[q:], "my number") {
		return false // "my number is 0 7 9 1…" is how a phone number is given, too
	}
	for _, v := range allNatValidators {
		if v.rule == rule && v.n == nd {
			return true
		}
	}
	return false
}
