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

var monthNames = []string{"january", "february", "march", "april", "may", "june", "july", "august",
	"september", "october", "november", "december", "jan", "feb", "mar", "apr", "jun", "jul", "aug",
	"sep", "sept", "oct", "nov", "dec", "januar", "februar", "märz", "mai", "juni", "juli", "oktober",
	"dezember", "janvier", "février", "mars", "avril", "juin", "juillet", "août", "septembre",
	"octobre", "novembre", "décembre"}

// isMonthAt reports whether a month name starts at i and returns its end.
func isMonthAt(s string, i int) (int, bool) {
	if i+3 > len(s) {
		return i, false
	}
	if !monthFirst[s[i]] {
		return i, false
	}
	k := uint32(lower(s[i])) | uint32(lower(s[i+1]))<<8 | uint32(lower(s[i+2]))<<16
	switch {
	case s[i+1] >= 0x80 || s[i+2] >= 0x80: // märz, décembre, février, août
	default:
		switch k {
		case 'j' | 'a'<<8 | 'n'<<16, 'f' | 'e'<<8 | 'b'<<16, 'm' | 'a'<<8 | 'r'<<16, 'a' | 'p'<<8 | 'r'<<16, 'm' | 'a'<<8 | 'y'<<16, 'j' | 'u'<<8 | 'n'<<16, 'j' | 'u'<<8 | 'l'<<16, 'a' | 'u'<<8 | 'g'<<16, 's' | 'e'<<8 | 'p'<<16, 'o' | 'c'<<8 | 't'<<16, 'n' | 'o'<<8 | 'v'<<16, 'd' | 'e'<<8 | 'c'<<16, 'm' | 'a'<<8 | 'i'<<16, 'a' | 'v'<<8 | 'r'<<16, 'j' | 'u'<<8 | 'i'<<16:
		default:
			return i, false
		}
	}
	j := i
	for j < len(s) && isWordByte(s[j]) {
		j++
	}
	if j-i < 3 || j-i > 9 {
		return i, false
	}
	var buf [16]byte
	w := lowerInto(buf[:0], s[i:j])
	for _, m := range monthNames {
		if string(w) == m {
			if j < len(s) && s[j] == '.' {
				j++
			}
			return j, true
		}
	}
	return i, false
}

// monthFirst holds the first letters of month names, in either case.
var monthFirst = func() (t [256]bool) {
	for _, c := range "jfmasondJFMASOND" {
		t[c] = true
	}
	return t
}()

// textDate recognises "3 March 1990", "3rd of March, 1990", "March 3, 1990" and "March 3rd 1990"
// around the number word s[i:j]; it returns the span.
func (x *scanCtx) textDate(i, j int) (int, int, bool) {
	s := x.s
	nd := 0
	for k := i; k < j && isDigit(s[k]); k++ {
		nd++
	}
	day := nd <= 2 && (nd == j-i || isOrdinal(s[i+nd:j]))
	if !day {
		return 0, 0, false
	}
	// Day first: "3 March 1990", "3rd of March 1990".
	k := skipSpace(s, j)
	if k+3 < len(s) && s[k:k+3] == "of " {
		k += 3
	}
	if me, ok := isMonthAt(s, k); ok {
		if ye, ok := yearAfter(s, me); ok {
			return i, ye, true
		}
	}
	// Month first: "March 3, 1990". The year is the cheaper test.
	ye, ok := yearAfter(s, j)
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
