package pii

// National identity numbers with check digits. Each validator takes the bare digits. Most of
// these numbers are plain digit runs, so without a context word (or a key such as "pesel") they
// score below the default threshold; a format peculiar to the id (Swedish YYMMDD-NNNN, Czech
// YYMMDD/NNNN, Belgian YY.MM.DD-NNN.CC, Norwegian DDMMYY NNNNN, French NIR) scores above it.

type natValidator struct {
	rule string
	n    int
	ok   func(d []byte) bool
}

var natValidators = []natValidator{
	{"pl.pesel", 11, peselValid},
	{"de.steuerid", 11, steuerIDValid},
	{"lt.asmens", 11, balticValid},
	{"gr.amka", 11, amkaValid},
	{"no.fodselsnummer", 11, fnrValid},
	{"be.nn", 11, beNNValid},
	{"se.personnummer", 10, sePNRValid},
	{"is.kennitala", 10, kennitalaValid},
	{"cz.rc", 10, czRCValid},
	{"bg.egn", 10, egnValid},
	{"fi.hetu", 10, func(d []byte) bool { return false }}, // needs its century sign; see hetuAt
	{"se.personnummer", 12, sePNR12Valid},
	{"ro.cnp", 13, cnpValid},
	{"si.emso", 13, emsoValid},
	{"fr.nir", 15, nirValid},
	{"nl.bsn", 9, bsnValid},
	{"hr.oib", 11, func(d []byte) bool { return d[0] != '0' && iso7064Mod11_10(d) }},
}

// nationalNumber tries the validators for the digit count of n.
func (x *scanCtx) nationalNumber(n *numSpan) (Type, float64, string) {
	d := n.digits()
	if len(d) < 8 || len(d) > 18 {
		return 0, 0, ""
	}
	cue := x.key == keyNationalID || x.cueBefore(n.start, 48, nationalCues)
	named := x.namedIDBefore(n.start, cue)
	if !cue && hasCue(x.s, n.end, n.end+48, nationalCues) {
		// "Can you look up 62282473149? It's the PESEL from the claim."
		cue = true
		named = x.namedIDAfter(n.end)
	}
	if named == "" && x.key == keyNationalID {
		named = x.siblingID
	}
	if named == "us.ssn" && len(d) == 15 {
		named = "fr.nir" // France's social security number
	}
	if named != "" {
		if namedValid(named, d) {
			return TypeNationalID, 0.95, named
		}
		return 0, 0, ""
	}
	bestC, bestRule := 0.0, ""
	for _, v := range allNatValidators {
		if v.n != len(d) || namedOnlyScheme(v.rule) || !v.ok(d) {
			continue
		}
		c := 0.4
		switch {
		case cue:
			return TypeNationalID, 0.92, v.rule
		case contextOnlyScheme(v.rule):
			continue // no format of their own: context only
		case natFormat(n, v.rule):
			c = 0.85
		default:
			if wc, ok := worldFormat(n, v.rule); ok {
				c = wc
			} else if sc, ok := schemeFormat(n, v.rule); ok {
				c = sc
			}
		}
		if c > bestC {
			bestC, bestRule = c, v.rule
		}
	}
	if bestC == 0 {
		return 0, 0, ""
	}
	return TypeNationalID, bestC, bestRule
}

// natFormat reports whether n is written the way the id is usually written.
func natFormat(n *numSpan, rule string) bool {
	sep := n.sameSep()
	switch rule {
	case "se.personnummer":
		return (n.groups(6, 4) || n.groups(8, 4)) && sep == '-'
	case "is.kennitala":
		return n.groups(6, 4) && sep == '-'
	case "cz.rc":
		return n.groups(6, 4) && sep == '/'
	case "no.fodselsnummer":
		return n.groups(6, 5) && (sep == ' ' || sep == '-')
	case "be.nn":
		return n.groups(2, 2, 2, 3, 2)
	case "fr.nir":
		return n.groups(1, 2, 2, 2, 3, 3, 2) || n.ng == 1 || n.groups(13, 2)
	case "ro.cnp", "si.emso", "pl.pesel", "gr.amka", "lt.asmens", "bg.egn", "de.steuerid":
		return false
	}
	return false
}

// nationalValue validates a whole value known (from its key) to be a national id.
func nationalValue(v string) (string, bool) {
	var buf [40]byte
	d := buf[:0]
	letters := 0
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch {
		case isDigit(c):
			if len(d) == len(buf) {
				return "", false
			}
			d = append(d, c)
		case c == ' ' || c == '-' || c == '.' || c == '/' || c == '+':
		default:
			letters++
		}
	}
	if letters == 0 {
		for _, nv := range allNatValidators {
			if nv.n == len(d) && !namedOnlyScheme(nv.rule) && nv.ok(d) {
				return nv.rule, true
			}
		}
	}
	if r, ok := alnumNational(v); ok {
		return r, true
	}
	return "", false
}

// nationalValueAs is nationalValue held to the identifier named beside the value, if any: a
// number under {"document_type":"PESEL"} that fails PESEL's check is a mistyped PESEL, even if
// its digits pass another country's check of the same length.
func nationalValueAs(v, named string) (string, bool) {
	if named == "" {
		return nationalValue(v)
	}
	var buf [40]byte
	d := buf[:0]
	for i := 0; i < len(v) && len(d) < len(buf); i++ {
		if isDigit(v[i]) {
			d = append(d, v[i])
		} else if !oneOf(v[i], " -./+") {
			d = nil
			break
		}
	}
	if d != nil && namedValid(named, d) {
		return named, true
	}
	if r, ok := alnumNational(v); ok && r == named {
		return r, true
	}
	return "", false
}

// alnumNational validates ids that contain letters.
func alnumNational(v string) (string, bool) {
	var buf [24]byte
	u := buf[:0]
	for i := 0; i < len(v); i++ {
		c := v[i]
		if c == ' ' || c == '-' || c == '.' {
			continue
		}
		if len(u) == len(buf) {
			return "", false
		}
		u = append(u, upper(c))
	}
	switch {
	case len(u) == 18 && ricValid(u):
		return "cn.ric", true
	case len(u) == 10 && panValid(u):
		return "in.pan", true
	case len(u) == 10 && idCardDEValid(u):
		return "de.idcard", true
	case len(u) == 16 && codiceFiscaleValid(u):
		return "it.codicefiscale", true
	case len(u) == 9 && nieValid(u):
		return "es.nie", true
	case len(u) == 9 && isDigits(u[:8]) && dniLetter[atoi(u[:8])%23] == u[8]:
		return "es.dni", true
	case len(u) == 11 && hetuValid(u):
		return "fi.hetu", true
	case (len(u) == 12 || len(u) == 11) && ptCCValid(u):
		return "pt.cc", true
	case len(u) >= 8 && len(u) <= 9 && ppsValid(u):
		return "ie.pps", true
	}
	return "", false
}

func upper(c byte) byte {
	if isLower(c) {
		return c - 32
	}
	return c
}

func isDigits(b []byte) bool {
	for _, c := range b {
		if !isDigit(c) {
			return false
		}
	}
	return len(b) > 0
}

func peselValid(d []byte) bool {
	w := []int{1, 3, 7, 9, 1, 3, 7, 9, 1, 3}
	c := (10 - weightedMod(d, w, 10)) % 10
	if c != int(d[10]-'0') {
		return false
	}
	y, m, day := atoi(d[0:2]), atoi(d[2:4]), atoi(d[4:6])
	century := 1900
	switch {
	case m > 80:
		century, m = 1800, m-80
	case m > 60:
		century, m = 2200, m-60
	case m > 40:
		century, m = 2100, m-40
	case m > 20:
		century, m = 2000, m-20
	}
	return validDate(century+y, m, day)
}

func steuerIDValid(d []byte) bool {
	if d[0] == '0' || !iso7064Mod11_10(d) {
		return false
	}
	var cnt [10]int
	for _, c := range d[:10] {
		cnt[c-'0']++
	}
	multi := 0
	for _, k := range cnt {
		if k > 3 {
			return false
		}
		if k >= 2 {
			multi++
		}
	}
	return multi == 1
}

func balticValid(d []byte) bool {
	if d[0] < '1' || d[0] > '6' {
		return false
	}
	w1 := []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 1}
	w2 := []int{3, 4, 5, 6, 7, 8, 9, 1, 2, 3}
	c := weightedMod(d, w1, 11)
	if c == 10 {
		c = weightedMod(d, w2, 11)
		if c == 10 {
			c = 0
		}
	}
	if c != int(d[10]-'0') {
		return false
	}
	century := 1800 + 100*int((d[0]-'1')/2)
	return validDate(century+atoi(d[1:3]), atoi(d[3:5]), atoi(d[5:7]))
}

func amkaValid(d []byte) bool {
	return luhn(d) && validDate(1900+atoi(d[4:6]), atoi(d[2:4]), atoi(d[0:2]))
}

func fnrValid(d []byte) bool {
	day, m := atoi(d[0:2]), atoi(d[2:4])
	if day > 40 {
		day -= 40 // D-number
	}
	if m > 40 {
		m -= 40 // H-number
	}
	if m > 12 && m <= 32 {
		m -= 20 // synthetic test numbers
	}
	if !validDate(2000, m, day) {
		return false
	}
	k := func(w []int, at int) bool {
		c := 11 - weightedMod(d, w, 11)
		if c == 11 {
			c = 0
		}
		return c != 10 && c == int(d[at]-'0')
	}
	return k([]int{3, 7, 6, 1, 8, 9, 4, 5, 2}, 9) && k([]int{5, 4, 3, 2, 7, 6, 5, 4, 3, 2}, 10)
}

func beNNValid(d []byte) bool {
	n := atoi(d[:9])
	c := atoi(d[9:11])
	if !(97-n%97 == c || 97-(2000000000+n)%97 == c) {
		return false
	}
	m, day := atoi(d[2:4]), atoi(d[4:6])
	return (m == 0 && day == 0) || validDate(2000, m, day) || validDate(2000, m-20, day) || validDate(2000, m-40, day)
}

func sePNRValid(d []byte) bool {
	day := atoi(d[4:6])
	if day > 60 {
		day -= 60 // co-ordination number
	}
	return luhn(d) && validDate(2000, atoi(d[2:4]), day)
}

func sePNR12Valid(d []byte) bool {
	y := atoi(d[0:4])
	return y >= 1850 && y <= 2099 && sePNRValid(d[2:])
}

func kennitalaValid(d []byte) bool {
	day := atoi(d[0:2])
	if day > 40 {
		day -= 40 // organisations
	}
	if !validDate(2000, atoi(d[2:4]), day) || (d[9] != '9' && d[9] != '0' && d[9] != '8') {
		return false
	}
	c := 11 - weightedMod(d, []int{3, 2, 7, 6, 5, 4, 3, 2}, 11)
	if c == 11 {
		c = 0
	}
	return c != 10 && c == int(d[8]-'0')
}

func czRCValid(d []byte) bool {
	m := atoi(d[2:4])
	switch {
	case m > 70:
		m -= 70
	case m > 50:
		m -= 50
	case m > 20:
		m -= 20
	}
	if !validDate(2000, m, atoi(d[4:6])) {
		return false
	}
	n := atoi(d)
	return n%11 == 0 || (atoi(d[:9])%11 == 10 && d[9] == '0')
}

func egnValid(d []byte) bool {
	c := weightedMod(d, []int{2, 4, 8, 5, 10, 9, 7, 3, 6}, 11)
	if c == 10 {
		c = 0
	}
	if c != int(d[9]-'0') {
		return false
	}
	y, m := atoi(d[0:2]), atoi(d[2:4])
	switch {
	case m > 40:
		y, m = 2000+y, m-40
	case m > 20:
		y, m = 1800+y, m-20
	default:
		y += 1900
	}
	return validDate(y, m, atoi(d[4:6]))
}

func cnpValid(d []byte) bool {
	if d[0] < '1' || d[0] > '8' {
		return false
	}
	c := weightedMod(d, []int{2, 7, 9, 1, 4, 6, 3, 5, 8, 2, 7, 9}, 11)
	if c == 10 {
		c = 1
	}
	return c == int(d[12]-'0') && validDate(2000, atoi(d[3:5]), atoi(d[5:7]))
}

// emsoValid checks a Slovene EMŠO, the JMBG of the former Yugoslavia: 11 less the weighted
// sum mod 11, where both 10 and 11 give a check digit of 0.
func emsoValid(d []byte) bool {
	c := 11 - weightedMod(d, []int{7, 6, 5, 4, 3, 2, 7, 6, 5, 4, 3, 2}, 11)
	if c >= 10 {
		c = 0
	}
	return c == int(d[12]-'0') && validDate(2000, atoi(d[2:4]), atoi(d[0:2]))
}

func nirValid(d []byte) bool {
	if d[0] != '1' && d[0] != '2' && d[0] != '3' && d[0] != '4' && d[0] != '7' && d[0] != '8' {
		return false
	}
	n := 0
	for _, c := range d[:13] {
		n = (n*10 + int(c-'0')) % 97
	}
	m := atoi(d[3:5])
	return 97-n == atoi(d[13:15]) && (m >= 1 && m <= 12 || m >= 20 && m <= 42 || m >= 50 && m <= 99)
}

func bsnValid(d []byte) bool {
	s := 0
	for i := range 8 {
		s += int(d[i]-'0') * (9 - i)
	}
	s -= int(d[8] - '0')
	return s%11 == 0 && s != 0
}

var cfOdd = [36]int{1, 0, 5, 7, 9, 13, 15, 17, 19, 21, 1, 0, 5, 7, 9, 13, 15, 17, 19, 21, 2, 4, 18, 20, 11, 3, 6, 8, 12, 14, 16, 10, 22, 25, 24, 23}

// codiceFiscaleValid checks an Italian fiscal code (with omocodia substitutions) and its control letter.
func codiceFiscaleValid(u []byte) bool {
	const omo = "LMNPQRSTUV"
	for i, c := range u[:15] {
		switch i {
		case 0, 1, 2, 3, 4, 5, 8, 11:
			if !isUpper(c) {
				return false
			}
		default:
			if !isDigit(c) && !containsByte(omo, c) {
				return false
			}
		}
	}
	if !containsByte("ABCDEHLMPRST", u[8]) {
		return false
	}
	sum := 0
	for i, c := range u[:15] {
		var v int
		if isDigit(c) {
			v = int(c - '0')
		} else {
			v = int(c-'A') + 10
		}
		if i%2 == 0 {
			sum += cfOdd[v]
		} else if isDigit(c) {
			sum += int(c - '0')
		} else {
			sum += int(c - 'A')
		}
	}
	return u[15] == byte('A'+sum%26)
}

func containsByte(s string, c byte) bool {
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			return true
		}
	}
	return false
}

func nieValid(u []byte) bool {
	v := int(u[0]) - 'X'
	if v < 0 || v > 2 || !isDigits(u[1:8]) {
		return false
	}
	return dniLetter[(v*10000000+atoi(u[1:8]))%23] == u[8]
}

const hetuCheck = "0123456789ABCDEFHJKLMNPRSTUVWXY"

// hetuValid checks a Finnish personal identity code DDMMYYCZZZQ.
func hetuValid(u []byte) bool {
	if !isDigits(u[:6]) || !isDigits(u[7:10]) || !containsByte("+-ABCDEFUVWXY", u[6]) {
		return false
	}
	if !validDate(2000, atoi(u[2:4]), atoi(u[0:2])) {
		return false
	}
	n := atoi(u[:6])*1000 + atoi(u[7:10])
	return hetuCheck[n%31] == u[10]
}

// ptCCValid checks a Portuguese citizen card number: 8 digits, a check digit, two letters or
// digits and a final check digit, with letters counting 10..35 in a doubled Luhn-style sum.
func ptCCValid(u []byte) bool {
	if len(u) == 11 {
		return false
	}
	if !isDigits(u[:9]) || !isDigit(u[11]) {
		return false
	}
	sum := 0
	for i := 11; i >= 0; i-- {
		c := u[i]
		var v int
		switch {
		case isDigit(c):
			v = int(c - '0')
		case isUpper(c):
			v = int(c-'A') + 10
		default:
			return false
		}
		if (11-i)%2 == 1 {
			v *= 2
			if v > 9 {
				v -= 9
			}
		}
		sum += v
	}
	return sum%10 == 0
}

// ppsValid checks an Irish PPS number: 7 digits, a check letter (mod 23) and an optional letter.
func ppsValid(u []byte) bool {
	if !isDigits(u[:7]) || !isUpper(u[7]) {
		return false
	}
	sum := 0
	for i := range 7 {
		sum += int(u[i]-'0') * (8 - i)
	}
	if len(u) == 9 {
		if !isUpper(u[8]) {
			return false
		}
		if u[8] != 'W' {
			sum += (int(u[8]-'A') + 1) * 9
		}
	}
	return "WABCDEFGHIJKLMNOPQRSTUV"[sum%23] == u[7]
}
