package pii

// Key words spelt in leetspeak. A careless or hostile writer spells the name before an assignment
// with digits and signs for letters ("p4ssw0rd: ...", "P@ssw0rd = ...", "pa$$word: ...", "s3cr3t=
// ..."), and the name then says what a password key says. The name is read again with the look-
// alikes as the letters they stand for only when it holds one of them, and only when it said
// nothing as written.

// leetLetter is the letter a look-alike digit or sign stands for in a key word; 0 for others.
var leetLetter = func() (t [256]byte) {
	t['4'], t['@'], t['0'], t['1'], t['3'], t['5'], t['$'], t['7'] = 'a', 'a', 'o', 'i', 'e', 's', 's', 't'
	return t
}()

// leetIdent returns the name that ends at ie read with its look-alikes as letters, into buf, and
// where it starts; ok is false when the name holds none, or too few letters to be a word.
func leetIdent(buf []byte, s string, ie int) (name string, start int, ok bool) {
	k := ie
	for k > 0 && (keyByte[s[k-1]] || s[k-1] == '@' || s[k-1] == '$') && ie-k < 40 {
		k--
	}
	if ie-k < 4 {
		return "", 0, false
	}
	buf = buf[:0]
	subs, letters := 0, 0
	for j := k; j < ie; j++ {
		c := s[j]
		if l := leetLetter[c]; l != 0 {
			c = l
			subs++
		} else if isLower(c) || isUpper(c) {
			letters++
		}
		buf = append(buf, c)
	}
	if subs == 0 || letters < 2 || subs > letters {
		return "", 0, false
	}
	return string(buf), k, true
}

// leetNouns are the password words a leet spelling in prose stands for ("pa55word is X").
var leetNouns = []string{"password", "passwort", "passwd", "kennwort", "wachtwoord", "passphrase"}

// leetNoun reports whether the token w is a password word spelt with look-alikes ("pa55word",
// "p4ssw0rd", "P@$$W0RD"); a sentence's punctuation after it is left out.
func leetNoun(w string) bool {
	for len(w) > 0 && oneOf(w[len(w)-1], ":=,.-") {
		w = w[:len(w)-1]
	}
	if len(w) < 6 || len(w) > 16 {
		return false
	}
	var buf [16]byte
	b, subs := buf[:0], 0
	for j := 0; j < len(w); j++ {
		c := w[j]
		if l := leetLetter[c]; l != 0 {
			c, subs = l, subs+1
		} else if !isAlpha(c) {
			return false
		}
		b = append(b, lower(c))
	}
	if subs == 0 {
		return false
	}
	for _, noun := range leetNouns {
		if string(b) == noun {
			return true
		}
	}
	return false
}
