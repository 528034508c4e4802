package pii

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Names that no list knows. The lists (names_gazetteer.go, names_words.go) hold the names of
// the countries they were gathered in; a Slavic, Nordic, Caucasian or Balkan surname written
// with its diacritics is often missing from them. What such surnames share is their ending:
// patronymics and family suffixes ("-sson", "-dóttir", "-ovich", "-ska", "-enko", "-shvili").
// A word with one of those endings is evidence, as a name of the lists is, never a name on its
// own: a cue must still say that a person is meant ("Follow up with Satsita Umkhayev", "Producer
// Vilhjálmur Georgsson explained"). Towns have such endings too ("Rostov", "Madison"), and the
// cue is what tells them apart.

// surnameSuffixes are the endings, in lower case, longest first within a family so that the
// length check below reads the stem that is left.
var surnameSuffixes = []string{
	// Nordic patronymics and family names.
	"sdóttir", "dóttir", "dottir", "sson", "ssen", "sen", "son",
	// Slavic.
	"ovich", "evich", "ovych", "evych", "vich", "ović", "ovic", "evic", "ević", "vić", "ić", "ič",
	"owski", "ewski", "owska", "ewska", "ński", "ńska", "nski", "nska", "cki", "cka", "dzki", "dzka", "ski",
	"ska", "sky", "skiy", "skaya", "skij", "ová", "ova", "ov", "ev", "eva", "yev", "yeva", "enko", "chuk",
	"czuk", "czyk", "yshyn",
	// Finnish and Swedish.
	"nen", "lainen", "qvist", "kvist", "quist", "ström", "strom",
	// Caucasus, Armenia, Turkey, Romania, Greece.
	"shvili", "dze", "yan", "oğlu", "oglu", "escu", "eanu", "poulos", "opoulos", "akis", "idis",
	// Latvian and Lithuanian family names.
	"iņš", "iņa", "auskienė", "auskas", "avičius", "evičius", "ičius", "ienė", "aitė", "ytė",
	// German and Dutch family names.
	"mann", "meier", "meyer", "berger", "stein", "bauer",
}

// surnameShaped reports whether the title-case word w ends as surnames of many countries end,
// with at least three letters before the ending ("Georgsson", "Szczepańska", "Musliyevich";
// not "Son", "Ova", "Dev").
func surnameShaped(w string) bool {
	w = strings.TrimSuffix(w, "'s")
	if len(w) < 5 || len(w) > 32 || !isUpper(w[0]) && w[0] < 0x80 {
		return false
	}
	if articleSurname(w) {
		return true
	}
	var buf [96]byte
	lw := string(lowerRunes(buf[:0], w))
	for _, suf := range surnameSuffixes {
		if strings.HasSuffix(lw, suf) && utf8.RuneCountInString(lw[:len(lw)-len(suf)]) >= 3 {
			return !notNames.has(lw) && !shapedWords.has(lw)
		}
	}
	return false
}

// articleSurname reports an Arabic family name written with its article joined by a hyphen,
// "Al-Ajmi", "El-Sayed", "Al-Busaidi": the article, then a capitalised stem of three letters or
// more.
func articleSurname(w string) bool {
	if len(w) < 6 || w[2] != '-' || !(w[0] == 'A' && w[1] == 'l' || w[0] == 'E' && w[1] == 'l') || !isUpper(w[3]) {
		return false
	}
	for k := 4; k < len(w); k++ {
		if !isLower(w[k]) {
			return false
		}
	}
	return true
}

// shapedWords are common words with a surname's ending.
var shapedWords = toSet(`reason reasons season seasons person persons prison prisons poison lesson lessons comparison
garrison bison mason chosen loosen whisky liechtenstein frankenstein hamburger hamburgers cheeseburger`)

// lowerRunes appends s in lower case to b, rune by rune where it leaves ASCII.
func lowerRunes(b []byte, s string) []byte {
	for i := 0; i < len(s); {
		if c := s[i]; c < 0x80 {
			b = append(b, lower(c))
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		b = utf8.AppendRune(b, unicode.ToLower(r))
		i += n
	}
	return b
}

// knownOrShaped reports whether w is known as a name in one of the lists or has a surname's
// ending: the evidence a cue needs to make a capitalised word a person's.
func knownOrShaped(w string) bool {
	return isNameWord(w) || surnameShaped(w)
}

// knownSurname is knownOrShaped less the given names that are also words ("Nation", "Walker"):
// alone, such a word is more often the word.
func knownSurname(w string) bool {
	w = strings.TrimSuffix(w, "'s")
	return inNameList(surnames(), w) || surnameShaped(w) || isNameWord(w) && !inNameList(ambiguousGiven(), w)
}

// loneCueWords are the words before a surname alone that make it a person's: the strong cues
// of personCueBefore (roles, honorifics, relatives, verbs that take only people) less the
// greetings, in one set so that a capitalised word costs one lookup.
var loneCueWords = func() *wordSet {
	var b strings.Builder
	for _, set := range []*wordSet{roleWords, directVerbs, kinWords} {
		for w := range set.m {
			if !greetWords.has(w) {
				b.WriteString(w + " ")
			}
		}
	}
	return toSet(b.String())
}()

// workNouns are works that bear their author's or performer's name before them: "the Jensen
// novel", "a Eustachy Gorski concert".
var workNouns = toSet(`novel novels concert concerts album albums biography memoir memoirs symphony sonata
opera poem poems painting paintings sculpture recital songbook discography`)

// workOf reports whether the capitalised words s[a:end] stand between an article and a work
// of workNouns: "the Christiansen novel", "a Eustachy Gorski concert".
func workOf(s string, a, end int) bool {
	pw, ok := prevWord(s, a)
	if !ok || pw.b != a-1 {
		return false
	}
	if art := s[pw.a:pw.b]; art != "the" && art != "a" && art != "an" && art != "The" && art != "A" {
		return false
	}
	w, ok := wordAt(s, end, false)
	return ok && w.a == end+1 && workNouns.has(strings.TrimRight(s[w.a:w.b], ".,"))
}

// loneSurname tries a capitalised word s[a:e] that is no given name of the gazetteer, standing
// alone: a surname, or a name that no list knows. It is a person's after "ex-" and what they
// were ("ex-Zombie Kastner") or a role ("Passenger Okonkwo"); and, when it is known as a name
// or has a surname's ending, where someone speaks ("says Hartvigsson", "Okafor said"), before
// what people do ("Rintanen began writing", "Nowak has to leave") or between an article and a
// work ("the Jensen novel"). "ex-" and what someone was ("ex-Zombie Kastner", "ex-wife Anna")
// is a former member, partner or holder, which only a person is. It returns the end of the
// name, or a.
func (x *scanCtx) loneSurname(a, e int, speech bool) int {
	if x.key == keyPlace {
		return a // a place or a firm named for a person
	}
	s := x.s
	if e-a < 3 || e-a > 24 || e < len(s) && (isAlnum(s[e]) || s[e] >= 0x80 && s[e] != 0xE2) {
		return a
	}
	// Cheap tests of what is around first: most capitalised words open a sentence and have
	// none of these next to them.
	after := e+1 < len(s) && (s[e] == ' ' && isLower(s[e+1]) || s[e] == '\'' || s[e] == ',' || s[e] == ';' || s[e] == 0xE2)
	mid := a > 0 && !afterStop(s, a) && !sentenceStart(s, a)
	if !speech && !after && !mid {
		return a
	}
	// The cues, the cheapest first; the word itself is read only when one is there.
	role, cue := false, speech
	if !cue && mid {
		// A role, a relative or a verb that takes only people just before; not a greeting,
		// which addresses the reader ("Hello, Ada!").
		if pw, ok := prevWord(s, a); ok {
			w := s[pw.a:pw.b]
			role = len(w) > 3 && hasFoldPrefix(w, "ex-") && isAlpha(w[3])
			cue = role || loneCueWords.hasFold(w)
		}
	}
	if !cue && after && (mid || afterFirst(s, e)) {
		cue = x.personCueAfter(e) || mid && workOf(s, a, e)
	}
	if !cue {
		return a
	}
	w := s[a:e]
	if te := titleWord(s, a); te != e && (te != e+2 || !strings.HasPrefix(s[e:], "'s")) {
		return a
	}
	if namePairStop.hasFold(w) || notNames.hasFold(w) || orgWords.hasFold(w) || orgNouns.hasFold(w) ||
		titleWords.hasFold(w) || orgAfter.hasFold(w) {
		return a
	}
	if role {
		x.add(TypeName, a, e, 0.7, "name.single")
		return e
	}
	if !knownSurname(w) {
		return a
	}
	if f := skipSpace(s, e); f > e && f < len(s) && orgAt(s, f) {
		return a // "Gillet Holdings"
	}
	x.add(TypeName, a, e, 0.7, "name.single")
	return e
}

// hasToAfter reports "has to", "had to" or "just has to" after e: an obligation, which a person
// has ("Stanko just has to get out").
func (x *scanCtx) hasToAfter(e int) bool {
	s := x.s[e:]
	s = strings.TrimPrefix(s, " just")
	return strings.HasPrefix(s, " has to ") || strings.HasPrefix(s, " had to ")
}

// addressBlock reports whether the words s[a:end] fill the first line of an address block: a
// line of their own, then (past blank lines) at least two short lines that each start with a
// capital or a digit, as a postal address is written under the addressee's name.
func addressBlock(s string, a, end int) bool {
	if a > 0 && s[a-1] != '\n' || end >= len(s) || s[end] != '\n' && s[end] != '\r' {
		return false
	}
	lines := 0
	for k := end; k < len(s) && lines < 2; {
		for k < len(s) && (s[k] == '\n' || s[k] == '\r' || s[k] == ' ') {
			k++
		}
		if k >= len(s) {
			break
		}
		e := k
		for e < len(s) && s[e] != '\n' && s[e] != '\r' {
			e++
		}
		line := s[k:e]
		if len(line) > 48 || strings.Count(line, " ") > 4 || !isUpper(line[0]) && !isDigit(line[0]) && line[0] < 0x80 {
			return false
		}
		lines++
		k = e
	}
	return lines >= 2
}

// afterFirst is personCueAfter's prefilter for a word that opens a sentence: the first word
// after it (past a comma or semicolon, or its possessive) must be one that personCueAfter reads.
func afterFirst(s string, e int) bool {
	if e+2 < len(s) && (s[e] == '\'' || s[e] == 0xE2) {
		return true // "'s", "’s"
	}
	k := e
	if k < len(s) && (s[k] == ',' || s[k] == ';') {
		k++
	}
	// Most capitalised words open a sentence and the word after them is none of these: its
	// first two letters answer for it before it is read whole.
	if q := k + 1; q+1 < len(s) && s[k] == ' ' && isLower(s[q]) && isLower(s[q+1]) && !afterFirstPairs.has(s[q], s[q+1]) {
		return false
	}
	w, ok := wordAt(s, k, false)
	return ok && w.a <= k+1 && w.b-w.a <= 14 && afterFirstWords.has(s[w.a:w.b])
}

// afterFirstWords are the words that personCueAfter starts from.
var afterFirstWords = func() *wordSet {
	var b strings.Builder
	for _, set := range []*wordSet{afterVerbs, modalVerbs, pronounsThird} {
		for w := range set.m {
			b.WriteString(w + " ")
		}
	}
	b.WriteString("who is was been has just had then also never always again she's he's")
	return toSet(b.String())
}()

// afterFirstPairs holds the first two letters of the words of afterFirstWords that begin with
// two lower-case letters.
var afterFirstPairs = func() (t letterPairs) {
	for w := range afterFirstWords.m {
		if len(w) >= 2 && isLower(w[0]) && isLower(w[1]) {
			t.add(w[0], w[1])
		}
	}
	return t
}()

// letterPairs is a set of pairs of lower-case ASCII letters.
type letterPairs [26]uint32

func (t *letterPairs) add(a, b byte)      { t[a-'a'] |= 1 << (b - 'a') }
func (t *letterPairs) has(a, b byte) bool { return t[a-'a']>>(b-'a')&1 != 0 }

// identifierAt reports whether the word ending at b goes on as an identifier does, with an
// underscore or a digit ("DB_PASSWORD", "Worker2"): the name of a variable or a resource, as in
// "- name: DB_PASSWORD", not of a person.
func identifierAt(s string, b int) bool {
	return b < len(s) && (s[b] == '_' || isDigit(s[b]))
}
