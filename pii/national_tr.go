package pii

// Turkey's identity number (T.C. Kimlik No), and the short names Nordic registers give their
// personal numbers in column headers and forms ("personnr", "fødselsnr"). The Kimlik number has
// eleven digits, the first not zero, and two check digits: the tenth is seven times the sum of
// the odd places less the sum of the even places, modulo ten; the eleventh the sum of the first
// ten, modulo ten. One number in a hundred passes by chance, so it counts only where a word names
// it ("TCKN", "T.C. Kimlik No", "kimlik numarası"), and one so named whose check fails passes.

// trTCKValid checks a Turkish identity number.
func trTCKValid(d []byte) bool {
	if len(d) != 11 || d[0] == '0' {
		return false
	}
	odd, even := 0, 0
	for i := 0; i < 9; i++ {
		if i%2 == 0 {
			odd += int(d[i] - '0')
		} else {
			even += int(d[i] - '0')
		}
	}
	if ((odd*7-even)%10+10)%10 != int(d[9]-'0') {
		return false
	}
	return (odd+even+int(d[9]-'0'))%10 == int(d[10]-'0')
}

// moreNamedIDs are the words that name these numbers, added to namedIDs.
var moreNamedIDs = []namedID{
	{"tckn", "tr.tckimlik"}, {"tc kimlik", "tr.tckimlik"}, {"t.c. kimlik", "tr.tckimlik"}, {"kimlik no", "tr.tckimlik"},
	{"kimlik numara", "tr.tckimlik"}, {"tc no", "tr.tckimlik"}, {"turkish id", "tr.tckimlik"},
	{"personnr", "se.personnummer"}, {"fødselsnr", "no.fodselsnummer"}, {"fodselsnr", "no.fodselsnummer"},
}
