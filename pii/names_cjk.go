package pii

import "unicode/utf8"

// Names in Chinese and Japanese characters. Written inside text in another script, a family name
// and a given name of one to three ideographs each, separated by a space ("原田 春香", "中島 和也"), is
// how Japanese names are set among Latin words; under a name key, two to four ideographs with
// no space ("安畅", "单春梅") are a Chinese name. Kana, digits and Latin letters make neither.

// hanRun returns the end of a run of CJK unified ideographs at i and their number.
func hanRun(s string, i int) (int, int) {
	n := 0
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r < 0x4E00 || r > 0x9FFF {
			break
		}
		i += size
		n++
	}
	return i, n
}

// cjkNameAt reads "family given" in ideographs at p, in text whose neighbouring characters are
// not CJK; it returns the end of the name, or p.
func (x *scanCtx) cjkNameAt(p int) int {
	s := x.s
	e1, n1 := hanRun(s, p)
	if n1 < 1 || n1 > 3 || e1+1 >= len(s) || s[e1] != ' ' {
		return p
	}
	e2, n2 := hanRun(s, e1+1)
	if n2 < 1 || n2 > 3 || n1+n2 < 3 {
		return p
	}
	// The nearest characters on either side, past spaces and punctuation, must be Latin (or
	// the text's end): inside CJK text there is no telling a name from the words around it.
	latin := false
	for k := p - 1; k >= 0 && k >= p-8; k-- {
		c := s[k]
		if c >= 0x80 {
			return p
		}
		if isAlpha(c) {
			latin = true
			break
		}
	}
	for k := e2; k < len(s) && k < e2+8; k++ {
		c := s[k]
		if c >= 0x80 || isDigit(c) {
			return p
		}
		if isAlpha(c) {
			latin = true
			break
		}
	}
	if !latin {
		return p
	}
	x.add(TypeName, p, e2, 0.75, "name.cjk")
	return e2
}

// cjkNameValue reports whether a whole value under a name key is a name in ideographs: two to
// four of them, or a family and a given name separated by one space.
func cjkNameValue(v string) bool {
	e, n := hanRun(v, 0)
	if e == len(v) {
		return n >= 2 && n <= 4
	}
	if n < 1 || n > 3 || v[e] != ' ' {
		return false
	}
	e2, n2 := hanRun(v, e+1)
	return e2 == len(v) && n2 >= 1 && n2 <= 3
}
