package pii

// A heading names what follows, not who: "Patient leaflet: levetiracetam is used to treat
// epilepsy", "Guía clínica: la hipertensión se controla…", "Patient information: …". A capitalised
// word that opens a line and is followed by one word in lower case and a colon is such a label,
// and says no more of a person than the leaflet does, though the word is "Patient" or a given
// name ("Guia"). A label of one word ("Patient:", "Anna:") may head a record or a speaker's line
// and is left as it was.

// headingAt reports whether the capitalised word s[i:j] opens a line and a heading of two words
// that ends in a colon.
func headingAt(s string, i, j int) bool {
	b := i
	for b > 0 && (s[b-1] == ' ' || s[b-1] == '\t' || s[b-1] == '#' || s[b-1] == '*') {
		b--
	}
	if b > 0 && s[b-1] != '\n' {
		return false
	}
	if j+4 >= len(s) || s[j] != ' ' {
		return false
	}
	k := j + 1
	for k < len(s) && k-j <= 24 && (isLower(s[k]) || s[k] >= 0x80) {
		k++
	}
	return k-j > 3 && k < len(s) && s[k] == ':'
}
