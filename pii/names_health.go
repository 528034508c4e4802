package pii

// The person a medicine is given to. Pharmacy and lab records, care notes and claims name the
// person a condition or a medicine is about in the same clause as the condition or the medicine,
// in any language and often with no other cue: "Apoteket: Mikael Andersson hämtar ut sertralin
// 50 mg mot depression", "Apoteket: Ragner Danielsen, diagnose astma, salbutamol", "si Rodel
// Lacson ay may altapresyon, binigyan ng losartan". A capitalised pair one of whose words is known
// as a name, or shaped like one, is a person's when a word of the health vocabulary follows it in
// its clause, unless it opens a sentence, where a capital says nothing ("Bei Fragen zu Asthma"). A pair that no list knows stays to the other rules: "Deniz Eczanesi", "Tycho Brahe
// Planetarium" hold no condition, and research and institutions named for people ("the Mayo
// Clinic guide to asthma") have a noun of an institution between them and the term.

// healthClause is how far after a pair its clause is read for a health term.
const healthClause = 64

// healthAfter reports whether a word of the health vocabulary follows the pair that ends at e in
// its clause (no full stop, question or exclamation mark, semicolon or line break between, and
// no word of an institution).
func healthAfter(s string, e int) bool {
	lim := min(len(s), e+healthClause)
	for k, n := e, 0; k < lim && n < 10; {
		c := s[k]
		switch {
		case c == '.' && k+1 < len(s) && isDigit(s[k+1]):
			k++ // "0.5 mg"
			continue
		case c == '.' || c == '!' || c == '?' || c == ';' || c == '\n' || c == '(':
			return false
		case !isAlpha(c):
			k++
			continue
		}
		if v := vocabAt(s, k); v > k {
			return true
		}
		w, ok := wordAt(s, k, false)
		if !ok {
			k++
			continue
		}
		if orgNouns.hasFold(s[w.a:w.b]) || orgWords.hasFold(s[w.a:w.b]) {
			return false // "the Mayo Clinic", "Johns Hopkins University"
		}
		n++
		k = w.b
	}
	return false
}
