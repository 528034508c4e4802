package pii

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Passwords at the end of a clause. A password word and its value stand apart when the clause
// says what the password is for: "Salasanasi asukasportaaliin on maple.kofta27", "kata laluan
// sementara portal penyewa anda ialah kotek.kofta63", "ang password mo sa tenant portal ay
// ankara.volvo72". A joined-words password (pwslug.go) after such a clause is one when the word
// right before it is the clause's verb "to be", or ends in the colon that gives the value
// ("пароль від роутера: X"), and the password word is at most copulaSpan bytes
// back in the same sentence; a slug after any other word ("the password for eu-west-1") stays
// none.

const copulaSpan = 48

// pwCopulas are the forms of "to be" that end such a clause.
var pwCopulas = []string{"is", "was", "are", "er", "är", "je", "jest", "ay", "ialah", "adalah", "est", "es",
	"é", "è", "ist", "lautet", "zní", "brzmi", "blir", "bliver", "bude", "olur", "now", "nu",
	// Welsh, Albanian, Luxembourgish, Maltese, Catalan and Icelandic.
	"yw", "ydy", "ydi", "është", "eshte", "ass", "hu", "hi", "és", "verður",
	// Lithuanian, Romanian and Ukrainian.
	"yra", "este", "e", "це"}

// copulaAfterCue reports whether the password word that ends at ce and the value at ts stand in
// one clause that ends in a form of "to be".
func copulaAfterCue(s string, ce, ts int) bool {
	if ts-ce > copulaSpan || ts < 2 || s[ts-1] != ' ' {
		return false
	}
	e := ts - 1
	w := e
	for w > ce && s[w-1] != ' ' {
		w--
	}
	word := s[w:e]
	for k := ce; k < w; k++ {
		if c := s[k]; c == '.' || c == '!' || c == '?' || c == '\n' || c == ',' || c == ';' {
			return false // another clause or sentence between
		}
	}
	if len(word) > 1 && word[len(word)-1] == ':' {
		return true // "пароль від роутера: X": the clause ends in a colon that gives the value
	}
	if strings.EqualFold(word, "on") {
		// Finnish and Estonian "on"; in English "on" places the value ("stored on X").
		return hasFoldSuffix(s[:ce], "salasana") || hasFoldSuffix(s[:ce], "salasõna") || hasFoldSuffix(s[:ce], "parool")
	}
	for _, c := range pwCopulas {
		if strings.EqualFold(word, c) {
			return true
		}
	}
	return false
}

// pwCodeWords are words for a code that logs in which the cue list leaves out, since their first
// letters ("in", "to", "ni") begin too many words of prose for its per-byte filter: Dutch
// "inlogcode" and "toegangscode", Quebec French "NIP", Turkish "parola" with its endings. They are
// looked for only as one of the three words right before a value, past pwFillers.
const pwCodeWordList = `inlogcode toegangscode pincode nip parolanız parolaniz parolası parolasi parolan parolam`

var pwCodeWords = toSet(pwCodeWordList)

// codeWordBefore returns the end of a word of pwCodeWords among the three words before ts (past
// fillers and ':'), or in the clause that ends in a form of "to be" right before ts ("Votre NIP
// temporaire pour le portail est X"), at or after lo; or -1. Most values follow a word that is
// none of these and no filler: one load of codeCtxLens says so for most of them.
func codeWordBefore(s string, lo, ts int) int {
	e := ts
	for n := 0; n < 3; n++ {
		for e > lo && (s[e-1] == ' ' || s[e-1] == ':') {
			e--
		}
		a := e
		for a > lo && e-a <= 16 && s[a-1] != ' ' && s[a-1] != '\n' {
			a--
		}
		if a == e || e-a > 16 || codeCtxLens[s[a]|0x20]>>(e-a)&1 == 0 {
			return -1
		}
		var buf [16]byte
		kind := codeCtx[string(lowerInto(buf[:0], s[a:e]))]
		switch {
		case kind&ctxCode != 0:
			return e
		case n == 0 && kind&ctxCopula != 0:
			return codeWordInClause(s, lo, ts)
		case kind&ctxFiller == 0:
			return -1
		}
		e = a
	}
	return -1
}

const (
	ctxCode = 1 << iota
	ctxCopula
	ctxFiller
)

// codeCtx holds the words codeWordBefore looks for, with what each is; codeCtxLens[c] has bit n
// set when one of them starts with c (folded) and has n bytes.
var codeCtx, codeCtxLens = func() (m map[string]uint8, lens [256]uint32) {
	m = map[string]uint8{}
	for kind, ws := range map[uint8][]string{ctxCode: strings.Fields(pwCodeWordList), ctxCopula: pwCopulas, ctxFiller: pwFillers} {
		for _, w := range ws {
			if len(w) > 16 {
				continue
			}
			m[w] |= kind
			lens[w[0]|0x20] |= 1 << len(w)
		}
	}
	return m, lens
}()

// codeWordInClause returns the end of a word of pwCodeWords in the clause before ts, at most
// copulaSpan bytes back, or -1.
func codeWordInClause(s string, lo, ts int) int {
	a := max(lo, ts-copulaSpan-16) // the word may start before the span and end in it
	for e := ts; e > a; {
		k := e
		for k > a && s[k-1] != ' ' {
			k--
		}
		w := s[k:e]
		if strings.ContainsAny(w, ".,;!?\n") {
			return -1
		}
		var buf [16]byte
		if len(w) <= 16 && pwCodeWords.has(string(lowerInto(buf[:0], w))) {
			if ts-e <= copulaSpan {
				return e
			}
			return -1
		}
		e = k
		for e > a && s[e-1] == ' ' {
			e--
		}
	}
	return -1
}

// copulaAfterCode reports whether the word right before ts is a form of "to be".
func copulaAfterCode(s string, ce, ts int) bool {
	if ts < 2 || s[ts-1] != ' ' {
		return false
	}
	w := ts - 1
	for w > ce && s[w-1] != ' ' {
		w--
	}
	var buf [16]byte
	return ts-1-w <= 16 && codeCtx[string(lowerInto(buf[:0], s[w:ts-1]))]&ctxCopula != 0
}

// amount reports whether v is a sum of money: a currency sign before or after a number
// ("€1313", "₱450", "12,50€", "£1,299.00"). Such a token has a digit and a symbol, and after
// "the user wants a flat under" it is no password.
func amount(v string) bool {
	r, n := utf8.DecodeRuneInString(v)
	if unicode.Is(unicode.Sc, r) {
		return numeral(v[n:])
	}
	r, n = utf8.DecodeLastRuneInString(v)
	return unicode.Is(unicode.Sc, r) && numeral(v[:len(v)-n])
}

// numeral reports a number as sums are written: digits with ',', '.', '\” or ' ' between groups.
func numeral(v string) bool {
	digits := 0
	for i := 0; i < len(v); i++ {
		switch c := v[i]; {
		case isDigit(c):
			digits++
		case (c == ',' || c == '.' || c == '\'') && i > 0 && i < len(v)-1:
		default:
			return false
		}
	}
	return digits > 0
}
