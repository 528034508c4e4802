package pii

import "strings"

// A letter or a message ends with a sign-off on a line of its own ("Cheers,", "S pozdravem,",
// "Mit freundlichen Grüßen,") and the sender's name on the next: whatever the language of the
// sign-off, a short line that ends in a comma after the body, then a line that holds only two to
// four capitalised words, is a signature. A team or a firm signs so too ("Kundservice",
// "Hedberg Group", "Atlas Logistics Oy"): a single word, or words of a firm, are none.

// signoffName tries the line that starts at p, the capitalised word s[p:j], as the name under a
// sign-off. It returns the end of the name, or p.
func (x *scanCtx) signoffName(p int) int {
	s := x.s
	if x.key == keyPlace || p < 4 || s[p-1] != '\n' {
		return p
	}
	// The line before: at most four words and 40 bytes, ending in a comma, after other text.
	q := p - 1
	if s[q-1] == '\r' {
		q--
	}
	if s[q-1] != ',' {
		return p
	}
	ls := q - 1
	for ls > 0 && s[ls-1] != '\n' && q-ls <= 40 {
		ls--
	}
	if ls == 0 || q-ls > 40 || s[ls] == ' ' {
		return p // the text's first line greets the reader: "Hi team,"
	}
	words := 1
	for k := ls; k < q-1; k++ {
		if s[k] == ' ' {
			words++
		}
	}
	if words > 4 {
		return p
	}
	if sc := caselessScript(s, p); sc != 0 {
		return x.signoffCaseless(p, sc)
	}
	a, e, n := x.personName(p)
	if a != p || n < 2 || n > 4 || e < len(s) && s[e] != '\n' && s[e] != '\r' {
		return p
	}
	if firmWordIn(s, a, e) {
		return p
	}
	x.add(TypeName, a, e, 0.75, "name.signature")
	return e
}

// firmWordIn reports whether a word of s[a:e] is a firm's or a team's: a legal
// suffix ("Oy", "GmbH"), a word of orgWords, orgNouns or orgAfter, or of caselessOrgWords.
func firmWordIn(s string, a, e int) bool {
	for k := a; k < e; {
		w, ok := wordAt(s, k, false)
		if !ok || w.a >= e {
			return false
		}
		lw := s[w.a:min(w.b, e)]
		if orgSuffixes[lw] || orgWords.hasFold(lw) || orgNouns.hasFold(lw) || orgAfter.hasFold(lw) || lw[0] >= 0x80 && caselessOrgWords.has(lw) {
			return true
		}
		k = w.b
	}
	return false
}

// signoffCaseless reads the line under a sign-off, at p, in a script without capitals (Hebrew,
// Arabic, Devanagari, Thai, Georgian): two to four words of the script and nothing else.
func (x *scanCtx) signoffCaseless(p int, sc byte) int {
	s := x.s
	e, n := p, 0
	for n < 5 {
		b := caselessWord(s, e, sc)
		if b == e {
			return p
		}
		e, n = b, n+1
		if e+1 >= len(s) || s[e] != ' ' || caselessScript(s, e+1) != sc {
			break
		}
		e++
	}
	if n < 2 || n > 4 || e < len(s) && s[e] != '\n' && s[e] != '\r' || sc == 'a' && strings.HasPrefix(s[p:], "ال") {
		return p
	}
	for _, w := range strings.Fields(s[p:e]) {
		if caselessOrgWords.has(w) {
			return p // a team or a firm signs
		}
	}
	x.add(TypeName, p, e, 0.75, "name.signature")
	return e
}

// caselessOrgWords name a team, a department or a firm in those scripts.
var caselessOrgWords = toSet(`צוות מחלקת מחלקה חברת שירות הנהלת فريق قسم شركة إدارة خدمة مؤسسة تیم گروه شرکت واحد پشتیبانی
टीम विभाग कंपनी सहायता सेवा ทีม ฝ่าย บริษัท แผนก გუნდი კომპანია სამსახური`)
