package pii

import "strings"

// Identifiers that start with letters: IBAN, UK national insurance number, Italian fiscal code,
// Spanish NIE, UK and Canadian postcodes, and letter-led passport and licence numbers after a
// context word.

var ibanLen = map[string]int{
	"AD": 24, "AE": 23, "AL": 28, "AT": 20, "AZ": 28, "BA": 20, "BE": 16, "BG": 22, "BH": 22, "BI": 27,
	"BR": 29, "BY": 28, "CH": 21, "CR": 22, "CY": 28, "CZ": 24, "DE": 22, "DJ": 27, "DK": 18, "DO": 28,
	"EE": 20, "EG": 29, "ES": 24, "FI": 18, "FK": 18, "FO": 18, "FR": 27, "GB": 22, "GE": 22, "GI": 23,
	"GL": 18, "GR": 27, "GT": 28, "HN": 28, "HR": 21, "HU": 28, "IE": 22, "IL": 23, "IQ": 23, "IS": 26,
	"IT": 27, "JO": 30, "KW": 30, "KZ": 20, "LB": 28, "LC": 32, "LI": 21, "LT": 20, "LU": 20, "LV": 21,
	"LY": 25, "MC": 27, "MD": 24, "ME": 22, "MK": 19, "MN": 20, "MR": 27, "MT": 31, "MU": 30, "NI": 28,
	"NL": 18, "NO": 15, "OM": 23, "PK": 24, "PL": 28, "PS": 29, "PT": 25, "QA": 29, "RO": 24, "RS": 22,
	"RU": 33, "SA": 24, "SC": 31, "SD": 18, "SE": 24, "SI": 19, "SK": 24, "SM": 27, "SO": 23, "ST": 25,
	"SV": 28, "TL": 23, "TN": 24, "TR": 26, "UA": 29, "VA": 22, "VG": 24, "XK": 20, "YE": 30,
}

// alnumWord handles a word that starts with a letter and holds a digit.
func (x *scanCtx) alnumWord(i, j int) int {
	s := x.s
	w := j - i
	if w >= 4 && isAlpha(s[i]) && isAlpha(s[i+1]) && isDigit(s[i+2]) && isDigit(s[i+3]) {
		if e := x.iban(i); e > i {
			return e
		}
	}
	if e := x.nino(i); e > i {
		return e
	}
	if w == 16 {
		var buf [16]byte
		u := buf[:0]
		for k := i; k < j; k++ {
			u = append(u, upper(s[k]))
		}
		if codiceFiscaleValid(u) {
			x.add(TypeNationalID, i, j, 0.95, "it.codicefiscale")
			return j
		}
	}
	if w == 10 {
		if e := x.alnumID10(i, j); e > j {
			return e
		}
	}
	if w == 9 && (s[i] == 'X' || s[i] == 'Y' || s[i] == 'Z') {
		var buf [9]byte
		copy(buf[:], s[i:j])
		if nieValid(buf[:]) {
			c := 0.75
			if x.key == keyNationalID || x.cueBefore(i, 40, nationalCues) {
				c = 0.95
			}
			x.add(TypeNationalID, i, j, c, "es.nie")
			return j
		}
	}
	if w >= 2 && w <= 4 {
		if e := x.postcode(i, j); e > j {
			return e
		}
	}
	if w == 14 && isUpper(s[i]) && (x.key == keyNationalID || x.cueBefore(i, 40, nationalCues)) {
		var buf [14]byte
		u := buf[:0]
		for k := i; k < j; k++ {
			u = append(u, upper(s[k]))
		}
		if muNIDValid(u) {
			x.add(TypeNationalID, i, j, 0.95, "mu.nid") // national_nz_mu.go
			return j
		}
	}
	if w >= 6 && w <= 16 && isUpper(s[i]) {
		digits := 0
		for k := i; k < j; k++ {
			if isDigit(s[k]) {
				digits++
			} else if !isUpper(s[k]) {
				digits = -100
			}
		}
		if digits >= 5 {
			switch {
			case x.key == keyPassport || (w <= 9 && x.cueBefore(i, 40, passportCues)):
				x.add(TypePassport, i, j, 0.9, "passport.context")
				return j
			case x.key == keyDL || x.cueBefore(i, 40, dlCues):
				x.add(TypeDriversLicense, i, j, 0.85, "drivers_license.context")
				return j
			case (x.key == keyNationalID || x.cueBefore(i, 40, nationalCues)) && x.namedIDBefore(i, true) == "" && !checkedShape(s[i:j]):
				// Unless the context names an identifier whose check this value failed.
				x.add(TypeNationalID, i, j, 0.8, "national_id.context")
				return j
			}
		}
	}
	return i
}

// iban reads an IBAN at i, written compactly or in groups of four, in upper or lower case.
func (x *scanCtx) iban(i int) int {
	s := x.s
	if i+2 > len(s) {
		return i
	}
	want, ok := ibanLen[string([]byte{upper(s[i]), upper(s[i+1])})]
	if !ok {
		return i
	}
	// Collect exactly the country's length of letters and digits; single spaces or dashes may
	// separate groups of any size, as people write them.
	var buf [40]byte
	u := buf[:0]
	k := i
	end := i
	for k < len(s) && len(u) < want {
		c := s[k]
		switch {
		case isAlnum(c):
			u = append(u, upper(c))
			k++
			end = k
			continue
		case (c == ' ' || c == '-' || c == '.') && k > i && k+1 < len(s) && isAlnum(s[k+1]) && isAlnum(s[k-1]):
			k++
			continue
		}
		break
	}
	if len(u) != want || (end < len(s) && isWordByte(s[end])) || !isDigit(u[2]) || !isDigit(u[3]) || x.glued(i, end) {
		return i
	}
	// Letters all upper or all lower case: "LV80 bANK..." is not how an IBAN is written.
	up, lo := false, false
	for k := i; k < end; k++ {
		up = up || isUpper(s[k])
		lo = lo || isLower(s[k])
	}
	if up && lo {
		return i
	}
	// Move the country code and check digits to the end, then mod 97 must be 1.
	var r [40]byte
	rr := append(append(r[:0], u[4:]...), u[:4]...)
	if mod97(rr) != 1 && !digitLookalikes(rr) {
		if printedIBAN(s[i:end]) {
			// An IBAN mistyped or made up: its shape, its country's length and the way it is
			// written say what it is, and that it opens no account. No other reading (a national
			// identifier after "ID", a phone number in its digit groups) applies to it.
			return end
		}
		return i
	}
	x.add(TypeIBAN, i, end, 0.97, "iban.mod97")
	return end
}

// digitLookalikes reads the letters O, I and L of the account number in rr (an IBAN with its
// country code and check digits moved to the end) as the digits they stand for ("FR28 7349 9218
// 9452 I33I O423 355" written with look-alikes), in place, and reports whether mod 97 then
// holds. Only a run of such letters beside a digit is read so: a bank code of letters ("RDLC")
// is left as it is. It is tried only where the IBAN as written fails.
func digitLookalikes(rr []byte) bool {
	b := rr[:len(rr)-4]
	lookalike := func(c byte) bool { return c == 'O' || c == 'I' || c == 'L' }
	changed := false
	for k := 0; k < len(b); {
		if !lookalike(b[k]) {
			k++
			continue
		}
		e := k
		for e < len(b) && lookalike(b[e]) {
			e++
		}
		if k > 0 && isDigit(b[k-1]) || e < len(b) && isDigit(b[e]) {
			for m := k; m < e; m++ {
				if b[m] == 'O' {
					b[m] = '0'
				} else {
					b[m] = '1'
				}
			}
			changed = true
		}
		k = e
	}
	return changed && mod97(rr) == 1
}

// printedIBAN reports whether v is written as IBANs are: in one piece, or in groups of four
// under one separator with a shorter last group. Other groupings ("AT 0664 123 4567", a phone
// number after a word that is a country code) are no evidence of an IBAN.
func printedIBAN(v string) bool {
	k := strings.IndexAny(v, " -.")
	if k < 0 {
		return true
	}
	sep := v[k]
	for {
		if k != 4 {
			return false
		}
		v = v[k+1:]
		k = strings.IndexByte(v, sep)
		if k < 0 {
			return len(v) <= 4 && !strings.ContainsAny(v, " -.")
		}
	}
}

// nino reads a UK national insurance number: two prefix letters, six digits (optionally in
// pairs) and a suffix A-D.
func (x *scanCtx) nino(i int) int {
	s := x.s
	if i+9 > len(s) || !isUpper(s[i]) || !isUpper(s[i+1]) {
		return i
	}
	p0, p1 := s[i], s[i+1]
	if containsByte("DFIQUV", p0) || containsByte("DFIOQUV", p1) {
		return i
	}
	switch string([]byte{p0, p1}) {
	case "BG", "GB", "KN", "NK", "NT", "TN", "ZZ":
		return i
	}
	k := i + 2
	digits := 0
	for digits < 6 && k < len(s) {
		if s[k] == ' ' && digits%2 == 0 && k+1 < len(s) && isDigit(s[k+1]) {
			k++
			continue
		}
		if !isDigit(s[k]) {
			return i
		}
		digits++
		k++
	}
	if digits != 6 {
		return i
	}
	if k < len(s) && s[k] == ' ' {
		k++
	}
	if k >= len(s) || !containsByte("ABCD", s[k]) || (k+1 < len(s) && isWordByte(s[k+1])) {
		return i
	}
	c := 0.85
	if x.key == keyNINO || x.cueBefore(i, 40, ninoCues) {
		c = 0.97
	}
	x.add(TypeNINO, i, k+1, c, "nino.format")
	return k + 1
}

// postcode recognises full UK postcodes ("SW1A 1AA") and Canadian postal codes ("K1A 0B1"). A
// postcode narrows an address to a few households, so it counts as part of an address.
func (x *scanCtx) postcode(i, j int) int {
	s := x.s
	w := s[i:j]
	if j+4 > len(s) || s[j] != ' ' {
		return i
	}
	in := s[j+1 : j+4]
	if j+4 < len(s) && isWordByte(s[j+4]) {
		return i
	}
	// Canadian: A1A 1A1.
	if len(w) == 3 && isUpper(w[0]) && isDigit(w[1]) && isUpper(w[2]) && isDigit(in[0]) && isUpper(in[1]) && isDigit(in[2]) {
		x.add(TypeAddress, i, j+4, 0.6, "address.postcode")
		return j + 4
	}
	// UK: outward A9, A9A, A99, AA9, AA9A, AA99; inward 9AA.
	if !isDigit(in[0]) || !isUpper(in[1]) || !isUpper(in[2]) || !isUpper(w[0]) {
		return i
	}
	ok := false
	switch len(w) {
	case 2:
		ok = isDigit(w[1])
	case 3:
		ok = isDigit(w[1]) && (isDigit(w[2]) || isUpper(w[2])) || isUpper(w[1]) && isDigit(w[2])
	case 4:
		ok = isUpper(w[1]) && isDigit(w[2]) && (isDigit(w[3]) || isUpper(w[3]))
	}
	if !ok {
		return i
	}
	x.add(TypeAddress, i, j+4, 0.6, "address.postcode")
	return j + 4
}

var ninoCues = newCues("ni number", "nino", "national insurance", "insurance number")
