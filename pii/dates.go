package pii

// Dates. A date alone is not personal data; a date of birth is. Dates are recognised so that they
// are never read as phone numbers or identifiers, and reported as DOB only with a birth cue
// ("born", "date of birth", "DOB") or under a birth-date key.

// numericDate recognises d/m/y, m/d/y, y-m-d (any one of / . - as separator).
func (x *scanCtx) numericDate(n *numSpan) (int, bool) {
	if n.ng != 3 {
		return 0, false
	}
	sep := n.sameSep()
	if sep != '/' && sep != '.' && sep != '-' {
		return 0, false
	}
	d := n.digits()
	g0, g1, g2 := int(n.glen[0]), int(n.glen[1]), int(n.glen[2])
	a := atoi(d[:g0])
	b := atoi(d[g0 : g0+g1])
	c := atoi(d[g0+g1:])
	switch {
	case g0 == 4 && g1 <= 2 && g2 <= 2:
		return a, validDate(a, b, c)
	case g0 <= 2 && g1 <= 2 && (g2 == 4 || g2 == 2):
		y := c
		if g2 == 2 {
			y += 1900
		}
		return y, validDate(y, b, a) || validDate(y, a, b)
	}
	return 0, false
}

// textDate recognises "3 March 1990", "3rd of March, 1990", "March 3, 1990", "March 3rd 1990" and
// the Iberian "3 de marzo de 1990" and "3 d'abril de 1990" around the number word s[i:j]; it
// returns the span.
func (x *scanCtx) textDate(i, j int) (int, int, bool) {
	s := x.s
	nd := 0
	for k := i; k < j && isDigit(s[k]); k++ {
		nd++
	}
	day := nd <= 2 && (nd == j-i || isOrdinal(s[i+nd:j]))
	if !day {
		if nd == 4 {
			return x.yearFirstDate(i, j)
		}
		return 0, 0, false
	}
	// Day first: "3 March 1990", "3rd of March 1990", "3. März 1990".
	k := skipSpace(s, j)
	if k == j && j+1 < len(s) && s[j] == '.' && s[j+1] == ' ' {
		k = skipSpace(s, j+1)
	}
	if k == j && nd == j-i && j+1 < len(s) && s[j] == '-' {
		// Hyphens around an abbreviated month, as clinical and military records write a date:
		// "11-Oct-1997", "03-MAR-62".
		if me, ok := isMonthAt(s, j+1); ok && me < len(s) && s[me] == '-' {
			if ye, ok := shortYearAfter(s, me+1); ok {
				return i, ye, true
			}
		}
		return 0, 0, false
	}
	if k+3 < len(s) && (s[k:k+3] == "of " || s[k:k+3] == "de ") {
		k += 3 // "3rd of March", "3 de enero de 1985"
	} else if k+2 < len(s) && s[k:k+2] == "d'" {
		k += 2 // Catalan before a vowel: "3 d'abril de 1985"
	}
	if me, ok := isMonthAt(s, k); ok {
		if m := skipSpace(s, me); m+3 < len(s) && (s[m:m+3] == "de " || s[m:m+3] == "del") {
			me = m + 3 // "… de 1985", "… del 1985"
		}
		if ye, ok := yearAfter(s, me); ok {
			return i, ye, true
		}
	}
	// Month first: "March 3, 1990", "Oct 27 '81". The year is the cheaper test.
	ye, ok := yearAfter(s, j)
	if !ok && j+3 < len(s) && s[j] == ' ' && s[j+1] == '\'' {
		ye, ok = shortYearAfter(s, j+1)
	}
	if !ok {
		return 0, 0, false
	}
	p := i - 1
	for p > 0 && s[p] == ' ' {
		p--
	}
	if p > 0 && s[p] == '.' {
		p--
	}
	q := p
	for q >= 0 && q > p-10 && isAlpha(s[q]) {
		q--
	}
	if q < p && (q < 0 || !isAlpha(s[q])) {
		if _, ok := isMonthAt(s, q+1); ok {
			return q + 1, ye, true
		}
	}
	return 0, 0, false
}

func isOrdinal(t string) bool {
	return t == "st" || t == "nd" || t == "rd" || t == "th"
}

func skipSpace(s string, i int) int {
	for i < len(s) && s[i] == ' ' {
		i++
	}
	return i
}

// yearAfter accepts an optional comma and a four-digit year after position i.
func yearAfter(s string, i int) (int, bool) {
	if i < len(s) && s[i] == ',' {
		i++
	}
	i = skipSpace(s, i)
	if i+4 <= len(s) && isDigits([]byte(s[i:i+4])) && (i+4 == len(s) || !isWordByte(s[i+4])) {
		y := atoi([]byte(s[i : i+4]))
		if y >= 1880 && y <= 2100 {
			return i + 4, true
		}
	}
	return i, false
}

// shortYearAfter accepts at i a four-digit year, two digits ("03-MAR-62") or two digits after an
// apostrophe ("Oct 27 '81").
func shortYearAfter(s string, i int) (int, bool) {
	if e, ok := yearAfter(s, i); ok {
		return e, true
	}
	if i < len(s) && s[i] == '\'' {
		i++
	}
	if i+2 <= len(s) && isDigit(s[i]) && isDigit(s[i+1]) && (i+2 == len(s) || !isWordByte(s[i+2])) {
		return i + 2, true
	}
	return i, false
}

// isDateValue reports whether a whole value is a date in a common format.
func isDateValue(v string) bool {
	x := scanCtx{s: v}
	for i := 0; i < len(v); i++ {
		if isDigit(v[i]) {
			var n numSpan
			x.extractNum(i, &n)
			if _, ok := x.numericDate(&n); ok {
				return true
			}
			j := i
			for j < len(v) && isWordByte(v[j]) {
				j++
			}
			if _, _, ok := x.textDate(i, j); ok {
				return true
			}
			// ISO timestamps: 1990-03-04T00:00:00Z.
			if n.ng == 3 && n.glen[0] == 4 && n.end < len(v) && v[n.end] == 'T' {
				n.tail = false
				if _, ok := x.numericDate(&n); ok {
					return true
				}
			}
			return false
		}
	}
	return false
}
