package pii

import "strings"

// Streets named after people. A street, square or road is often named for a person, and its name
// then reads as one: "Stephanie Crossroad", "Montgomery Loop", "chemin Lorraine Vallée", "Ronda
// Alfredo Ferrándiz", "Cañada de Josefina Solís". A run of capitalised words is a street's name,
// not a person's, when a street-type word ends it (one that is not also a surname, as "Hill",
// "Wells" or "Brooks" are) or comes before it, with "de", "del", "di", "da", "do", "dos", "das",
// "la" or "las" between.

// streetBefore reports whether a street-type word stands before the name that starts at a.
func streetBefore(s string, a int) bool {
	pw, ok := wordBefore(s, a)
	for hops := 0; ok && hops < 2 && streetLinks.has(strings.ToLower(s[pw.a:pw.b])); hops++ {
		pw, ok = wordBefore(s, pw.a)
	}
	if !ok || pw.b-pw.a > 14 {
		return false
	}
	var buf [32]byte
	lw := string(lowerInto(buf[:0], s[pw.a:pw.b]))
	return streetPrefixes.has(lw) || placeBefore.has(lw)
}

// streetEnd reports whether the last word of the name s[a:e] is a street type: "Stephanie
// Crossroad", not "Benny Hill".
func streetEnd(s string, a, e int) bool {
	i := strings.LastIndexByte(s[a:e], ' ')
	if i < 0 {
		return false
	}
	w := s[a+i+1 : e]
	if len(w) < 3 || len(w) > 14 {
		return false
	}
	var buf [16]byte
	lw := string(lowerInto(buf[:0], w))
	return streetSuffixes.has(lw) && !weakSuffixes.has(lw) && !isNameWord(w)
}

// streetStart reports whether the first word s[a:e] of a name of three words or more that ends at
// end is a street type: "Ronda Alfredo Ferrándiz", "Rambla Catalina Soler".
func streetStart(s string, a, e, end int) bool {
	if e-a > 14 || strings.Count(s[e:end], " ") < 2 {
		return false
	}
	var buf [32]byte
	lw := string(lowerInto(buf[:0], s[a:e]))
	return streetPrefixes.has(lw)
}

// streetLinks are the small words between a street type and the name it takes.
var streetLinks = toSet(`de del di da do dos das la las los le du des della dello delle`)

// designation reports whether the number at i is joined by a hyphen to the word w before it,
// written in capitals ("ICD-10", "ISO-9001", "COVID-19"): the name of a standard, a disease or a
// product, not a house number beside a street's name.
func designation(s string, w word, i int) bool {
	b := w.b
	if b == i {
		b-- // the word was read with its hyphen
	}
	if b != i-1 || s[b] != '-' || b-w.a < 2 {
		return false
	}
	for k := w.a; k < b; k++ {
		if !isUpper(s[k]) {
			return false
		}
	}
	return true
}
