package pii

import (
	"strings"
	"unicode/utf8"
)

// Digits spelt out or held apart. A number is as surely given as "zero seven nine one one…",
// "null-vier-zwei…", "plus trois trois six…" or "0🙂9🙂0…", "+ then 4 then 4…" as in digits: a
// person reading it gets the number, and a gate that looks for runs of digits does not. The
// digit-words view writes each run of seven or more digits so given (number words of English,
// French, Spanish, Portuguese, Italian, German and Dutch, or single digits, "plus" or "+" first)
// as the digits, with what stood between them dropped: spaces, punctuation, symbols and emoji, or
// one connective repeated ("then", "dann", "puis", "luego", "poi"…). Only numbers are kept of
// what it finds (phone numbers, identifiers, cards and accounts): glued words make no names.
//
// It runs on texts of at most maxDigitWordText bytes, where an agent's message or a field is:
// finding the words costs a pass over the text, which long prose is spared.

const (
	maxDigitWordText = 512
	// minDigitWords is the fewest digits a run holds to be read as a number: fewer make no
	// phone number or identifier, and "one, two, three" in prose stays as it is.
	minDigitWords = 7
	// maxDigitGap bounds the bytes between two digits of a run (an emoji and a space or two).
	maxDigitGap = 12
)

// digitWords maps the number words, in lower case, to their digits.
var digitWords = func() map[string]byte {
	m := map[string]byte{}
	for _, l := range [...][10]string{
		{"zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"},
		{"zéro", "un", "deux", "trois", "quatre", "cinq", "six", "sept", "huit", "neuf"},
		{"cero", "uno", "dos", "tres", "cuatro", "cinco", "seis", "siete", "ocho", "nueve"},
		{"zero", "um", "dois", "três", "quatro", "cinco", "seis", "sete", "oito", "nove"},
		{"zero", "uno", "due", "tre", "quattro", "cinque", "sei", "sette", "otto", "nove"},
		{"null", "eins", "zwei", "drei", "vier", "fünf", "sechs", "sieben", "acht", "neun"},
		{"nul", "een", "twee", "drie", "vier", "vijf", "zes", "zeven", "acht", "negen"},
	} {
		for d, w := range l {
			m[w] = byte('0' + d)
		}
	}
	m["oh"] = '0'
	m["zwo"] = '2'
	return m
}()

// digitConnectives are the words that may stand between the digits of a run, the same one each
// time.
var digitConnectives = map[string]bool{
	"then": true, "and": true, "next": true, "dann": true, "und": true, "puis": true, "et": true,
	"luego": true, "y": true, "e": true, "poi": true, "depois": true, "daarna": true, "en": true,
}

// maxNumberWord is the longest number word in bytes ("quattro"); TestNumberWordShapes holds
// digitWords to it.
const maxNumberWord = 7

// numberWordShapes marks, by length and first two letters, the number words whose first two
// bytes are ASCII letters: a word of prose seldom shares all three with one ("the" is no
// "three"), so that few words are looked up.
var numberWordShapes = func() (t [maxNumberWord + 1][26 * 26]bool) {
	for w := range digitWords {
		if len(w) >= 2 && isLower(w[0]) && isLower(w[1]) {
			t[len(w)][int(w[0]-'a')*26+int(w[1]-'a')] = true
		}
	}
	return t
}()

// digitWordCandidate reports whether s is short enough for the view and holds at least
// minDigitWords digits standing alone or number words: one pass without allocation, which most
// texts fail, before the view splits s into its words.
func digitWordCandidate(s string) bool {
	if len(s) > maxDigitWordText || len(s) < minDigitWords {
		return false
	}
	n := 0
	for i := 0; i < len(s) && n < minDigitWords; {
		c := s[i]
		switch {
		case isDigit(c):
			j := i + 1
			for j < len(s) && isDigit(s[j]) {
				j++
			}
			if j == i+1 {
				n++
			}
			i = j
		case isAlpha(c) || c >= 0x80:
			j := i + 1
			for j < len(s) && (isAlpha(s[j]) || s[j] >= 0x80) {
				j++
			}
			if j-i >= 2 && j-i <= maxNumberWord && numberWordAt(s[i:j]) {
				n++
			}
			i = j
		default:
			i++
		}
	}
	return n >= minDigitWords
}

// numberWordAt reports whether the word w, of two to maxNumberWord bytes, is a number word of
// digitWords, in any case.
func numberWordAt(w string) bool {
	a, b := w[0]|0x20, w[1]|0x20
	if w[0] < 0x80 && w[1] < 0x80 {
		if !isLower(a) || !isLower(b) || !numberWordShapes[len(w)][int(a-'a')*26+int(b-'a')] {
			return false
		}
	}
	var buf [maxNumberWord]byte
	for i := 0; i < len(w); i++ {
		c := w[i]
		if c >= 0x80 {
			_, ok := digitWords[strings.ToLower(w)]
			return ok
		}
		buf[i] = lower(c)
	}
	_, ok := digitWords[string(buf[:len(w)])]
	return ok
}

// dwToken is one word or digit of s: [i,j), the digit it gives (0 when none), and whether it
// is "plus" or '+'.
type dwToken struct {
	i, j  int
	digit byte
	plus  bool
	word  string // lower case, for a word that is no digit
}

// dwTokens splits s into words and single digits; bytes that are neither letters nor digits
// separate them.
func dwTokens(s string) []dwToken {
	var out []dwToken
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == '+':
			out = append(out, dwToken{i: i, j: i + 1, plus: true})
			i++
		case r < utf8.RuneSelf && isDigit(byte(r)):
			j := i
			for j < len(s) && isDigit(s[j]) {
				j++
			}
			t := dwToken{i: i, j: j}
			if j == i+1 {
				t.digit = s[i]
			} else {
				t.word = s[i:j] // a group of digits ends a run
			}
			out = append(out, t)
			i = j
		case dwLetter(r):
			j := i + n
			for j < len(s) {
				r2, n2 := utf8.DecodeRuneInString(s[j:])
				if !dwLetter(r2) {
					break
				}
				j += n2
			}
			w := strings.ToLower(s[i:j])
			t := dwToken{i: i, j: j, word: w}
			if d, ok := digitWords[w]; ok {
				t.digit, t.word = d, ""
			} else if w == "plus" {
				t.plus, t.word = true, ""
			}
			out = append(out, t)
			i = j
		default:
			i += n
		}
	}
	return out
}

func dwLetter(r rune) bool {
	return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= 0xc0 && r < 0x250 && r != 0xd7 && r != 0xf7
}

// digitWordsView writes the runs of s given as words or apart as digits; a nil map when it
// finds none.
func digitWordsView(s string) (string, []int32) {
	toks := dwTokens(s)
	var b []byte
	var at []int32
	copied := 0
	for k := 0; k < len(toks); {
		end, n := dwRun(s, toks, k)
		if n < minDigitWords {
			k++
			continue
		}
		if b == nil {
			b = make([]byte, 0, len(s))
			at = make([]int32, 0, len(s)+1)
		}
		for p := copied; p < toks[k].i; p++ {
			b = append(b, s[p])
			at = append(at, int32(p))
		}
		for _, t := range toks[k:end] {
			switch {
			case t.plus:
				b = append(b, '+')
				at = append(at, int32(t.i))
			case t.digit != 0:
				b = append(b, t.digit)
				at = append(at, int32(t.i))
			}
		}
		copied = toks[end-1].j
		k = end
	}
	if b == nil {
		return "", nil
	}
	for p := copied; p < len(s); p++ {
		b = append(b, s[p])
		at = append(at, int32(p))
	}
	return string(b), append(at, int32(len(s)))
}

// dwRun reads the run that may start at toks[k]: a '+' or "plus" first, then digits, one
// connective word allowed between each two (the same one throughout), at most maxDigitGap bytes
// apart. It returns the end of the run in toks and the digits it holds.
func dwRun(s string, toks []dwToken, k int) (end, digits int) {
	i := k
	conn := ""
	last := -1
	if toks[i].plus {
		last = i
		i++
	}
	// A run of digits alone with ASCII punctuation between them ("7 4 6 8", "4-1-1-1") is the
	// separators view's (spaced.go), which knows hex and other runs for what they are: this one
	// reads words, connectives and symbols beyond ASCII (emoji).
	own := false
	for i < len(toks) {
		t := toks[i]
		if last >= 0 && t.i-toks[last].j > maxDigitGap {
			break
		}
		if last >= 0 && !own {
			for p := toks[last].j; p < t.i; p++ {
				if s[p] >= 0x80 {
					own = true
					break
				}
			}
		}
		if t.digit != 0 {
			if t.j-t.i > 1 {
				own = true // a number word
			}
			if digits > 0 && toks[i-1].digit != 0 && conn != "" {
				break // the connective stands between every two digits, or between none
			}
			digits++
			last = i
			i++
			continue
		}
		if last < 0 || t.word == "" || !digitConnectives[t.word] || conn != "" && t.word != conn || conn == "" && digits > 1 {
			break
		}
		conn = t.word
		own = true
		i++
	}
	if digits == 0 || !own {
		return k + 1, 0
	}
	return last + 1, digits
}

// acceptDigitWords keeps, of what the digit-words view finds, the numbers.
func acceptDigitWords(_ string, f Finding) bool {
	switch f.Type {
	case TypePhone, TypeCard, TypeIBAN, TypeBankAccount, TypeSSN, TypeITIN, TypeNationalID, TypeNHS:
		return true
	}
	return false
}
