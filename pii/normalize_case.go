package pii

import (
	"encoding/binary"
	"math/bits"
	"strings"
	"unicode"
	"unicode/utf8"
	"unsafe"
)

// Text written in capitals ("PLEASE CC LUIGI MOREIRA ON THE THREAD") or in alternating case
// ("pLeAsE cC lUiGi mOrEiRa") has lost what letter case tells the detectors: every word looks
// like a name, an acronym or a constant, and the cue words ("password", "diagnosed",
// "contraseña") are not spelt as the lists spell them. Such a string is read again in lower
// case, with the words the name lists hold capitalised again (capitalizeNames), and what that
// view finds stands beside what the text as given showed; the names found on the text as given
// are dropped, for where every word is capitalised a capital says nothing of a name.
//
// The prefilter costs prose nothing it does not already pay: the scan counts the words in
// capitals and those that start in lower case and hold a capital as it stops at them
// (normState.caseWords), and only a string with two such (or one of the second kind) is read
// word by word (caseCandidate).

const (
	// minCaseWords is the number of words of two letters or more a string needs before its
	// letter case is judged.
	minCaseWords = 2
	// caseLead is how far ordinary words may outnumber odd ones before the judgement stops:
	// prose in ordinary case is answered within its first few words.
	caseLead = 5
)

// caseCandidate reports whether s is written mostly in capitals or in alternating case: of its
// runs of two ASCII letters or more not glued to a digit or an underscore, at least
// minCaseWords and more than half hold a capital after their first letter ("CC", "MOREIRA",
// "mOrEiRa", "apiKey"). It reads no further than the point where ordinary runs (all lower case,
// or capitalised) lead the odd ones by caseLead, and answers a longer text whose first 64 bytes
// hold few capitals at once.
func caseCandidate(s string) bool {
	if len(s) < 5 || strings.IndexByte(s, ' ') < 0 {
		return false // one word (a member name, a tag), or none
	}
	if len(s) >= 64 && fewCapitals(s[:64]) {
		return false
	}
	words, odd := 0, 0
	for i := 0; i < len(s); {
		if ctab[s[i]]&(cUpper|cLower) == 0 {
			i++
			continue
		}
		e := i + 1
		var m uint8 // the classes of the letters after the first
		for e < len(s) {
			k := ctab[s[e]]
			if k&(cUpper|cLower) == 0 {
				break
			}
			m |= k
			e++
		}
		if e-i >= 2 && !caseGlued(s, i, e) {
			words++
			if m&cUpper != 0 {
				odd++
			} else if words-odd >= odd+caseLead {
				return false
			}
		}
		i = e
	}
	return words >= minCaseWords && 2*odd > words
}

// fewCapitals reports whether the 64 bytes of s hold more than six small ASCII letters for
// each capital, as prose in ordinary case does: eight bytes are counted at once.
func fewCapitals(s string) bool {
	const (
		lo7 = 0x7f7f7f7f7f7f7f7f
		hi8 = 0x8080808080808080
	)
	b := unsafe.Slice(unsafe.StringData(s), 64)
	var up, low int
	for k := 0; k < 64; k += 8 {
		w := binary.LittleEndian.Uint64(b[k:])
		x := w & lo7
		// For a byte x below 0x80, x+(0x80-c) sets the byte's high bit iff x >= c.
		up += bits.OnesCount64((x + 0x3f3f3f3f3f3f3f3f) &^ (x + 0x2525252525252525) &^ w & hi8)  // 'A'..'Z'
		low += bits.OnesCount64((x + 0x1f1f1f1f1f1f1f1f) &^ (x + 0x0505050505050505) &^ w & hi8) // 'a'..'z'
	}
	return low > 6*up
}

// caseGlued reports whether the letters s[i:e] are glued to a digit or an underscore: a piece
// of a token or an identifier ("GB77SSOL…", "MAX_RETRIES"), whose case is the value's.
func caseGlued(s string, i, e int) bool {
	return i > 0 && caseGlue[s[i-1]] || e < len(s) && caseGlue[s[e]]
}

// caseGlue holds the bytes that glue letters into a token: digits, '_', and the signs of
// escapes and encodings ('%', '=', '\\', '&', '#', '+', '/').
var caseGlue = func() (t [256]bool) {
	for _, c := range "0123456789_%=\\&#+/" {
		t[c] = true
	}
	return t
}()

// caseFoldView returns s with the letters of its words in lower case (the capitals of other
// scripts too, where the small letter is as long in UTF-8, so that offsets keep) and the words
// that the name lists hold capitalised again (see shoutNameWord), with the identity map of its
// offsets; at is nil when no letter changed. A word that holds a digit or a sign other than an
// apostrophe, a hyphen between letters or a full stop at its end ("S.A.R.L.", "SK-PROJ-…",
// "PUBLISH_CRED=…", base64) keeps its case: there the case is the value's, not the writer's.
func caseFoldView(s string) (string, []int32) {
	var b []byte
	for i := 0; i < len(s); {
		if caseBreak[s[i]] {
			i++
			continue
		}
		e, plain := i, true
		for e < len(s) && !caseBreak[s[e]] {
			if c := s[e]; c < utf8.RuneSelf && !isUpper(c) && !isLower(c) && c != '\'' {
				plain = plain && (c == '-' && e > i && e+1 < len(s) && isAlpha(s[e-1]) && isAlpha(s[e+1]) ||
					(c == '.' || c == '?' || c == '!') && caseWordEnd(s, e))
			}
			e++
		}
		if plain {
			b = caseLowerRange(b, s, i, e)
		}
		i = e
	}
	if b == nil {
		return "", nil
	}
	capitalizeNames(b)
	at := make([]int32, len(b)+1)
	for k := range at {
		at[k] = int32(k)
	}
	return string(b), at
}

// caseBreak holds the bytes between words for caseFoldView: spaces, brackets, quotes and the
// marks that end a clause.
var caseBreak = func() (t [256]bool) {
	for _, c := range " \t\n\r<>()[]{}\",;:*`|" {
		t[c] = true
	}
	return t
}()

// caseWordEnd reports whether the sign at e only ends the word (a full stop before a space or
// the end), so that the word is still plain.
func caseWordEnd(s string, e int) bool {
	return e+1 == len(s) || caseBreak[s[e+1]]
}

// caseLowerRange writes s[i:e] in lower case into b (a copy of s made on the first change).
func caseLowerRange(b []byte, s string, i, e int) []byte {
	for i < e {
		c := s[i]
		if c < utf8.RuneSelf {
			if isUpper(c) {
				if b == nil {
					b = []byte(s)
				}
				b[i] = c + 32
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if l := unicode.ToLower(r); l != r && utf8.RuneLen(l) == n {
			if b == nil {
				b = []byte(s)
			}
			utf8.EncodeRune(b[i:], l)
		}
		i += n
	}
	return b
}

// capitalizeNames capitalises, in the lower-case text b, the words that the name lists hold as
// a given name or a surname (shoutNameWord), and the two after "name is" (afterNameIs). Only
// listed words are otherwise: the shapes and endings that caseView also trusts in prose written
// in lower case ("-ski", the words after "ask") make names of every word of a text in capitals
// in a language the lists do not know.
func capitalizeNames(b []byte) {
	s := string(b)
	for i := 0; i < len(b); {
		if !isAlpha(b[i]) {
			i++
			continue
		}
		e := i
		for e < len(b) && isAlpha(b[e]) {
			e++
		}
		if e-i >= 3 && e-i <= 32 && (i == 0 || !isAlnum(b[i-1]) && b[i-1] != '_') {
			if c, n := capitalFirst(s[i:e]); n > 0 && (shoutNameWord(c+s[i+n:e], s[i:e]) ||
				afterNameIs(s, i) && !notNames.has(s[i:e]) && !namePairStop.has(s[i:e])) {
				copy(b[i:], c)
			}
		}
		i = e
	}
}

// shoutNameWord reports whether w (capitalised; lw in lower case) is a name of the lists: a
// given name, or a surname the surname list holds, and no word that starts or follows no name.
func shoutNameWord(w, lw string) bool {
	return !notNames.has(lw) && !namePairStop.has(lw) && !idCueWords.has(lw) && (isGivenName(w) || inNameList(surnames(), w))
}

// idCueWords are the one-word cues that label an identifier ("iban", "nino", "pan", "visa"):
// in capitals they are the label, never a name ("REFUND TO IBAN …").
var idCueWords = func() *wordSet {
	var b strings.Builder
	for _, c := range idCues.cues {
		if c = strings.TrimSpace(c); len(c) >= 2 && strings.IndexFunc(c, func(r rune) bool { return r < 'a' || r > 'z' }) < 0 {
			b.WriteString(c + " ")
		}
	}
	return toSet(b.String())
}()

// dropCaseNames removes from x.out[x.base:] the names found by reading capitals in the text as
// given at this level of views (see caseCandidate) whose own words are in capitals or in
// alternating case; a name written as names are ("ATTENDEE;CN=Eitan Dahan;ROLE=…"), found
// under a member name that says so, or in a view, stays.
func (x *scanCtx) dropCaseNames() {
	out := x.out[:x.base]
	for _, f := range x.out[x.base:] {
		if f.Type == TypeName && f.Via == x.via && f.Rule != "name.key" && !titleCased(x.s[f.Start:f.End]) {
			continue
		}
		out = append(out, f)
	}
	x.out = out
}

// titleCased reports whether every run of two ASCII letters or more in s is a capital followed
// by small letters, and there is one.
func titleCased(s string) bool {
	runs := 0
	for i := 0; i < len(s); {
		if !isUpper(s[i]) && !isLower(s[i]) {
			i++
			continue
		}
		e := i + 1
		small := true
		for e < len(s) && (isUpper(s[e]) || isLower(s[e])) {
			small = small && isLower(s[e])
			e++
		}
		if e-i >= 2 {
			if !isUpper(s[i]) || !small {
				return false
			}
			runs++
		}
		i = e
	}
	return runs > 0
}
