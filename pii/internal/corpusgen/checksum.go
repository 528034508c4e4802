package main

import (
	"strconv"
	"strings"
)

// The check-digit schemes of the identifiers the corpus writes, computed from their published
// definitions.

func digitsOf(s string) []int {
	var d []int
	for _, c := range s {
		if c >= '0' && c <= '9' {
			d = append(d, int(c-'0'))
		}
	}
	return d
}

func luhnValid(s string) bool {
	d := digitsOf(s)
	sum := 0
	for i := range d {
		v := d[len(d)-1-i]
		if i%2 == 1 {
			v *= 2
			if v > 9 {
				v -= 9
			}
		}
		sum += v
	}
	return len(d) > 1 && sum%10 == 0
}

// luhnDigit returns the digit that makes body+digit pass Luhn.
func luhnDigit(body string) int {
	for c := 0; c < 10; c++ {
		if luhnValid(body + strconv.Itoa(c)) {
			return c
		}
	}
	return 0
}

var verhoeffD = [10][10]int{
	{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, {1, 2, 3, 4, 0, 6, 7, 8, 9, 5}, {2, 3, 4, 0, 1, 7, 8, 9, 5, 6},
	{3, 4, 0, 1, 2, 8, 9, 5, 6, 7}, {4, 0, 1, 2, 3, 9, 5, 6, 7, 8}, {5, 9, 8, 7, 6, 0, 4, 3, 2, 1},
	{6, 5, 9, 8, 7, 1, 0, 4, 3, 2}, {7, 6, 5, 9, 8, 2, 1, 0, 4, 3}, {8, 7, 6, 5, 9, 3, 2, 1, 0, 4},
	{9, 8, 7, 6, 5, 4, 3, 2, 1, 0}}
var verhoeffP = [8][10]int{
	{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, {1, 5, 7, 6, 2, 8, 3, 0, 9, 4}, {5, 8, 0, 3, 7, 9, 6, 1, 4, 2},
	{8, 9, 1, 6, 0, 4, 3, 5, 2, 7}, {9, 4, 5, 3, 1, 2, 6, 8, 7, 0}, {4, 2, 8, 6, 5, 7, 3, 9, 0, 1},
	{2, 7, 9, 3, 8, 0, 6, 4, 1, 5}, {7, 0, 4, 6, 9, 1, 3, 2, 5, 8}}
var verhoeffInv = [10]int{0, 4, 3, 2, 1, 5, 6, 7, 8, 9}

func verhoeffValid(s string) bool {
	d := digitsOf(s)
	c := 0
	for i := range d {
		c = verhoeffD[c][verhoeffP[i%8][d[len(d)-1-i]]]
	}
	return c == 0
}

func verhoeffDigit(body string) int {
	d := digitsOf(body)
	c := 0
	for i := range d {
		c = verhoeffD[c][verhoeffP[(i+1)%8][d[len(d)-1-i]]]
	}
	return verhoeffInv[c]
}

// weighted returns the sum of d[i]*w[i].
func weighted(d, w []int) int {
	s := 0
	for i := range w {
		s += d[i] * w[i]
	}
	return s
}

// bsnValid is the Dutch "elfproef": 9..2 on the first eight digits, -1 on the last.
func bsnValid(s string) bool {
	d := digitsOf(s)
	if len(d) != 9 {
		return false
	}
	return (weighted(d, []int{9, 8, 7, 6, 5, 4, 3, 2})-d[8])%11 == 0
}

// tfnValid is the Australian tax file number's weighted mod 11.
func tfnValid(s string) bool {
	d := digitsOf(s)
	return len(d) == 9 && weighted(d, []int{1, 4, 3, 7, 5, 8, 6, 9, 10})%11 == 0
}

func peselValid(s string) bool {
	d := digitsOf(s)
	return len(d) == 11 && (10-weighted(d, []int{1, 3, 7, 9, 1, 3, 7, 9, 1, 3})%10)%10 == d[10]
}

// steuerIDDigit is ISO 7064 MOD 11,10 over the first ten digits.
func steuerIDDigit(body string) int {
	p := 10
	for _, c := range digitsOf(body) {
		s := (c + p) % 10
		if s == 0 {
			s = 10
		}
		p = (2 * s) % 11
	}
	c := 11 - p
	if c == 10 {
		c = 0
	}
	return c
}

func steuerIDValid(s string) bool {
	d := digitsOf(s)
	return len(d) == 11 && d[0] != 0 && steuerIDDigit(s[:10]) == d[10]
}

// cpfDigits returns the two check digits of a Brazilian CPF body of nine digits.
func cpfDigits(body []int) (int, int) {
	s := 0
	for i := 0; i < 9; i++ {
		s += body[i] * (10 - i)
	}
	a := (s * 10) % 11 % 10
	s = 0
	for i := 0; i < 9; i++ {
		s += body[i] * (11 - i)
	}
	s += a * 2
	return a, (s * 10) % 11 % 10
}

func cpfValid(s string) bool {
	d := digitsOf(s)
	if len(d) != 11 {
		return false
	}
	a, b := cpfDigits(d)
	return a == d[9] && b == d[10]
}

// ricCheck is the GB 11643-1999 check character of a Chinese resident identity card.
func ricCheck(body []int) byte {
	w := []int{7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2}
	return "10X98765432"[weighted(body, w)%11]
}

// myNumberDigit is the check digit of a Japanese individual number over its first 11 digits.
func myNumberDigit(body []int) int {
	s := 0
	for n := 1; n <= 11; n++ {
		p := body[11-n]
		q := n + 1
		if n > 6 {
			q = n - 5
		}
		s += p * q
	}
	r := s % 11
	if r <= 1 {
		return 0
	}
	return 11 - r
}

// nirKey is the two-digit key of a French social security number (97 - n mod 97).
func nirKey(body string) int {
	n, _ := strconv.ParseInt(body, 10, 64)
	return int(97 - n%97)
}

const dniLetters = "TRWAGMYFPDXBNJZSQVHLCKE"

var cfOdd = map[byte]int{'0': 1, '1': 0, '2': 5, '3': 7, '4': 9, '5': 13, '6': 15, '7': 17, '8': 19, '9': 21,
	'A': 1, 'B': 0, 'C': 5, 'D': 7, 'E': 9, 'F': 13, 'G': 15, 'H': 17, 'I': 19, 'J': 21, 'K': 2, 'L': 4,
	'M': 18, 'N': 20, 'O': 11, 'P': 3, 'Q': 6, 'R': 8, 'S': 12, 'T': 14, 'U': 16, 'V': 10, 'W': 22,
	'X': 25, 'Y': 24, 'Z': 23}

// cfCheck is the control character of an Italian codice fiscale over its first 15 characters.
func cfCheck(body string) byte {
	s := 0
	for i := 0; i < 15; i++ {
		c := body[i]
		if i%2 == 0 {
			s += cfOdd[c]
		} else if c >= '0' && c <= '9' {
			s += int(c - '0')
		} else {
			s += int(c - 'A')
		}
	}
	return byte('A' + s%26)
}

func mod97(s string) int {
	r := 0
	for _, c := range strings.ToUpper(s) {
		switch {
		case c >= '0' && c <= '9':
			r = (r*10 + int(c-'0')) % 97
		case c >= 'A' && c <= 'Z':
			r = (r*100 + int(c-'A'+10)) % 97
		}
	}
	return r
}

func ibanValid(s string) bool {
	s = strings.ReplaceAll(s, " ", "")
	return len(s) > 4 && mod97(s[4:]+s[:4]) == 1
}

// anyDigitCheck says whether the digits of s pass any check-digit scheme of their length that
// the corpus knows: a number meant to fail its checksum must fail all of them, so that a
// detector reading it as another country's identifier is not wrong.
func anyDigitCheck(s string) bool {
	d := digitsOf(s)
	ds := ""
	for _, x := range d {
		ds += strconv.Itoa(x)
	}
	switch len(d) {
	case 9:
		return luhnValid(ds) || bsnValid(ds) || tfnValid(ds)
	case 10:
		return luhnValid(ds)
	case 11:
		return peselValid(ds) || steuerIDValid(ds) || cpfValid(ds) || luhnValid(ds)
	case 12:
		return verhoeffValid(ds) || luhnValid(ds) || myNumberDigit(d[:11]) == d[11]
	}
	return luhnValid(ds)
}

// ssnRules are the SSA's issuing rules for a nine-digit SSN.
func ssnRules(ds string) bool {
	a, gr, sn := ds[:3], ds[3:5], ds[5:]
	return a != "000" && a != "666" && a[0] != '9' && gr != "00" && sn != "0000"
}
