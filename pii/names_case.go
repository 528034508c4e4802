package pii

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Prose written all in lower case ("my name is olga krylova", "follow up with monika žilková")
// has lost the capitals that the name detectors start from, and the scan's loop, which skips
// lower-case letters, never stops in it. Such a string is read again in a view in which the
// words that the name lists know as names, or that have a surname's ending, are capitalised,
// and only the names found in it count. The lists hold no word that the dictionary writes in
// lower case ("frank", "will", "grace"), so a common word is never capitalised.

// lowerProse reports whether s is prose written in lower case: at least three words and no
// ASCII capital letter. Text with a capital is answered at its first one.
func lowerProse(s string) bool {
	if len(s) < 12 {
		return false
	}
	spaces := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if isUpper(c) {
			return false
		}
		if c == ' ' {
			spaces++
		}
	}
	return spaces >= 2
}

// caseView returns s with the first letter of each word that may be a name capitalised, and
// the identity map of its offsets; at is nil when no word was changed.
func caseView(s string) (string, []int32) {
	var b []byte
	next := 0 // words after a cue or a given name to capitalise as well (see nextCaseWord)
	for i := 0; i < len(s); {
		if !isAlpha(s[i]) {
			i++
			continue
		}
		e := i
		for e < len(s) && (isAlpha(s[e]) || s[e] == '\'' && e+1 < len(s) && isLower(s[e+1])) {
			e++
		}
		if e-i >= 2 && e-i <= 32 && (i == 0 || !isAlnum(s[i-1]) && s[i-1] != '_' && s[i-1] != '-' && s[i-1] != '/') {
			if c, n := capitalFirst(s[i:e]); n > 0 {
				w := c + s[i+n:e]
				given := e-i >= 3 && isGivenName(w)
				if given || e-i >= 3 && knownSurname(w) || afterNameIs(s, i) && !notNames.has(s[i:e]) && !namePairStop.has(s[i:e]) ||
					next > 0 && nextCaseWord(s[i:e]) {
					if b == nil {
						b = []byte(s)
					}
					copy(b[i:], c)
					next--
				} else {
					next = 0
				}
				switch {
				case given && next < 1 && verbAfterNext(s, e):
					next = 1 // "kevin monnard called": the surname after a given name, before a verb
				case loneCueWords.has(s[i:e]) && fullNameNext(s, e):
					next = 2 // "ask nuriyet sakarya": the two words after a cue for a person
				}
			}
		}
		i = e
	}
	if b == nil {
		return "", nil
	}
	at := make([]int32, len(b)+1)
	for k := range at {
		at[k] = int32(k)
	}
	return string(b), at
}

// nextCaseWord reports whether the lower-case word w, after a cue for a person or a given name,
// may be a name the lists do not know: three letters or more, and no word of the sets that
// start or follow no name ("the", "about", "called").
func nextCaseWord(w string) bool {
	return len(w) >= 3 && !notNames.has(w) && !namePairStop.has(w) && !afterFirstWords.has(w) &&
		!personPreps.has(w) && !modalVerbs.has(w) && !loneCueWords.has(w) && !strings.Contains(w, "'")
}

// verbAfterNext reports whether the word after the next one from e is a verb that follows a
// person's name ("kevin monnard called again"): a given name alone before a word the lists do not
// know ("mac ignored") is no name.
func verbAfterNext(s string, e int) bool {
	_, w2 := nextTwoWords(s, e)
	return afterFirstWords.has(w2)
}

// fullNameNext reports whether the two words after e may both be names ("ask nuriyet sakarya"),
// not a name and a word ("ask support about").
func fullNameNext(s string, e int) bool {
	w1, w2 := nextTwoWords(s, e)
	return nextCaseWord(w1) && nextCaseWord(w2)
}

// nextTwoWords returns the two words after e, each of at most 16 bytes, or "".
func nextTwoWords(s string, e int) (string, string) {
	var ws [2]string
	k := e
	for w := range ws {
		for k < len(s) && s[k] == ' ' {
			k++
		}
		a := k
		for k < len(s) && (isAlpha(s[k]) || s[k] == '\'') {
			k++
		}
		if k == a || k-a > 16 {
			break
		}
		ws[w] = s[a:k]
	}
	return ws[0], ws[1]
}

// afterNameIs reports whether the word at i is one of the two after "name is " ("my name is
// przemek kucharski"): the words a person gives as their name, whether a list knows them or not.
func afterNameIs(s string, i int) bool {
	k := i
	for w := 0; w < 2; w++ {
		if strings.HasSuffix(s[:k], "name is ") {
			return true
		}
		// Back over one word and its space.
		j := k - 1
		for j > 0 && s[j-1] != ' ' {
			j--
		}
		if j <= 0 || k-j > 33 || s[k-1] != ' ' {
			return false
		}
		k = j
	}
	return false
}

// capitalFirst returns the capital of w's first letter and that letter's length in bytes, or
// n == 0 when the capital is not as long (so that offsets keep) or there is none.
func capitalFirst(w string) (string, int) {
	if c := w[0]; c < 0x80 {
		if !isLower(c) {
			return "", 0
		}
		return string(rune(c - 32)), 1
	}
	r, n := utf8.DecodeRuneInString(w)
	u := unicode.ToUpper(r)
	if u == r || utf8.RuneLen(u) != n || !unicode.IsLetter(r) {
		return "", 0
	}
	return string(u), n
}

// acceptCaseName keeps the names found in a case view; whatever else it holds was found in the
// text as given.
func acceptCaseName(_ string, f Finding) bool { return f.Type == TypeName }
