package pii

import (
	"bytes"
	"compress/gzip"
	_ "embed"
	"io"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// A person named in prose without a cue ("Ask Ingrid Larsen whether she approved it") is found
// through a gazetteer of given names: a capitalised word that is a known given name, followed
// by one or two more capitalised words (the surname may be any word: surnames are too many and
// too varied to list), is a person's name unless what surrounds it says it is a company
// ("Didier Schmitt S.A.R.L."), a place ("boulevard William Guyot") or a heading.
//
// The given names are those of the npm package gender-detection-from-name 1.11.5 (MIT; English,
// German, Spanish, French, Italian and Turkish lists), less every word that the Debian wamerican
// dictionary writes in lower case ("will", "grace", "max"), so that a capitalised common word
// never counts as a name. names/README.md says how the list is made. The evaluation corpus is
// generated from other lists (Faker's), so its names test the gazetteer honestly.
//
// The prefilter is the scan's own: only a capitalised word followed by a space and another
// capital reaches the lookup, and the list is decompressed the first time one does.

//go:embed names/given.txt.gz
var givenNamesGz []byte

//go:embed names/ambiguous.txt.gz
var ambiguousGz []byte

//go:embed names/surnames.txt.gz
var surnamesGz []byte

var (
	givenNames     = sync.OnceValue(func() map[string]struct{} { return nameList(givenNamesGz) })
	ambiguousGiven = sync.OnceValue(func() map[string]struct{} { return nameList(ambiguousGz) })
	surnames       = sync.OnceValue(func() map[string]struct{} { return nameList(surnamesGz) })
)

// inNameList reports whether w, compared in lower case, is in list.
func inNameList(list map[string]struct{}, w string) bool {
	if len(w) > 32 || len(w) == 0 {
		return false
	}
	// Lower-case into a stack buffer, rune by rune where the word leaves ASCII.
	var buf [96]byte
	b := buf[:0]
	for i := 0; i < len(w); {
		if c := w[i]; c < 0x80 {
			b = append(b, lower(c))
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(w[i:])
		b = utf8.AppendRune(b, unicode.ToLower(r))
		i += n
	}
	_, ok := list[string(b)]
	return ok
}

// nameList decompresses an embedded list of lower-case names, one a line.
func nameList(gz []byte) map[string]struct{} {
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		return nil
	}
	b, err := io.ReadAll(zr)
	if err != nil {
		return nil
	}
	lines := strings.Split(string(b), "\n")
	m := make(map[string]struct{}, len(lines))
	for _, l := range lines {
		m[l] = struct{}{}
	}
	return m
}

// isGivenName reports whether w, a capitalised word, is in the gazetteer. Most capitalised
// words of prose are not ("The", "Latency", "Tool"); a filter of the ASCII names answers them
// in a few instructions a byte, without the map.
//
// A name written with diacritics the list spells without ("Rafał", "Miłosz" for "rafal",
// "milosz") is looked up in ASCII as well.
func isGivenName(w string) bool {
	h, ascii := asciiFoldHash(w)
	if ascii {
		return givenFilter().has(h) && inNameList(givenNames(), w)
	}
	if inNameList(givenNames(), w) {
		return true
	}
	if len(w) > 32 {
		return false
	}
	var buf [96]byte
	f := latinLower(buf[:0], w)
	if !isASCII(f) {
		return false
	}
	_, ok := givenNames()[string(f)]
	return ok
}

func isASCII(b []byte) bool {
	for _, c := range b {
		if c >= 0x80 {
			return false
		}
	}
	return true
}

// nameFilter is a Bloom filter of 2^20 bits with two probes from one 64-bit hash: for the
// 60,000 given names, about one word in a hundred that is none passes it.
type nameFilter [1 << 14]uint64

func (f *nameFilter) add(h uint64) {
	a, b := h&(1<<20-1), h>>44
	f[a>>6] |= 1 << (a & 63)
	f[b>>6] |= 1 << (b & 63)
}

func (f *nameFilter) has(h uint64) bool {
	a, b := h&(1<<20-1), h>>44
	return f[a>>6]&(1<<(a&63)) != 0 && f[b>>6]&(1<<(b&63)) != 0
}

var givenFilter = sync.OnceValue(func() *nameFilter {
	f := new(nameFilter)
	for w := range givenNames() {
		if h, ok := asciiFoldHash(w); ok {
			f.add(h)
		}
	}
	return f
})

// asciiFoldHash hashes w lower-cased (FNV-1a, then mixed); ok is false when w is not ASCII.
func asciiFoldHash(w string) (uint64, bool) {
	h := uint64(14695981039346656037)
	for i := 0; i < len(w); i++ {
		c := w[i]
		if c >= 0x80 {
			return 0, false
		}
		h ^= uint64(lower(c))
		h *= 1099511628211
	}
	h ^= h >> 29
	h *= 0xbf58476d1ce4e5b9
	h ^= h >> 32
	return h, true
}

// titleWord returns the end of a title-case word at k (a capital, then lower-case letters,
// apostrophes or hyphens, with letters outside ASCII anywhere), or k.
func titleWord(s string, k int) int {
	if k >= len(s) {
		return k
	}
	e := k
	if isUpper(s[k]) {
		e++
	} else if s[k] >= 0x80 {
		r, n := utf8.DecodeRuneInString(s[k:])
		if !isUpperRune(r) {
			return k
		}
		e += n
	} else {
		return k
	}
	for e < len(s) {
		c := s[e]
		switch {
		case isLower(c), c >= 0x80:
			if c >= 0x80 {
				r, n := utf8.DecodeRuneInString(s[e:])
				if !isLetterRune(r) || isUpperRune(r) {
					return e
				}
				e += n
				continue
			}
			e++
		case (c == '-' || c == '\'') && e+1 < len(s) && (isAlpha(s[e+1])):
			e++
			if c == '-' && isUpper(s[e]) {
				e++ // a double-barrelled name: Vasquez-Ortega
			}
		default:
			return e
		}
	}
	return e
}

func isUpperRune(r rune) bool  { return unicode.IsUpper(r) }
func isLetterRune(r rune) bool { return unicode.IsLetter(r) }

// namePairStop are capitalised words that start or continue no person's name here: days,
// months, articles and place words.
var namePairStop = toSet(`the a an this that my your our his her their we you he she they it in on at to for of
with and or but if as by from monday tuesday wednesday thursday friday saturday sunday january february march
april may june july august september october november december street road avenue lane drive way court
place square park station airport university college school hospital clinic bank group inc ltd llc plc
gmbh corp company city county state valley river lake mountain island beach hotel center centre museum
church tower building mall market north south east west new san santa saint sainte st el la le los
las del de van von der den di da du hills heights springs falls port fort mount bay harbour harbor village town borough ville`)

// orgSuffixes end a company's name, written as they are written (case matters: "AS" is a
// Norwegian company, "as" a word).
var orgSuffixes = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`SA S.A. S.A.R.L. SARL SAS S.A.S. GmbH GbR AG KG KGaA OHG eG e.G. SE Ltd Ltd. Limited LLC
		Inc Inc. PLC plc Corp Corp. Co Co. BV B.V. NV N.V. SpA S.p.A. Srl S.r.l. Sp. Oy AB AS A/S ApS Lda Ltda Ltda. ME EI
		EIRELI S.L. SL Oyj Ab HB KB Kft Kft. Zrt Zrt. Nyrt Nyrt. Bt Bt. Kkt Kkt. a.s. s.r.o. spol. d.o.o. j.d.o.o. d.d.
		Lda. SRL S.R.L. UAB OÜ SIA ASA IVS K/S I/S Sàrl SAGL S.C. S.A.S. Tbk A.Ş. Şti. ООО ОАО ПАО АО ТОВ`) {
		m[w] = true
	}
	return m
}()

// orgAfter are words that, after a run of capitalised words, make it a company or a place.
var orgAfter = toSet(`fils filhos sons söhne hijos figli partners group holding holdings associates branch warehouse
hub office store shop campus plant factory depot region district station airport tractor tractors equipment
dealer dealers dealership brand products product model models machinery engine engines award awards prize prizes
trophy memorial lecture fellowship scholarship stadium arena bridge tunnel highway motorway library theatre
theater festival collection auditorium pop-up boutique outlet flagship jacket jackets shirt shirts cap caps
belt belts bag bags handbag handbags shoes sneakers boots dress coat jeans perfume fragrance sunglasses wallet
scarf hoodie sweater`)

// nameConnectors join the names of partners in a firm's name: "Lima Viana e Filhos".
var nameConnectors = toSet("e et y und and &")

// orgAt reports whether the word at f ends a company's or a place's name: a legal suffix, a word
// of orgAfter, orgWords or orgNouns, or a connector followed by one.
func orgAt(s string, f int) bool {
	w, ok := wordAt(s, f, false)
	if !ok || w.a != f || w.b-w.a > 14 {
		return f < len(s) && s[f] == '&'
	}
	word := strings.TrimRight(s[w.a:w.b], ",")
	bare := strings.TrimRight(word, ".") // "the Cruz de Farias hub."
	if orgSuffixes[word] || orgAfter.hasFold(bare) || orgWords.hasFold(bare) || orgNouns.hasFold(bare) {
		return true
	}
	if nameConnectors.has(word) {
		if n, ok := wordAt(s, w.b, false); ok && n.b-n.a <= 14 {
			nw := s[n.a:n.b]
			return orgSuffixes[nw] || orgAfter.hasFold(nw) || orgNouns.hasFold(nw)
		}
	}
	return false
}

// placeBefore are words after which a run of capitalised words is a street, square or place.
var placeBefore = toSet(`boulevard bd rue avenue av via viale piazza corso calle avenida plaza rua praça travessa
condomínio largo strasse straße platz allee weg ulica aleja plac street road square place saint sainte san
santa são room hall wing auditorium saal sala salle zaal aula đường phố ngõ hẻm`)

// namePair tries a name that starts with the capitalised word s[a:e]; it returns the end of the
// name, or a.
func (x *scanCtx) namePair(a, e int) int {
	if x.key == keyPlace {
		return a // a place or a firm named for a person
	}
	s := x.s
	if e-a < 2 || e-a > 20 || titleWord(s, a) != e || namePairStop.hasFold(s[a:e]) {
		return a
	}
	conf := 0.75
	// How the first word counts: a given name of the list makes the pair a name; a given name
	// that is also a word or a place ("Chad", "Heather", "Victor", "Sofia"), or a word the
	// list lacks, needs more (see below).
	const (
		firstGiven = iota
		firstAmbiguous
		firstUnknown
	)
	first := firstGiven
	switch {
	case titleWords.hasFold(s[a:e]):
		return a // "King Charles", "Princess Royal"
	case isGivenName(s[a:e]):
	case familyFirstAt(s, a, e):
		// names_familyfirst.go: "Kovács Zsófia", "Park Seo-yeon", "Nguyễn Thị Lan"
	case middleInitial(s, e) && e-a >= 3 && !orgWords.hasFold(s[a:e]) && !orgNouns.hasFold(s[a:e]) && !notNames.hasFold(s[a:e]):
		// "Halldór Ó Árnþórsson", "Ravil G Yefimov": a middle initial makes a name of the list's
		// unknowns.
	case inNameList(ambiguousGiven(), s[a:e]):
		first, conf = firstAmbiguous, 0.7
	default:
		if notNames.hasFold(s[a:e]) || orgWords.hasFold(s[a:e]) || orgNouns.hasFold(s[a:e]) {
			return a
		}
		first, conf = firstUnknown, 0.7
	}
	surname := ""
	// One or two more capitalised words, with nobiliary particles between.
	end := e
	words := 1
	k := e
	for words < 4 && k+1 < len(s) && s[k] == ' ' {
		k++
		q := k
		for {
			w, ok := wordAt(s, q, false)
			if !ok || w.b-w.a > 4 || !nameParticles.has(s[w.a:w.b]) || w.b >= len(s) || s[w.b] != ' ' {
				break
			}
			q = w.b + 1
		}
		if middleInitial(s, k-1) {
			q = skipInitial(s, q)
		}
		we := titleWord(s, q)
		if placeNounAt(s, q, we, words) {
			return a // names_placenoun.go: "Tycho Brahe Planetarium", "Anne Frank Huis"
		}
		if we-q < 2 || we < len(s) && isAlnum(s[we]) || namePairStop.hasFold(s[q:we]) || orgSuffixes[s[q:we]] ||
			orgAfter.hasFold(s[q:we]) || orgWords.hasFold(s[q:we]) || orgNouns.hasFold(s[q:we]) {
			break
		}
		if words == 1 {
			surname = s[q:we]
		}
		end = we
		k = we
		words++
	}
	if words < 2 {
		return a
	}
	possessive := strings.HasSuffix(s[a:end], "'s")
	if possessive {
		if possessiveAlone(s, end) && x.personCueBefore(a) != cueStrong {
			return a // "at Jack Daniel's this weekend", "Expense: Jack Daniel's, 77 EUR": a shop or a brand
		}
		end -= 2 // "Pamela Meyer's insurance": the name, and what is hers
	}
	// A pair that is not shown to be a name may still be one that nothing around it marks
	// ("John Albu raporlu"): it is kept as a person spoken of, for the health information
	// beside it, once it is shown to be no firm and no place.
	maybe := first != firstGiven && !x.pairCounts(a, e, end, surname, first == firstAmbiguous) && !speakerLabel(s, a, end)
	if maybe && first == firstUnknown {
		return a // only a given name of the lists opens a pair kept so
	}
	// What follows and what precedes.
	f := end
	for f < len(s) && (s[f] == ' ' || s[f] == '-' || s[f] == ',') {
		f++
	}
	if f < len(s) && !possessive && orgAt(s, f) {
		return a
	}
	if pw, ok := wordBefore(s, a); ok && pw.b-pw.a <= 12 && placeBefore.hasFold(s[pw.a:pw.b]) || streetBefore(s, a) || streetEnd(s, a, end) || streetStart(s, a, e, end) {
		return a
	}
	if !possessive && attributive(s, a, end) {
		return a // "a Calvin Klein shirt", "the Alfred Nobel hall": a brand or an eponym
	}
	if x.eponymAt(a, end) {
		return end // names_eponym.go, passed over whole so that no word of it is read alone: "Martin Luther King Jr. Blvd", "Jana Pawła II", "Expense: Johnnie Walker"
	}
	if placeCueBefore(s, a) || (knownPlace(s, a, end) || words == 2 && brandPlural(surname)) && x.personCueBefore(a) != cueStrong {
		return a
	}
	if maybe {
		x.personCue = true
		return a
	}
	x.add(TypeName, a, end, conf, "name.gazetteer")
	return end
}

// firmAfter reports whether what follows a list of names that ends at e makes the list one
// firm's name: a legal suffix or a firm's word ("Lopez, Santos and Coleman LLC"), a figure
// ("Lopez, Robinson and Guerra 31%"), or a verb in the singular ("Green, Myers and Johnston is
// listed as the vendor"), where people listed would take the plural.
func firmAfter(s string, e int) bool {
	f := skipSpace(s, e)
	if f == e || f >= len(s) {
		return false
	}
	if isDigit(s[f]) || orgAt(s, f) {
		return true
	}
	w, ok := wordAt(s, f, false)
	return ok && w.a == f && firmVerbs.has(s[w.a:w.b])
}

// firmVerbs are verbs in the third person singular that follow a firm's name.
var firmVerbs = toSet("is was has")

var nameParticles = toSet("van von de da di del della der den du dos das le la 't ten ter bin ibn al")

// orgNouns end the names of firms, funds and brands ("Russell Investments").
var orgNouns = toSet(`investments investment capital securities insurance financial finance consulting media pharma
pharmaceuticals motors airlines airways foods energy industries enterprises ventures brands communications
networks digital logistics realty properties construction trust fund funds asset assets management`)

// roleWords name a person's role, greet or thank someone, or are honorifics, in the languages
// the gate sees most; a capitalised pair after one is a person's name.
var roleWords = toSet(`patient patientin passenger passagier candidate customer client employee applicant guardian
beneficiary tenant student member driver colleague assignee manager thanks thank regards cheers sincerely
dear hi hello ask tell told ping notify cc met mr mrs ms miss mx dr prof herr frau pani pan sr sra srta señor
señora sig signor signora sig.ra mme mlle monsieur madame dott ing mevrouw meneer dhr mevr contact contacter
contactar contattare kontaktieren richiamare llamar avisa avisar appeler rappeler anrufen emailed phoned
invite invited hire hired welcome remind`)

// middleInitial reports whether " X " or " X. " (one capital letter) follows e, then a capitalised word.
func middleInitial(s string, e int) bool {
	if e+1 >= len(s) || s[e] != ' ' {
		return false
	}
	return skipInitial(s, e+1) > e+1
}

// skipInitial returns the start of the word after an initial at q, or q.
func skipInitial(s string, q int) int {
	r := q
	switch {
	case q < len(s) && isUpper(s[q]):
		r++
	case q < len(s) && s[q] >= 0x80:
		ru, n := utf8.DecodeRuneInString(s[q:])
		if !isUpperRune(ru) {
			return q
		}
		r += n
	default:
		return q
	}
	if r < len(s) && s[r] == '.' {
		r++
	}
	if r+1 < len(s) && s[r] == ' ' && (isUpper(s[r+1]) || s[r+1] >= 0x80) {
		return r + 1
	}
	return q
}

// nameList reads a list of single capitalised words at a ("Gaetane, Hannah, Anthony and
// Derek"); when at least three are given names of the list and they are most of it, each
// given name is a person's name. It returns the end of the list, or a.
func (x *scanCtx) nameList(a int) int {
	if x.key == keyPlace {
		return a // a place or a firm named for a person
	}
	s := x.s
	type item struct{ a, b int }
	var items [12]item
	n, given := 0, 0
	k := a
	for n < len(items) {
		e := titleWord(s, k)
		if e-k < 2 || e < len(s) && isAlnum(s[e]) || namePairStop.hasFold(s[k:e]) {
			break
		}
		items[n] = item{k, e}
		n++
		if isGivenName(s[k:e]) {
			given++
		}
		switch {
		case strings.HasPrefix(s[e:], ", and "):
			k = e + 6
		case strings.HasPrefix(s[e:], ", "):
			k = e + 2
		case strings.HasPrefix(s[e:], " and "), strings.HasPrefix(s[e:], " und "):
			k = e + 5
		case strings.HasPrefix(s[e:], " et "):
			k = e + 4
		case strings.HasPrefix(s[e:], " y "), strings.HasPrefix(s[e:], " e "):
			k = e + 3
		default:
			k = len(s) + 1
		}
		if k > len(s) {
			break
		}
	}
	if n < 3 || given < 3 || 2*given < n+1 || firmAfter(s, items[n-1].b) {
		return a
	}
	for _, it := range items[:n] {
		if isGivenName(s[it.a:it.b]) {
			x.add(TypeName, it.a, it.b, 0.7, "name.list")
		}
	}
	return items[n-1].b
}

// notPossessed are words that, after a name in the possessive, say that nothing of the person's
// follows: "Jack Daniel's this weekend", "McDonald's and Wendy's", "a bottle of Jack Daniel's
// for the party".
var notPossessed = toSet(`this that these those the a an and or but at in on for to from with by vs is was are
were near next today tonight tomorrow yesterday again now instead`)

// possessiveAlone reports whether nothing that belongs to someone follows a name in the
// possessive that ends at e (after its "'s"): the text ends, a mark or a figure follows, or a
// word that opens no noun phrase of the owner's. Such a possessive names a shop, a brand or a
// house ("at McDonald's", "Jack Daniel's, 77.77 EUR"), not what a person has.
func possessiveAlone(s string, e int) bool {
	k := skipSpace(s, e)
	if k >= len(s) {
		return true
	}
	if !isAlpha(s[k]) {
		return s[k] != '\'' && s[k] != '"'
	}
	w, ok := wordAt(s, k, false)
	return ok && w.a == k && notPossessed.has(s[w.a:w.b])
}
