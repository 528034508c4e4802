package pii

import "strings"

// People no list knows, as the subject of what only people do. A pair of capitalised words
// neither of which a list knows needs a strong cue (pairCounts); after it, two are strong enough:
// being ill or on sick leave within the clause ("Chayanin Prakalpawong war bis Freitag
// krankgeschrieben", "X is off sick until Monday"), and asking, apologising or complaining in
// the reflexive forms of West Slavic languages, which a firm's name does not take ("Mihkel Ruus
// se ptá, kdy dostane vrácené peníze", "X si stěžuje", "X pyta się o fakturę").

// sickWords say that someone is ill or on sick leave, in the languages the gate sees most.
var sickWords = toSet(`sick ill unwell hospitalised hospitalized krank krankgeschrieben erkrankt nemocný nemocná
nemocen nemocna nemocny neschopenka chory chora choruje malade enfermo enferma malato malata ziek syk sjuk
sairas sairaana beteg bolnav`)

// reflexiveAsk are the reflexive verbs of asking, apologising and complaining after "se", "si"
// or "się".
var reflexiveAsk = toSet(`ptá ptal ptala ptají omlouvá omlouval omlouvala stěžuje stěžoval stěžovala ozval ozvala
pýta pýtal pýtala sťažuje pyta pytał pytała skarży skarżył skarżyła`)

// subjectOnlyPerson reports whether what follows the name that ends at end says a person is its
// subject, as the comment at the top says.
func subjectOnlyPerson(s string, end int) bool {
	for _, r := range [...]string{" se ", " si ", " się "} {
		if strings.HasPrefix(s[end:], r) {
			v, ok := wordAt(s, end+len(r), false)
			return ok && v.a == end+len(r) && v.b-v.a <= 18 &&
				reflexiveAsk.has(strings.ToLower(strings.TrimRight(s[v.a:v.b], ".,;:!?")))
		}
	}
	k := end
	for n := 0; n < 6; n++ {
		w, ok := wordAt(s, k, false)
		if !ok || w.a > k+1 || w.b-w.a > 18 {
			return false
		}
		word := strings.TrimRight(s[w.a:w.b], ".,;:!?")
		lw := strings.ToLower(word)
		if sickWords.has(lw) {
			return true
		}
		if n == 0 && reflexiveAsk.has(lw) && (strings.HasPrefix(s[w.b:], " się") || strings.HasPrefix(s[w.b:], " se ")) {
			return true // Polish puts the verb first: "X pyta się o fakturę"
		}
		if len(word) != w.b-w.a {
			return false // the clause ends
		}
		k = w.b
	}
	return false
}
