package pii

import (
	"slices"
	"strings"
)

// Street addresses. The anchor is a house number; around it the detector looks for a street:
// a USPS street suffix after the name ("221 Baker Street", "12 Crown St"), a street-type word
// before it ("Via Roma 131", "Rue de Tanger 29", "ul. Grochowa 80"), or a street word ending of
// the continental languages ("Friedhofstrasse 33", "Rooseveltlaan 110", "Koskikatu 25",
// "Nybyvägen 65"). Military addresses (PSC/Unit ... Box, APO/FPO/DPO), US "City, ST 12345" lines
// and UK/Canadian postcodes count as well. Without a street form, an address cue ("my address
// is", "live at", "meet me at", "ship to") before a number followed by a name also counts.

// USPS Publication 28 primary street suffixes (and common abbreviations).
var streetSuffixes = toSet(`street st str road rd avenue ave av lane ln drive dr boulevard blvd court ct
place pl square sq terrace ter tce close crescent cres parkway pkwy highway hwy way circle cir trail trl
row gardens gdns grove gr hill hills walk mews loop gateway cliff cliffs island islands isle greens green
dale park plaza alley bend bridge brook brooks burg bypass camp canyon cape causeway center centre circus
common corner corners course courts cove coves creek crest crossing crossroad curve dam divide drives
estate estates expressway extension falls ferry field fields flat flats ford fords forest forge fork forks
fort freeway garden glen glens harbor harbour haven heights hollow inlet junction knoll knolls lake lakes
landing light lights lock locks lodge manor manors meadow meadows mill mills mission motorway mount
mountain mountains neck orchard oval overpass parks pass passage path pike pine pines plain plains point
points port ports prairie radial ramp ranch rapid rapids ridge ridges river roads route shoal shoals shore
shores skyway spring springs spur spurs squares station stravenue stream streets summit throughway trace
track trafficway tunnel turnpike underpass union unions valley valleys viaduct view views village villages
ville vista walks wall ways well wells wharf quay embankment broadway rise chase parade esplanade
promenade hts pde esp`)

// Common English words that are also suffixes: they count only when capitalised.
var weakSuffixes = toSet(`way park place point view well run union mission light key rest plain land lock
wall fall forest camp club course flat ford fort cape mall neck oval spur path pass port row crest divide
extension trace track common corner green hill hills field fields garden station center centre bridge
lake river spring springs island shore village valley mount summit landing estate heights cove ridge
forge ferry dale glen haven inlet junction light lights meadow meadows mill mills orchard pine pines
plains points ports prairie radial ramp ranch rapid rapids shoal shoals shores square stream tunnel views
villages wells wharf quay rise chase parade circus close walk grove court drive lane`)

// Words that precede the street name.
var streetPrefixes = toSet(`rue avenue av avda avda. piazzetta via viale piazza piazzale vicolo corso largo calle avenida av.
rua praça praca travessa alameda estrada rodovia camino paseo plaza carrer passeig ul ul. ulica al.
aleja boulevard bd chemin route impasse allée quai cours place strada str. calea bulevardul odos leoforos
plateia cuesta cañada ronda rambla glorieta travesía travesia pasaje callejón callejon urbanización
urbanizacion carretera senda vía sentier allee passage vicolo contrada borgo lungomare salita calçada
calcada beco`)

// Street-type words that follow the name as a separate word (in lower case in those languages).
var streetWords = toSet(`út utca tér körút u. rkp. sor köz gate gata gatan vej vei veien vegen vägen
gade gaden straße strasse str. weg baan laan straat plein gracht kade dijk singel steenweg chaussee
allee gasse platz ring damm ufer iela gatve prospekt náměstí třída ulice cesta trg ulica útja u rkp kapu
terrasse tee`)

// Endings of one-word street names.
var streetEndings = []string{"straße", "strasse", "str.", "weg", "gasse", "platz", "allee", "damm", "ufer",
	"chaussee", "steig", "pfad", "graben", "laan", "straat", "gracht", "plein", "kade", "dijk", "singel",
	"steenweg", "baan", "vej", "gade", "allé", "gatan", "gata", "vägen", "väg", "gränd", "veien", "vei",
	"vegen", "vegur", "braut", "stígur", "stræti", "straeti", "katu", "tie", "kuja", "polku", "tori", "kaari", "rinne", "tanhua",
	"ulica", "utca", "útja", "körút", "iela", "gatve", "prospekt", "straße", "gade", "torv", "stræde",
	"berg", "markt"}

var addrStop = toSet(`the a an of and or in on at to for with by from is was are were be been has have had
years year old people times days weeks months hours minutes percent per cent page pages chapter article
title section vol volume no number members items units songs copies million billion thousand hundred
its his her their our your my this that these those than then since until about over under after
before during between into through more less most least first second third last next every each all
some many few several other another such only also just even still very too so as not but if when
where which who whom whose what why how there here while once year-old km miles mi kg lbs am pm`)

var addressCues = newCues("address", "live at", "lives at", "living at", "lived at", "live in",
	"lived in", "lives in", "located at", "location:", "meet me at", "meet you at", "sent to",
	"send it to", "send to", "deliver to", "delivered to", "delivery to", "ship to", "shipped to",
	"mail to", "moved to", "move to", "drop me off at", "drops you off at", "drop off at", "pick me up at",
	"pick up at", "taxi to", "arrived at", "stop at", "corner of", "return to", "reside at", "residing at",
	"resides at", "office is at", "offices are", "is at", "are at", "enter on", "located on", "visit us at",
	"find us at", "headquartered at", "situated at", "billing", "shipping", "postal", "mailing",
	"adresse", "anschrift", "wohnhaft", "dirección", "indirizzo", "endereço", "is on")

var particles = toSet("de da do del di la le des du dos das della delle dei degli van von der den ter")

func toSet(s string) *wordSet {
	ws := &wordSet{m: map[string]bool{}}
	for _, w := range strings.Fields(s) {
		ws.m[w] = true
		h := wordHash(w)
		ws.bloom[h>>6] |= 1 << (h & 63)
	}
	return ws
}

// wordSet is a set of short lower-case words. Most words looked up in prose are not in it: a
// 1024-bit filter on length and first, second and last byte answers those without hashing the
// whole word.
type wordSet struct {
	bloom [16]uint64
	m     map[string]bool
}

func wordHash(w string) uint32 {
	if len(w) == 0 {
		return 0
	}
	k := uint32(len(w)) | uint32(w[0])<<8 | uint32(w[len(w)-1])<<16 | uint32(w[len(w)/2])<<24
	return (k * 0x9E3779B1) >> 22
}

// hasFold is has(lower-cased w) without building the lower-cased string first.
func (ws *wordSet) hasFold(w string) bool {
	if len(w) == 0 || len(w) > 32 {
		return false
	}
	k := uint32(len(w)) | uint32(lower(w[0]))<<8 | uint32(lower(w[len(w)-1]))<<16 | uint32(lower(w[len(w)/2]))<<24
	h := (k * 0x9E3779B1) >> 22
	if ws.bloom[h>>6]&(1<<(h&63)) == 0 {
		return false
	}
	var buf [32]byte
	b := lowerInto(buf[:0], w)
	return ws.m[string(b)]
}

func (ws *wordSet) has(w string) bool {
	h := wordHash(w)
	if ws.bloom[h>>6]&(1<<(h&63)) == 0 {
		return false
	}
	return ws.m[w]
}

// word is a span of letters (and . ' - inside) found by wordAt.
type word struct{ a, b int }

// wordAt returns the next word at or after k, skipping spaces (and, if commas, one comma).
func wordAt(s string, k int, commas bool) (word, bool) {
	for k < len(s) && (s[k] == ' ' || (commas && (s[k] == ',' || s[k] == '\n' || s[k] == '\r'))) {
		k++
	}
	a := k
	for k < len(s) {
		c := s[k]
		if isAlpha(c) || c == '\'' || (c == '-' && k > a) || (c == '.' && k > a) {
			k++
			continue
		}
		break
	}
	if k == a {
		return word{a, a}, false
	}
	return word{a, k}, true
}

// inWordTab holds the bytes wordBefore takes as part of a word: letters, dots, apostrophes and
// hyphens.
var inWordTab = func() (t [256]bool) {
	for c := range 256 {
		t[c] = isAlpha(byte(c)) || c == '.' || c == '\'' || c == '-'
	}
	return t
}()

// wordBefore returns the word ending just before k (skipping spaces).
func wordBefore(s string, k int) (word, bool) {
	b := k
	for b > 0 && s[b-1] == ' ' {
		b--
	}
	a := b
	for a > 0 && inWordTab[s[a-1]] {
		a--
	}
	if a == b {
		return word{a, a}, false
	}
	return word{a, b}, true
}

func lowerWord(buf []byte, s string, w word) string {
	return string(lowerInto(buf[:0], s[w.a:w.b]))
}

func capitalized(s string, w word) bool {
	c := s[w.a]
	if isUpper(c) {
		return true
	}
	// Non-ASCII initial: treat as capitalised unless the rest is ASCII lower case only.
	return c >= 0x80 && (w.b-w.a < 2 || true)
}

// nameWord: a capitalised word that is not a stop word (or any non-stop word in lower-case text).
func nameWord(s string, w word, lowerText bool) bool {
	if w.b-w.a < 2 && !(w.b-w.a == 1 && isUpper(s[w.a])) {
		return false
	}
	var buf [32]byte
	if w.b-w.a > 30 {
		return false
	}
	lw := lowerWord(buf[:], s, w)
	if addrStop.has(lw) {
		return false
	}
	return capitalized(s, w) || lowerText
}

func trimDot(lw string) string { return strings.TrimSuffix(lw, ".") }

// endingsByLast indexes streetEndings by their last byte.
var endingsByLast = func() (t [256][]string) {
	for _, e := range streetEndings {
		c := e[len(e)-1]
		if !slices.Contains(t[c], e) {
			t[c] = append(t[c], e)
		}
	}
	return t
}()

func hasStreetEnding(lw string) bool {
	if len(lw) < 5 {
		return false
	}
	for _, e := range endingsByLast[lw[len(lw)-1]] {
		if len(lw) >= len(e)+2 && lw[len(lw)-len(e):] == e {
			return true
		}
	}
	return false
}

// isSuffixWord reports whether w is a street suffix in this position.
func isSuffixWord(s string, w word) bool {
	var buf [32]byte
	if w.b-w.a > 30 {
		return false
	}
	lw := trimDot(lowerWord(buf[:], s, w))
	if !streetSuffixes.has(lw) {
		return false
	}
	if weakSuffixes.has(lw) && !capitalized(s, w) {
		return false
	}
	return true
}

// isLowerText reports text written all in lower case (as chat often is), where capitalisation
// cannot mark names: the string starts in lower case and no capital is near the position.
func isLowerText(s string, a, b int) bool {
	for k := 0; k < len(s); k++ {
		if isUpper(s[k]) {
			return false
		}
		if isLower(s[k]) {
			break
		}
	}
	a = max(a-120, 0)
	b = min(b+120, len(s))
	for i := a; i < b; i++ {
		if isUpper(s[i]) {
			return false
		}
	}
	return true
}

// address looks for a street address around the number word s[i:j].
func (x *scanCtx) address(i, j int) int {
	s := x.s
	nd := 0
	for k := i; k < j && isDigit(s[k]); k++ {
		nd++
	}
	if nd > 6 || (j-i > nd+1) || (j-i == nd+1 && !isAlpha(s[j-1])) {
		return i // not a house number ("5th", "10am", "123456789")
	}
	// Most numbers in prose stand between lower-case words ("420 ms", "3 attempts"): an address
	// needs a capitalised word next to its number, except in text written all in lower case.
	nextCap := false
	k0 := skipSpace(s, j)
	if k0 < len(s) && isDigit(s[k0]) { // "9931 14 Iliou Street"
		for k0 < len(s) && isDigit(s[k0]) {
			k0++
		}
		k0 = skipSpace(s, k0)
	}
	if k0 < len(s) {
		nextCap = isUpper(s[k0]) || s[k0] >= 0x80
		if !nextCap && (s[k0] == 'r' || s[k0] == 'a') { // rue, avenue
			if w, ok := wordAt(s, k0, false); ok && w.b-w.a <= 10 {
				var b2 [16]byte
				nextCap = streetPrefixes.has(lowerWord(b2[:], s, w))
			}
		}
	}
	prevCap := false
	if pw, ok := wordBefore(s, i); ok && pw.b-pw.a < 30 {
		prevCap = capitalized(s, pw) || streetWords.hasFold(s[pw.a:pw.b])
	}
	if !nextCap && !prevCap && !isLowerText(s, i, j) {
		return i
	}
	if e := x.military(i, j); e > j {
		return e
	}
	lowerText := isLowerText(s, i, j)
	var buf [32]byte

	// Street after the number: [number] Name... Suffix | [number] Prefix Name...
	k := j
	names := 0
	if w, ok := wordAt(s, k, false); ok && false {
		_ = w
	}
	// Allow a second number ("9554 62 Rue Gafsa") or a unit letter.
	if k2 := skipSpace(s, k); k2 < len(s) && isDigit(s[k2]) {
		e := k2
		for e < len(s) && isDigit(s[e]) {
			e++
		}
		if e-k2 <= 5 && e < len(s) && s[e] == ' ' {
			k = e
		}
	}
	for step := 0; step < 6; step++ {
		w, ok := wordAt(s, k, false)
		if !ok || w.b-w.a > 30 {
			break
		}
		lw := lowerWord(buf[:], s, w)
		if streetPrefixes.has(lw) && (step == 0) && (capitalized(s, w) || lowerText || lw != "via" && lw != "place" && lw != "route" && lw != "boulevard") {
			// "12 Rue de Tanger": the name follows.
			e, n := x.nameRun(w.b, 4, lowerText)
			if n > 0 {
				return x.emitAddress(i, e, 0.85, "address.street")
			}
			break
		}
		if names > 0 && isSuffixWord(s, w) {
			return x.emitAddress(i, w.b, 0.85, "address.street")
		}
		if names > 0 && streetWords.has(trimDot(lw)) {
			return x.emitAddress(i, w.b, 0.8, "address.street")
		}
		if hasStreetEnding(lw) && (capitalized(s, w) || lowerText) {
			return x.emitAddress(i, w.b, 0.85, "address.street")
		}
		if !nameWord(s, w, lowerText) {
			break
		}
		names++
		k = w.b
	}

	// Street before the number: "Friedhofstrasse 33", "Via Roma 131", "Erzsébet tér 19.",
	// "Sludevej 13 St.".
	if w, ok := wordBefore(s, i); ok && w.b-w.a <= 30 {
		lw := lowerWord(buf[:], s, w)
		start := -1
		switch {
		case hasStreetEnding(trimDot(lw)) && (capitalized(s, w) || lowerText):
			start = w.a
			if p, ok := wordBefore(s, w.a); ok && p.b-p.a < 30 {
				if streetPrefixes.has(lowerWord(buf[:], s, p)) {
					start = p.a
				}
			}
		case streetWords.has(lw) || streetWords.has(trimDot(lw)) || isSuffixWord(s, w):
			// Street-type words of other languages follow a name that may be lower case
			// ("Árpád fejedelem útja 3."); "gate" needs a capitalised one.
			if p, ok := wordBefore(s, w.a); ok && p.b-p.a < 30 {
				lp := lowerWord(buf[:], s, p)
				if nameWord(s, p, lowerText) || streetWords.has(trimDot(lw)) && trimDot(lw) != "gate" && !addrStop.has(lp) && len(lp) > 2 {
					start = p.a
					if q, ok := wordBefore(s, p.a); ok && nameWord(s, q, lowerText) {
						start = q.a
					}
				}
			}
		default:
			// "Via Roma 131", "ul. Grochowa 80", "Rua Diadema 1903".
			if nameWord(s, w, lowerText) {
				p := w
				for n := 0; n < 3; n++ {
					q, ok := wordBefore(s, p.a)
					if !ok || q.b-q.a > 30 {
						break
					}
					lq := lowerWord(buf[:], s, q)
					if streetPrefixes.has(lq) {
						start = q.a
						break
					}
					if sentenceEndWord(s, q) {
						break // "Avenida Getúlio Vargas. Seat 28F": the number is the next sentence's
					}
					if !nameWord(s, q, lowerText) && !particles.has(lq) {
						break
					}
					p = q
				}
			}
		}
		if start >= 0 {
			return x.emitAddress(start, j, 0.85, "address.street")
		}
		// "Nieuwe Baan 473 St.": number followed by a suffix.
		if nw, ok := wordAt(s, j, false); ok && nameWord(s, w, lowerText) {
			lnw := trimDot(lowerWord(buf[:], s, nw))
			if lnw == "st" || lnw == "street" || lnw == "rd" || lnw == "road" {
				return x.emitAddress(w.a, nw.b, 0.75, "address.street")
			}
		}
	}

	// "Edeby 55, Apt. 297": a name, this number, then a unit designator.
	if pw, ok := wordBefore(s, i); ok && nameWord(s, pw, lowerText) {
		if uw, ok := wordAt(s, j, true); ok && uw.b-uw.a <= 10 {
			lu := trimDot(lowerWord(buf[:], s, uw))
			if lu == "apt" || lu == "suite" || lu == "unit" || lu == "flat" || lu == "apartment" || lu == "ste" {
				if k2 := skipSpace(s, uw.b); k2 < len(s) && (isDigit(s[k2]) || s[k2] == '#') {
					start := pw.a
					for n := 0; n < 3; n++ {
						q, ok := wordBefore(s, start)
						if !ok || !nameWord(s, q, lowerText) || q.b-q.a > 30 {
							break
						}
						start = q.a
					}
					return x.emitAddress(start, j, 0.85, "address.unit")
				}
			}
		}
	}
	// "P.O. Box 255", "PO Box 12", "Postbox 53".
	if pw, ok := wordBefore(s, i); ok {
		lp := lowerWord(buf[:], s, pw)
		if lp == "postbox" || lp == "postfach" || lp == "box" && (strings.HasSuffix(strings.ToLower(s[max(0, pw.a-5):pw.a]), "p.o. ") || strings.HasSuffix(strings.ToLower(s[max(0, pw.a-3):pw.a]), "po ")) {
			return x.emitAddress(pw.a, j, 0.8, "address.pobox")
		}
	}

	// "City, ST 12345": a US state line.
	if nd == 5 && i >= 5 && s[i-1] == ' ' && isUpper(s[i-2]) && isUpper(s[i-3]) && s[i-4] == ' ' && s[i-5] == ',' {
		return x.emitAddress(i-3, j, 0.65, "address.zip")
	}

	// An address cue before a number that stands next to a name.
	nw, ok1 := wordAt(s, j, false)
	pw, ok2 := wordBefore(s, i)
	if ok1 && nameWord(s, nw, lowerText) || ok2 && nameWord(s, pw, lowerText) && nd <= 4 {
		if ok1 && isMonthWord(s, nw) || ok2 && weekdays.hasFold(s[pw.a:pw.b]) {
			return i // "on Saturday 7 August": a date
		}
		if ok2 && designation(s, pw, i) {
			return i // "ICD-10", "ISO-9001": a standard's or a product's number
		}
		if i > 0 && s[i-1] == '=' {
			return i // "svc=billing pid=19258": a field's value in a log line, not a house number
		}
		if x.key == keyAddress || x.cueBefore(i, sentenceWindow(s, i, 80), addressCues) {
			a, b := i, j
			if ok1 && nameWord(s, nw, lowerText) {
				b = nw.b
			} else {
				a = pw.a
			}
			return x.emitAddress(a, b, 0.7, "address.context")
		}
	}
	return i
}

// sentenceWindow returns how far back from i the current sentence reaches, at most window bytes.
func sentenceWindow(s string, i, window int) int {
	for k := i - 1; k >= 0 && k >= i-window; k-- {
		if (s[k] == '.' || s[k] == '!' || s[k] == '?') && k+1 < len(s) && s[k+1] == ' ' && k > 0 && isLower(s[k-1]) {
			return i - k
		}
	}
	return window
}

// nameRun consumes up to max name words (and particles such as "de", "da") after k.
func (x *scanCtx) nameRun(k, max int, lowerText bool) (int, int) {
	s := x.s
	var buf [32]byte
	n := 0
	end := k
	for step := 0; step < max; step++ {
		w, ok := wordAt(s, end, false)
		if !ok || w.b-w.a > 30 {
			break
		}
		lw := lowerWord(buf[:], s, w)
		if particles.has(lw) {
			end = w.b
			continue
		}
		if !nameWord(s, w, lowerText) {
			break
		}
		n++
		end = w.b
	}
	return end, n
}

// emitAddress records an address and extends it over a following house number and unit.
func (x *scanCtx) emitAddress(a, b int, c float64, rule string) int {
	s := x.s
	var buf [32]byte
	for step := 0; step < 4; step++ {
		k := b
		for k < len(s) && (s[k] == ' ' || s[k] == ',' || s[k] == '\n') {
			k++
		}
		e := k
		for e < len(s) && isDigit(s[e]) {
			e++
		}
		if e > k && e-k <= 5 && (e == len(s) || !isAlnum(s[e]) || (e+1 == len(s) || !isAlnum(s[e+1]))) {
			if e < len(s) && isAlpha(s[e]) {
				e++
			}
			b = e
			if b < len(s) && s[b] == '.' {
				b++
			}
			continue
		}
		w, ok := wordAt(s, k, true)
		if !ok || w.b-w.a > 12 {
			break
		}
		lw := trimDot(lowerWord(buf[:], s, w))
		if lw == "apt" || lw == "suite" || lw == "unit" || lw == "flat" || lw == "apartment" || lw == "ste" || lw == "no" || lw == "room" || lw == "floor" {
			k2 := skipSpace(s, w.b)
			if k2 < len(s) && s[k2] == '#' {
				k2++
			}
			e := k2
			for e < len(s) && isAlnum(s[e]) {
				e++
			}
			if e > k2 {
				b = e
				c = max(c, 0.9)
				continue
			}
		}
		break
	}
	x.add(TypeAddress, a, b, c, rule)
	return b
}

// military recognises PSC 1234, Box 5678 / Unit 1234 Box 5678 / APO|FPO|DPO AA|AE|AP 12345.
func (x *scanCtx) military(i, j int) int {
	s := x.s
	pw, ok := wordBefore(s, i)
	if !ok {
		return i
	}
	if pw.b-pw.a > 4 {
		return i
	}
	var buf [4]byte
	p := buf[:0]
	for k := pw.a; k < pw.b; k++ {
		p = append(p, upper(s[k]))
	}
	switch string(p) {
	case "PSC", "UNIT", "CMR":
		k := j
		if k < len(s) && s[k] == ',' {
			k++
		}
		if w, ok := wordAt(s, k, false); ok && strings.EqualFold(s[w.a:w.b], "Box") {
			return x.emitAddress(pw.a, w.b, 0.9, "address.military")
		}
	case "AA", "AE", "AP":
		if q, ok := wordBefore(s, pw.a); ok && q.b-q.a == 3 {
			switch string([]byte{upper(s[q.a]), upper(s[q.a+1]), upper(s[q.a+2])}) {
			case "APO", "FPO", "DPO":
				if j-i == 5 {
					x.add(TypeAddress, q.a, j, 0.9, "address.military")
					return j
				}
			}
		}
	}
	return i
}
