package pii

import "strings"

// A phone number split over named members: {"country_code":"+45","area":"22","number":"216909"}.
// Numbers side by side in a list read as phone numbers too often for a joined view to report
// phone numbers in general; members whose names say they are a number's country code and its
// subscriber number (with an area code between, if any) are one, and their values are read as
// "+CC AREA NUMBER", a phone number only if the numbering plan of the country code says so.

// phoneRole says whether a member named k holds a phone number's country code ('c'), its area
// code ('a') or its subscriber number ('n').
func phoneRole(k string) byte {
	var buf [64]byte
	n := string(normKey(buf[:0], k))
	switch {
	case inList(n, "countrycode", "callingcode", "dialcode", "dialingcode", "phonecountrycode", "countrycallingcode",
		"intlprefix", "internationalprefix", "cc", "phonecc"):
		return 'c'
	case inList(n, "area", "areacode", "ndc", "citycode", "trunk", "prefix", "phoneareacode"):
		return 'a'
	case inList(n, "number", "subscriber", "subscribernumber", "localnumber", "phonenumber", "phone", "mobile", "tel",
		"line", "nationalnumber"):
		return 'n'
	}
	return 0
}

// phoneParts reads a country code, an area code and a subscriber number in named parts as one
// phone number, and returns its findings on the parts.
func (x *scanCtx) phoneParts(parts []jpart, key keyKind) []jhit {
	c, a, n := -1, -1, -1
	for i, p := range parts {
		switch phoneRole(p.key) {
		case 'c':
			c = i
		case 'a':
			a = i
		case 'n':
			n = i
		}
	}
	if c < 0 {
		return x.signedCodeRun(parts, key)
	}
	lone := false
	if c >= 0 && n < 0 {
		n, lone = loneNumberPart(parts, c, a), true
	}
	if c < 0 || n < 0 {
		return nil
	}
	cc := strings.TrimSpace(parts[c].s)
	if !strings.HasPrefix(cc, "+") {
		cc = "+" + strings.TrimLeft(cc, "0")
	}
	if len(cc) < 2 || len(cc) > 5 || !isDigits([]byte(cc[1:])) {
		return nil
	}
	pick := []int{c}
	v := cc + " "
	offs := []int{0, len(v)}
	sub := []jpart{{s: cc + " ", seg: parts[c].seg, key: parts[c].key}}
	if a >= 0 {
		v += parts[a].s + " "
		offs = append(offs, len(v))
		pick = append(pick, a)
		sub = append(sub, jpart{s: parts[a].s + " ", seg: parts[a].seg, key: parts[a].key})
	}
	pn := spacedGroups(parts[n])
	v += pn.s
	offs = append(offs, len(v))
	pick = append(pick, n)
	sub = append(sub, pn)
	x.joinPhone = true
	hits := x.joinScan(nil, v, sub, offs, key)
	x.joinPhone = false
	if lone {
		hits = planValid(hits)
	}
	for i := range hits {
		if hits[i].part == len(sub)-1 {
			hits[i].f.Start, hits[i].f.End = unspace(parts[n], pn, hits[i].f.Start), unspace(parts[n], pn, hits[i].f.End)
		}
		hits[i].part = pick[hits[i].part]
		// Not the space the view put after the country and area codes.
		hits[i].f.End = min(hits[i].f.End, len(parts[hits[i].part].s))
	}
	return hits
}

// signedCodeRun reads a country code written with its '+' as a part of its own, and the groups of
// digits in the parts right after it, as one phone number: cells and fragments carry a number so
// without names ({"fragments":["+506","608","14802"]}, [{"v":"+354"},{"v":"7702"},{"v":"955"}]).
// The '+' says what the part is, and the number counts only if the plan of the country code says
// it is one (planValid): lists of small numbers after a "+1" are many, numbers of a plan few.
func (x *scanCtx) signedCodeRun(parts []jpart, key keyKind) []jhit {
	for c, p := range parts {
		cc := strings.TrimSpace(p.s)
		if len(cc) < 2 || len(cc) > 4 || cc[0] != '+' || !isDigits([]byte(cc[1:])) || c+1 == len(parts) {
			continue
		}
		v := cc + " "
		sub := []jpart{{s: v, seg: p.seg, key: p.key}}
		offs := []int{0, len(v)}
		pick := []int{c}
		nd := 0
		for g := c + 1; g < len(parts) && nd < 15; g++ {
			d, ok := digitGroupLen(parts[g].s)
			if !ok {
				break
			}
			nd += d
			sub = append(sub, jpart{s: parts[g].s + " ", seg: parts[g].seg, key: parts[g].key})
			v += parts[g].s + " "
			offs = append(offs, len(v))
			pick = append(pick, g)
		}
		if len(pick) < 2 || nd < 4 || nd > 14 {
			continue
		}
		x.joinPhone = true
		hits := planValid(x.joinScan(nil, v, sub, offs, key))
		x.joinPhone = false
		for i := range hits {
			hits[i].part = pick[hits[i].part]
			hits[i].f.End = min(hits[i].f.End, len(parts[hits[i].part].s)) // not the space after each
		}
		return hits
	}
	return nil
}

// digitGroupLen returns the number of digits of s when s is a group of a written number: digits,
// with spaces or '-' between them.
func digitGroupLen(s string) (int, bool) {
	n := 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case isDigit(c):
			n++
		case (c == ' ' || c == '-') && i > 0 && i < len(s)-1:
		default:
			return 0, false
		}
	}
	return n, n > 0
}
