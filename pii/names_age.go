package pii

import "strings"

// A name followed by its bearer's age is a person's: "Mishari Al-Ajmi, 58, a fisherman", "Pieter
// Botha (51)", "Róger Baltodano, 51 años", "Дмитрий Кузнецов, 34 лет", "Krešimir Matić is a
// 24-year-old teacher". Referrals, claims and summaries introduce people so; a firm or a place is
// given no age.

// ageWords follow an age, in the languages referrals are written in (lower case, a full stop
// kept where the abbreviation has one).
var ageWords = toSet(`years yrs y/o yo y.o. years-old лет года год años anos anys urte god. godina r. rokov roky
let jaar jahre ans anni år ani éves yaşında tahun taon`)

// ageAfter reports whether an age follows the name that ends at e: ", 58," or ", 58)" or ", 58 "
// and a word of ageWords, " (51)" or " (43 r.)", or " is a 24-year-old".
func ageAfter(s string, e int) bool {
	k := e
	switch {
	case strings.HasPrefix(s[k:], ", "):
		k += 2
	case strings.HasPrefix(s[k:], " ("):
		k += 2
	case strings.HasPrefix(s[k:], " is a ") || strings.HasPrefix(s[k:], " was a "):
		return yearOld(s, k+strings.Index(s[k+1:], " a ")+4)
	case strings.HasPrefix(s[k:], " is an ") || strings.HasPrefix(s[k:], " was an "):
		return yearOld(s, k+strings.Index(s[k+1:], " an ")+5)
	default:
		return false
	}
	d := k
	for d < len(s) && isDigit(s[d]) {
		d++
	}
	if d == k || d-k > 3 || s[k] == '0' {
		return false
	}
	if n := atoi([]byte(s[k:d])); n > 120 {
		return false
	}
	if d == len(s) {
		return false
	}
	switch s[d] {
	case ',', ')':
		return s[e] == ',' || s[d] == ')'
	case ' ':
		w := d + 1
		for w < len(s) && s[w] != ' ' && s[w] != ',' && s[w] != ')' && s[w] != ';' && w-d < 16 {
			w++
		}
		return ageWords.has(strings.ToLower(s[d+1 : w]))
	}
	return false
}

// yearOld reports "24-year-old" at k.
func yearOld(s string, k int) bool {
	d := k
	for d < len(s) && isDigit(s[d]) {
		d++
	}
	return d > k && d-k <= 3 && (strings.HasPrefix(s[d:], "-year-old") || strings.HasPrefix(s[d:], " year old") ||
		strings.HasPrefix(s[d:], "-years-old"))
}
