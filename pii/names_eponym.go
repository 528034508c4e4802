package pii

import "strings"

// Things named for people, told by what stands beside the name rather than by the name itself.
// A street takes a person's full name with their generation or a regnal number before its
// type ("Martin Luther King Jr. Blvd", "Kārļa Ulmaņa gatve"); a pope's or a monarch's name with
// its number, which names no private person, is a street, a square or a school as often ("Jana
// Pawła II", "Plac Jana Pawła II"); rooms and buildings of a campus take a scientist's name after
// their type ("Hall Marie Curie", "Building Albert Einstein"); ships take theirs after the
// ship's prefix ("the MS Hans Christian Andersen"). A brand named for its founder is sold by the
// bottle or the millilitre ("Johnnie Walker Black Label 0.7l", "Estée Lauder serum 30ml"),
// compared on price ("Louis Vuitton vs. Eigenmarke, Preis pro Stück"), booked as an expense
// ("Expense: Johnnie Walker, 100.23 EUR") or visited at a time ("2 for 1 at Hugo Boss this
// weekend"). In each of these the pair names no one the gate protects (namePair asks eponymAt).

// streetTypesIntl are street types written after the name in languages whose streets take a
// person's name in the genitive before the type: Latvian, Estonian, Lithuanian, Hungarian,
// Czech, Slovak, Finnish, Nordic and German.
var streetTypesIntl = toSet(`iela gatve bulvāris bulvaris prospekts laukums šoseja soseja tänav tanav maantee
puiestee väljak valjak gatvė gatve prospektas aikštė aikste alėja aleja utca út ut tér ter körút korut
rakpart sétány setany ulice třída trida náměstí namesti nábřeží nabrezi ulica námestie namestie nábrežie
katu tie kuja polku aukio tori gata gatan väg vag vägen vagen torg torget gade vej veien plads
straße strasse str platz allee weg gasse ring damm ufer brücke bruecke`)

// generationWords stand between a person's name and a street's type: "Jr.", "Sr.", "II".
var generationWords = toSet(`jr jr. sr sr. jnr snr ii iii iv v vi vii viii ix x xi xii xiii xiv xv xvi xvii xviii xix xx xxi xxii xxiii`)

// romanNumeral reports whether w is a regnal number from II to XXIII written in capitals.
func romanNumeral(w string) bool {
	if len(w) < 1 || len(w) > 5 {
		return false
	}
	for i := 0; i < len(w); i++ {
		if c := w[i]; c != 'I' && c != 'V' && c != 'X' {
			return false
		}
	}
	return w != "I" && w != "X" && w != "V" && generationWords.has(strings.ToLower(w))
}

// roomWords name a room, a hall or a building that takes a person's name after it.
var roomWords = toSet(`room hall building bldg wing pavilion auditorium lab laboratory studio lounge suite
saal raum zimmer gebäude gebaeude haus hörsaal horsaal sala salle zaal aula edificio bâtiment batiment
pavillon amphi amphitheatre amphitheater theatre theater`)

// shipPrefixes are the prefixes of ships' names, written in capitals.
var shipPrefixes = toSet(`MS MV SS RMS HMS USS MY SY FV MSC`)

// sizeUnits follow a quantity on a product: "0.7l", "30ml", "100 g", "6x330ml". Not "mg": after
// a name it is the dose of a medicine given to the person ("X hämtar ut sertralin 50 mg",
// names_health.go), not the size of a brand's product.
var sizeUnits = toSet(`l ml cl dl g kg oz lb lbs fl pcs pc pack x`)

// priceWords say that a line compares or books prices.
var priceWords = []string{"price", "preis", "prix", "precio", "prezzo", "preço", "cena", "hinta", "pris",
	"per unit", "pro stück", "per piece", "par pièce", "eur", "usd", "gbp", "chf", "€", "$", "£"}

// merchantLabels, before a colon, say that a merchant or a brand follows: "Expense: X".
var merchantLabels = toSet(`expense expenses merchant vendor retailer store shop brand supplier purchase
spesen ausgabe händler haendler marke gasto gastos dépense depense commerçant marque spesa negozio marca`)

// venueAfter are the words after "at X" that make X a venue: a time, or nothing.
var venueAfter = toSet(`this next today tonight tomorrow on until till from during every all`)

// eponymAt reports whether the capitalised words s[a:end] are the name of a thing named for a
// person, as the comment at the top says. A ship's prefix says so whatever else does; the rest
// give way to a strong cue for a person before the name, and a regnal number to a verb of a
// person's after it ("John Smith III called again").
func (x *scanCtx) eponymAt(a, end int) bool {
	s := x.s
	if shipBefore(s, a) {
		return true
	}
	if !(namedStreetAfter(s, end) || roomBefore(s, a) || roomFirst(s, a, end) || productAfter(s, end) ||
		priceLine(s, a, end) || merchantBefore(s, a) || venueAt(s, a, end)) {
		e := regnalAfter(s, a, end)
		if e == end || x.personCueAfter(e) {
			return false
		}
	}
	return x.personCueBefore(a) != cueStrong
}

// namedStreetAfter reports a street's type after the name that ends at end, past a generation
// or a regnal number: "… King Jr. Blvd", "… Ulmaņa gatve", "… Pawła II Street".
func namedStreetAfter(s string, end int) bool {
	k := end
	for hop := 0; hop < 2; hop++ {
		if k < len(s) && s[k] == '.' {
			k++
		}
		if k >= len(s) || s[k] != ' ' {
			return false
		}
		w, ok := wordAt(s, k+1, false)
		if !ok || w.a != k+1 || w.b-w.a > 14 {
			return false
		}
		word := strings.TrimRight(s[w.a:w.b], ".,;")
		lw := strings.ToLower(word)
		if hop == 0 && generationWords.has(lw) {
			k = w.a + len(word)
			continue
		}
		return streetTypesIntl.has(lw) || streetSuffixes.has(lw) && !weakSuffixes.has(lw)
	}
	return false
}

// regnalAfter returns the end of a regnal number after a name whose last word is a given name
// or one that no list knows ("Jana Pawła II", "Karl Gustav XVI"), or end: a surname of the lists
// before it ("Ann Peters II") keeps the name a person's.
func regnalAfter(s string, a, end int) int {
	if end+3 > len(s) || s[end] != ' ' {
		return end
	}
	e := end + 1
	for e < len(s) && (s[e] == 'I' || s[e] == 'V' || s[e] == 'X') {
		e++
	}
	if !romanNumeral(s[end+1:e]) || e < len(s) && isAlnum(s[e]) {
		return end
	}
	last := s[a:end]
	if i := strings.LastIndexByte(last, ' '); i >= 0 {
		last = last[i+1:]
	}
	if !isGivenName(last) && isNameWord(last) {
		return end // a surname of the lists: "Ann Peters II" is a person
	}
	return e
}

// roomBefore reports a room's or a building's type just before a: "Hall Marie Curie", "Room Ada
// Lovelace", "Sala Enzo Ferrari".
func roomBefore(s string, a int) bool {
	pw, ok := wordBefore(s, a)
	return ok && pw.b == a-1 && pw.b-pw.a <= 12 && roomWords.hasFold(s[pw.a:pw.b])
}

// roomFirst reports whether the first of the capitalised words s[a:end] is a room's or a
// building's type and a name follows it: "Hall Marie Curie is closed".
func roomFirst(s string, a, end int) bool {
	e := titleWord(s, a)
	return e < end && e-a <= 12 && roomWords.hasFold(s[a:e])
}

// shipCue reports whether the honorific-like word s[i:j] is a ship's prefix: "MS" in capitals
// after "the" or "aboard" ("the MS Hans Christian Andersen"), not "Ms".
func shipCue(s string, i, j int) bool {
	return j < len(s) && shipBefore(s, j+1)
}

// shipBefore reports a ship's prefix before a, itself after "the", "aboard" or "on": "the MS
// Hans Christian Andersen", "aboard MV Astrid Lindgren".
func shipBefore(s string, a int) bool {
	pw, ok := wordBefore(s, a)
	if !ok || pw.b != a-1 || !shipPrefixes.has(s[pw.a:pw.b]) {
		return false
	}
	aw, ok := wordBefore(s, pw.a)
	if !ok || aw.b != pw.a-1 {
		return false
	}
	w := strings.ToLower(s[aw.a:aw.b])
	return w == "the" || w == "aboard" || w == "on" || w == "board" || w == "der" || w == "die" || w == "la" || w == "le"
}

// productAfter reports a quantity of a product within the three words after end: "Johnnie Walker
// Black Label 0.7l", "Estée Lauder serum 30ml", "Jack Daniel's 70 cl".
func productAfter(s string, end int) bool {
	k := end
	for n := 0; n < 4 && k < len(s); n++ {
		for k < len(s) && s[k] == ' ' {
			k++
		}
		q := k
		for q < len(s) && (isDigit(s[q]) || s[q] == '.' || s[q] == ',') {
			q++
		}
		if q > k && isDigit(s[k]) {
			for q < len(s) && s[q] == ' ' {
				q++
			}
			u := q
			for u < len(s) && isAlpha(s[u]) {
				u++
			}
			return u > q && u-q <= 4 && sizeUnits.hasFold(s[q:u]) && (u == len(s) || !isAlpha(s[u]))
		}
		w, ok := wordAt(s, k, false)
		if !ok || w.a != k {
			return false
		}
		k = w.b
	}
	return false
}

// priceLine reports a comparison on price around the name s[a:end]: "vs." or "versus" next to
// it and a price or a currency on its line.
func priceLine(s string, a, end int) bool {
	ls := strings.LastIndexByte(s[:a], '\n') + 1
	le := strings.IndexByte(s[end:], '\n')
	if le < 0 {
		le = len(s)
	} else {
		le += end
	}
	before, after := s[max(ls, a-9):a], s[end:min(le, end+9)]
	vs := strings.HasSuffix(before, "vs. ") || strings.HasSuffix(before, "vs ") || strings.HasSuffix(before, "versus ") ||
		strings.HasPrefix(after, " vs") || strings.HasPrefix(after, " versus ")
	if !vs {
		return false
	}
	line := strings.ToLower(s[ls:le])
	for _, p := range priceWords {
		if strings.Contains(line, p) {
			return true
		}
	}
	return false
}

// merchantBefore reports a merchant's label before the name at a: "Expense: X", "Vendor: X".
func merchantBefore(s string, a int) bool {
	k := a
	for k > 0 && s[k-1] == ' ' {
		k--
	}
	if k == 0 || s[k-1] != ':' {
		return false
	}
	pw, ok := wordBefore(s, k-1)
	return ok && pw.b == k-1 && pw.b-pw.a <= 12 && merchantLabels.hasFold(s[pw.a:pw.b])
}

// venueAt reports "at X" followed by a time: a shop or a venue ("2 for 1 at Hugo Boss this
// weekend", "lunch at Ruth Chris tomorrow"), which a person, without a possessive, is not.
func venueAt(s string, a, end int) bool {
	pw, ok := wordBefore(s, a)
	if !ok || pw.b != a-1 || !strings.EqualFold(s[pw.a:pw.b], "at") {
		return false
	}
	k := end
	w, ok := wordAt(s, k, false)
	return ok && w.a == k+1 && w.b-w.a <= 8 && venueAfter.has(s[w.a:w.b])
}
