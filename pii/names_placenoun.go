package pii

// Places named for people, with their kind after the name. "Tycho Brahe Planetarium", "Anne
// Frank Huis", "Johan Cruijff ArenA", "Nelson Mandela Bay", "Deniz Eczanesi": capitalised words
// that a name list knows, followed by a capitalised noun for a building, a venue, a shop or a
// place, name that place and no one. The noun ends the words read as a name; when one follows,
// the pair is left as a place. Nouns written in lower case after a name ("the Alfred Nobel hall")
// are attributive's.

// placeNouns are nouns for a place, a building, a venue or a shop that follow its name, in the
// languages the gate sees most. Nouns that are surnames as well ("Hall", "Park", "Port",
// "Tower", "Garden") are left out: "Mary Hall" is a person.
var placeNouns = toSet(`planetarium museum museet museo musée muzeum múzeum huis haus arena stadium stadion
stadio estadio theatre theater teatro teatr teatret airport lufthavn flygplats lentoasema letiště lotnisko
havalimanı aeropuerto aeroporto aéroport flughafen parken parque plein platz bridge brug brücke library
bibliotheek bibliothek biblioteca bibliothèque biblioteket kirjasto gallery galerie galleria academy akademie
akademi akademia observatory centrum zentrum eczanesi apotek apotheek apotheke pharmacy farmacia pharmacie
lékárna apteka apteekki cathedral kathedraal basilica kirche kirke kyrka kościół kostel camii mosque synagogue
memorial monument mausoleum toren turm fountain tuin garten hostel resort bahnhof stazione estación
square plaza piazza praça praca sheshi trg náměstí namesti plac rynek torget torg tori meydanı meydani tér`)

// placeNounAt reports whether the capitalised word s[q:we] is a noun of placeNouns, or "Bay"
// after two words ("Nelson Mandela Bay"; "Michael Bay" is a person).
func placeNounAt(s string, q, we, words int) bool {
	if we-q < 3 || we-q > 14 {
		return false
	}
	return placeNouns.hasFold(s[q:we]) || words >= 2 && s[q:we] == "Bay"
}

// wordEndAt returns the end of the word of letters (ASCII or not) that starts at q.
func wordEndAt(s string, q int) int {
	e := q
	for e < len(s) && (isAlpha(s[e]) || s[e] >= 0x80) {
		e++
	}
	return e
}
