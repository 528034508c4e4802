package pii

// Check-digit algorithms. Each takes the ASCII digits (or characters) of a candidate with the
// separators already removed.

// luhn reports whether the digits pass the Luhn (mod 10) check.
func luhn(d []byte) bool {
	sum := 0
	dbl := false
	for i := len(d) - 1; i >= 0; i-- {
		v := int(d[i] - '0')
		if dbl {
			v *= 2
			if v > 9 {
				v -= 9
			}
		}
		sum += v
		dbl = !dbl
	}
	return len(d) > 0 && sum%10 == 0
}

// mod97 computes the ISO 7064 MOD 97-10 remainder of an alphanumeric string in which letters count
// as 10..35, as IBAN does.
func mod97(s []byte) int {
	r := 0
	for _, c := range s {
		switch {
		case c >= '0' && c <= '9':
			r = (r*10 + int(c-'0')) % 97
		case c >= 'A' && c <= 'Z':
			r = (r*100 + int(c-'A') + 10) % 97
		case c >= 'a' && c <= 'z':
			r = (r*100 + int(c-'a') + 10) % 97
		default:
			return -1
		}
	}
	return r
}

// abaValid checks the 3-7-1 weighted checksum of a 9-digit US routing number and its Federal
// Reserve prefix (00-12, 21-32, 61-72, 80).
func abaValid(d []byte) bool {
	if len(d) != 9 {
		return false
	}
	p := int(d[0]-'0')*10 + int(d[1]-'0')
	if !(p <= 12 || (p >= 21 && p <= 32) || (p >= 61 && p <= 72) || p == 80) {
		return false
	}
	w := [9]int{3, 7, 1, 3, 7, 1, 3, 7, 1}
	sum := 0
	for i := range 9 {
		sum += int(d[i]-'0') * w[i]
	}
	return sum%10 == 0 && !allSame(d)
}

// nhsValid checks a 10-digit NHS number (weights 10..2, check 11 - sum mod 11).
func nhsValid(d []byte) bool {
	if len(d) != 10 || allSame(d) {
		return false
	}
	sum := 0
	for i := range 9 {
		sum += int(d[i]-'0') * (10 - i)
	}
	c := 11 - sum%11
	if c == 11 {
		c = 0
	}
	return c != 10 && c == int(d[9]-'0')
}

// ssnValid applies the SSA rules: area not 000, 666 or 900-999; group not 00; serial not 0000.
func ssnValid(d []byte) bool {
	if len(d) != 9 {
		return false
	}
	area := atoi(d[0:3])
	return area != 0 && area != 666 && area < 900 && atoi(d[3:5]) != 0 && atoi(d[5:9]) != 0
}

// itinValid: 9xx with group 50-65, 70-88, 90-92 or 94-99.
func itinValid(d []byte) bool {
	if len(d) != 9 || d[0] != '9' {
		return false
	}
	g := atoi(d[3:5])
	return (g >= 50 && g <= 65) || (g >= 70 && g <= 88) || (g >= 90 && g <= 92) || (g >= 94 && g <= 99)
}

// iso7064Mod11_10 checks the last digit of d with ISO 7064 MOD 11,10 (German tax id, Croatian OIB).
func iso7064Mod11_10(d []byte) bool {
	p := 10
	for _, c := range d[:len(d)-1] {
		s := (int(c-'0') + p) % 10
		if s == 0 {
			s = 10
		}
		p = (2 * s) % 11
	}
	check := 11 - p
	if check == 10 {
		check = 0
	}
	return check == int(d[len(d)-1]-'0')
}

// weightedMod returns the sum of digit*weight mod m.
func weightedMod(d []byte, w []int, m int) int {
	s := 0
	for i, x := range w {
		s += int(d[i]-'0') * x
	}
	return s % m
}

func atoi(d []byte) int {
	n := 0
	for _, c := range d {
		n = n*10 + int(c-'0')
	}
	return n
}

func allSame(d []byte) bool {
	for _, c := range d[1:] {
		if c != d[0] {
			return false
		}
	}
	return true
}

// validDate reports whether y-m-d is a real calendar date (y full year).
func validDate(y, m, d int) bool {
	if m < 1 || m > 12 || d < 1 {
		return false
	}
	days := [13]int{0, 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31}[m]
	if m == 2 && y%4 == 0 && (y%100 != 0 || y%400 == 0) {
		days = 29
	}
	return d <= days
}
