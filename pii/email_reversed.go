package pii

// An address written backwards ("moc.liamg@eod.enaj", "ku.oc.oohay@01analp") to pass a scanner
// by: read from the right it is an address. It is tried only at an '@' whose right side is a
// single label, which no address has, and only when the left side opens with a common top-level
// domain spelt backwards ("moc.", "ed.", "ku.oc."), so that "dev@buildhost" stays what it is.

// reversedAt reports the address written backwards around the '@' at i, and returns where
// scanning resumes, or i.
func (x *scanCtx) reversedAt(i int) int {
	s := x.s
	a := i
	for a > 0 && (isAlnum(s[a-1]) || s[a-1] == '.' || s[a-1] == '-') {
		a--
	}
	e := i + 1
	for e < len(s) && (isAlnum(s[e]) || s[e] == '.' || s[e] == '_' || s[e] == '-' || s[e] == '+') {
		e++
	}
	if e-i < 2 || i-a < 4 || e-a > 128 {
		return i
	}
	// The left side, read backwards, is the domain: its first label is the top-level domain.
	dot := a
	for dot < i && s[dot] != '.' {
		dot++
	}
	if dot == i || dot-a < 2 || dot-a > 4 || !reversedTLD(s[a:dot]) {
		return i
	}
	x.add(TypeEmail, a, e, 0.85, "email.reversed")
	return e
}

// reversedTLD reports whether w, spelt backwards, is a common top-level domain.
func reversedTLD(w string) bool {
	var b [4]byte
	n := len(w)
	for k := 0; k < n; k++ {
		c := w[k]
		if !isLower(c) && !isUpper(c) {
			return false
		}
		b[n-1-k] = c | 0x20
	}
	return commonTLDs.has(string(b[:n]))
}

// commonTLDs are the generic top-level domains and the country codes of most mail.
var commonTLDs = toSet(`com net org edu gov mil int info biz io co me app dev de fr uk it es nl be at ch se
no dk fi pl pt ie br ar mx cl ru ua cz sk hu ro gr tr jp cn in au nz ca us eu za ng ke kr tw hk sg my id ph vn th il ae sa`)
