package pii

import "unicode/utf8"

// Look-alikes of other scripts, and text shown reversed. Cyrillic and Greek have letters drawn
// like Latin ones (а е о р с х у, Α Β Ε Η Κ Μ Ο Ρ Τ Χ), and an address or a key word written with
// a few of them reads the same to a person and not at all to a pattern: "jаne@exаmple.com",
// "раssword". A look-alike is read as its Latin letter when the word it stands in also holds
// Latin letters or digits, which a word of Russian or Greek prose does not; in a word of digits
// it is read as the digit it looks like ("4111 О111" with a Cyrillic O). Text between a
// right-to-left override (U+202E) or isolate (U+2067) and the mark that closes it (U+202C,
// U+2069) or the line's end is shown in reverse: "‮moc.elpmaxe@enaj‬" shows as an address, so a
// view reads each such run reversed.

// confusable returns the Latin letter and the digit (0 when none) r is drawn like, or 0.
func confusable(r rune) (letter, digit byte) {
	switch r {
	case 'а', 'α':
		return 'a', 0
	case 'с', 'ϲ':
		return 'c', 0
	case 'е', 'ε':
		return 'e', 0
	case 'і', 'ι':
		return 'i', 0
	case 'ј':
		return 'j', 0
	case 'о', 'ο':
		return 'o', '0'
	case 'р', 'ρ':
		return 'p', 0
	case 'ѕ':
		return 's', 0
	case 'х', 'χ':
		return 'x', 0
	case 'у', 'γ':
		return 'y', 0
	case 'һ':
		return 'h', 0
	case 'κ':
		return 'k', 0
	case 'ν':
		return 'v', 0
	case 'ԁ':
		return 'd', 0
	case 'ɡ':
		return 'g', 0
	case 'ӏ', 'Ӏ':
		return 'l', '1'
	case 'А', 'Α':
		return 'A', 0
	case 'В', 'Β':
		return 'B', 0
	case 'С', 'Ϲ':
		return 'C', 0
	case 'Е', 'Ε':
		return 'E', 0
	case 'Н', 'Η':
		return 'H', 0
	case 'І', 'Ι':
		return 'I', '1'
	case 'Ј':
		return 'J', 0
	case 'К', 'Κ':
		return 'K', 0
	case 'М', 'Μ':
		return 'M', 0
	case 'Ν':
		return 'N', 0
	case 'О', 'Ο':
		return 'O', '0'
	case 'Р', 'Ρ':
		return 'P', 0
	case 'Ѕ':
		return 'S', 0
	case 'Т', 'Τ':
		return 'T', 0
	case 'Х', 'Χ':
		return 'X', 0
	case 'Υ', 'Ү':
		return 'Y', 0
	case 'Ζ':
		return 'Z', 0
	case 'З':
		return 0, '3'
	case 'б':
		return 0, '6'
	}
	return 0, 0
}

// confusableFirst marks the lead bytes of confusable's runes: Greek (0xCE, 0xCF), Cyrillic
// (0xD0..0xD4), 0xC9 for ɡ.
var confusableFirst = [256]bool{0xc9: true, 0xce: true, 0xcf: true, 0xd0: true, 0xd1: true, 0xd2: true, 0xd3: true, 0xd4: true}

// wordClass remembers, while fold walks a string, the word it last classified.
type wordClass struct {
	end          int  // the word ends before s[end]
	latin, digit bool // it holds ASCII letters, ASCII digits
}

// inWord reports whether r continues a word for the look-alike rule: letters and digits of any
// script, the signs of addresses and identifiers, and invisible characters.
func inWord(r rune) bool {
	switch {
	case r < 0x80:
		return isAlnum(byte(r)) || r == '@' || r == '.' || r == '_' || r == '-' || r == '+'
	case foldRune(r) == foldDrop:
		return true
	}
	return r >= 0xc0 && !(r >= 0x2000 && r <= 0x206f) && r != 0x3000 && r != 0xa0
}

// confusableAt returns what the look-alike r at s[i] reads as in its word (an ASCII byte), or
// foldKeep.
func confusableAt(s string, i int, r rune, wc *wordClass) int {
	letter, digit := confusable(r)
	if letter == 0 && digit == 0 {
		return foldKeep
	}
	if i >= wc.end {
		a := i
		for a > 0 {
			q, n := utf8.DecodeLastRuneInString(s[:a])
			if !inWord(q) {
				break
			}
			a -= n
		}
		e := i
		*wc = wordClass{}
		for e < len(s) {
			q, n := utf8.DecodeRuneInString(s[e:])
			if !inWord(q) {
				break
			}
			e += n
		}
		wc.end = e
		for k := a; k < e; k++ {
			wc.latin = wc.latin || isUpper(s[k]) || isLower(s[k])
			wc.digit = wc.digit || isDigit(s[k])
		}
	}
	if !wc.latin && !wc.digit {
		return foldKeep
	}
	if digit != 0 && (letter == 0 || !wc.latin) {
		return int(digit)
	}
	if digit != 0 {
		// A word of letters and digits ("ines13"): a digit beside it says which.
		_, n := utf8.DecodeRuneInString(s[i:])
		if i > 0 && isDigit(s[i-1]) || i+n < len(s) && isDigit(s[i+n]) {
			return int(digit)
		}
	}
	return int(letter)
}

// spanOfReversed returns the span of s whose characters the view's bytes [a,b) come from, at
// mapping them, in any order.
func spanOfReversed(s string, at []int32, a, b int) (int, int) {
	lo, hi := len(s), 0
	for k := a; k < b; k++ {
		p := int(at[k])
		lo = min(lo, p)
		if p >= hi && p < len(s) {
			_, n := utf8.DecodeRuneInString(s[p:])
			hi = p + n
		}
	}
	return lo, hi
}

// rtlView returns s with each run of x.rtl (pairs of offsets) in reverse order of characters.
func rtlView(s string, runs []int32) (string, []int32) {
	b := make([]byte, 0, len(s))
	at := make([]int32, 0, len(s)+1)
	last := 0
	for k := 0; k+1 < len(runs); k += 2 {
		a, e := int(runs[k]), int(runs[k+1])
		if a < last || e > len(s) || a >= e {
			continue
		}
		for i := last; i < a; i++ {
			b = append(b, s[i])
			at = append(at, int32(i))
		}
		for j := e; j > a; {
			_, n := utf8.DecodeLastRuneInString(s[a:j])
			j -= n
			b = append(b, s[j:j+n]...)
			for m := 0; m < n; m++ {
				at = append(at, int32(j))
			}
		}
		last = e
	}
	for i := last; i < len(s); i++ {
		b = append(b, s[i])
		at = append(at, int32(i))
	}
	return string(b), append(at, int32(len(s)))
}
