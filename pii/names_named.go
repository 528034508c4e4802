package pii

// "Named in", "named on". After "named" or "called", the name-cue skips a few small words to
// the name ("named as X" is rare; "called X" common), but "in", "on" and "of" after them say
// where something is named, in a document, a list or a schedule: "the Tenant named in Schedule
// 1", "the persons named on the policy", "the beneficiaries named in Annex B". What follows is
// the document, never a person's name. "name on the account: X" keeps its cue: there the noun
// asks for the name.

// namedWhere reports whether "in", "on" or "of" follows the cue word that ends at j.
func namedWhere(s string, j int) bool {
	k := skipSpace(s, j)
	w, ok := wordAt(s, k, false)
	if !ok || w.b-w.a != 2 {
		return false
	}
	a, b := lower(s[w.a]), lower(s[w.a+1])
	return a == 'i' && b == 'n' || a == 'o' && (b == 'n' || b == 'f')
}
