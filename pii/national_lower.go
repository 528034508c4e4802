package pii

// Identifiers typed in lower case. A careless writer types "my dni is 11394319g", "nie:
// y8271409w", "ni number ck040334c": the letters of an identifier are capitals by its issuing
// rule, and the checks are the same in either case. A word of lower-case letters and digits is
// read in capitals only after a word that names an identifier, so that words like "abc12345x"
// elsewhere cost nothing and say nothing.

// lowerID handles s[i:j], a word of lower-case letters and digits starting with a letter, after a
// national identifier's cue: a NIE, a NINO, a PAN, a codice fiscale... whose check passes in
// capitals. It returns the end of a finding, or i.
func (x *scanCtx) lowerID(i, j int) int {
	if j-i < 8 || j-i > 18 || j < len(x.s) && isWordByte(x.s[j]) || !x.cueBefore(i, 40, nationalCues) {
		return i
	}
	var buf [18]byte
	u := buf[:0]
	for k := i; k < j; k++ {
		u = append(u, upper(x.s[k]))
	}
	if ninoWord(u) {
		x.add(TypeNINO, i, j, 0.9, "nino.format")
		return j
	}
	if rule, ok := alnumNational(string(u)); ok {
		x.add(TypeNationalID, i, j, 0.9, rule)
		return j
	}
	return i
}

// ninoWord reports a National Insurance number written without spaces, in capitals: two prefix
// letters of the issuing rule, six digits and a suffix from A to D.
func ninoWord(u []byte) bool {
	if len(u) != 9 || !isUpper(u[0]) || !isUpper(u[1]) || containsByte("DFIQUV", u[0]) || containsByte("DFIOQUV", u[1]) {
		return false
	}
	switch string(u[:2]) {
	case "BG", "GB", "KN", "NK", "NT", "TN", "ZZ":
		return false
	}
	return isDigits(u[2:8]) && containsByte("ABCD", u[8])
}
