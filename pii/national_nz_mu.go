package pii

// New Zealand's IRD number and Mauritius's national identity number. The IRD number is eight or
// nine digits whose last is a check over weights 3 2 7 6 5 4 3 2 (a second set where the first
// leaves 10), so a run of digits passes it one time in eleven: it counts only after a word for an
// identifier or under an identifier's key ("IRD no.", "IRDNumber"), and one named as an IRD
// number whose check fails is a mistyped one, not a phone number. The Mauritian number is the first letter of the holder's surname, the date of
// birth as DDMMYY, six digits and a check character over the alphabet 0-9A-Z, weights 14 down to
// 2, modulo 17; under a word for an identifier, one whose check fails passes.

// nzMUValidators are the IRD number's lengths, tried after moreSchemeValidators.
var nzMUValidators = []natValidator{
	{"nz.ird", 9, nzIRDValid},
	{"nz.ird", 8, nzIRDValid},
}

// nzMUNames are the words that name the IRD number, added to namedIDs and the national cues.
var nzMUNames = []namedID{
	{"ird number", "nz.ird"}, {"ird no", "nz.ird"}, {"irdnumber", "nz.ird"}, {"ird", "nz.ird"},
	{"inland revenue number", "nz.ird"},
}

// nzMUCues are nzMUNames' words.
func nzMUCues() []string {
	out := make([]string, len(nzMUNames))
	for i, n := range nzMUNames {
		out[i] = n.cue
	}
	return out
}

// nzIRDValid checks an IRD number of eight or nine digits, issued from 10,000,000 to 150,000,000.
func nzIRDValid(d []byte) bool {
	var buf [9]byte
	p := buf[:0]
	for k := len(d); k < 9; k++ {
		p = append(p, '0')
	}
	p = append(p, d...)
	if len(p) != 9 {
		return false
	}
	if v := atoi(p[:8]); v < 1000000 || v >= 15000000 {
		return false // the number without its check digit, 10,000,000 to 150,000,000 in all
	}
	for _, w := range [2][8]int{{3, 2, 7, 6, 5, 4, 3, 2}, {7, 4, 3, 2, 5, 2, 7, 6}} {
		sum := 0
		for i, x := range w {
			sum += x * int(p[i]-'0')
		}
		c := (11 - sum%11) % 11
		if c != 10 {
			return c == int(p[8]-'0')
		}
	}
	return false
}

// muNIDShape reports fourteen characters laid out as the Mauritian number: a capital, twelve
// digits of which the first six are a day and a month that exist, and a digit or capital.
func muNIDShape(u []byte) bool {
	if len(u) != 14 || !isUpper(u[0]) || !isDigits(u[1:13]) || !isDigit(u[13]) && !isUpper(u[13]) {
		return false
	}
	day, month := atoi(u[1:3]), atoi(u[3:5])
	return day >= 1 && day <= 31 && month >= 1 && month <= 12
}

// muNIDValid checks the Mauritian number's check character.
func muNIDValid(u []byte) bool {
	if !muNIDShape(u) {
		return false
	}
	val := func(c byte) int {
		if isDigit(c) {
			return int(c - '0')
		}
		return int(c-'A') + 10
	}
	sum := 0
	for i := 0; i < 13; i++ {
		sum += (14 - i) * val(u[i])
	}
	return val(u[13]) == ((17-sum)%17+17)%17
}
