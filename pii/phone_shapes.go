package pii

// Phone shapes the numbering plans alone cannot judge: digits spaced out one by one to slip past a
// scanner ("call me on 0 6 1 2 3 4 5 6 7 8"), which are a phone number after a phone word, and
// the layouts of national identifiers ("959-81-0529", "771.642.411-45", "3033 0779 1073"), which
// are not phone numbers unless a phone word says they are, whether or not their check digit holds.

// spacedPhone reports whether n is a number written one digit at a time (optionally with '-'
// between runs of single digits), long enough for a phone number, after a strong phone cue.
func (x *scanCtx) spacedPhone(n *numSpan) bool {
	if n.nd < 8 || n.ng < n.nd-3 {
		return false
	}
	for g := range n.ng {
		if n.glen[g] != 1 {
			return false
		}
	}
	return x.cueBefore(n.start, 40, strongPhoneCues) || x.cueBefore(n.start, 24, spacedPhoneCues)
}

// spacedPhoneCues are the words before a spaced-out number that say it is someone's number.
var spacedPhoneCues = newCues("my number", "number is", "number:", "reach me", "contact me")

// idKey reports whether a key names an identifier other than a phone number: a number under it is
// that identifier, valid or not ({"sin_number": "165 996 206"} with a failing check digit).
func idKey(k keyKind) bool {
	switch k {
	case keySSN, keyNationalID, keyPassport, keyDL, keyNHS, keyNINO, keyCard, keyIBAN, keyAccount, keyRouting:
		return true
	}
	return false
}

// idLayout reports whether n is written as a national identifier is and no phone number is: a US
// SSN's 3-2-4 groups, a Brazilian CPF's ddd.ddd.ddd-dd, or twelve digits in three groups of four
// with no trunk 0 (Aadhaar, My Number). A phone word before it still makes it a phone number.
func (x *scanCtx) idLayout(n *numSpan) bool {
	if n.plus || n.paren {
		return false
	}
	g := n.glen[:n.ng]
	switch {
	case n.ng == 3 && g[0] == 3 && g[1] == 2 && g[2] == 4 && n.gsep[1] == n.gsep[2] && (n.gsep[1] == '-' || n.gsep[1] == ' '):
	case n.ng == 4 && g[0] == 3 && g[1] == 3 && g[2] == 3 && g[3] == 2 && n.gsep[1] == '.' && n.gsep[2] == '.' && n.gsep[3] == '-':
	case n.ng == 3 && g[0] == 4 && g[1] == 4 && g[2] == 4 && n.d[0] != '0' && n.gsep[1] == n.gsep[2]:
	default:
		return false
	}
	return !x.cueBefore(n.start, 40, strongPhoneCues)
}
