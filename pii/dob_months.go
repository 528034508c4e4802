package pii

import "strings"

// Month names, in the forms dates take in the languages the gate sees: English, German, French,
// Dutch, the Nordic languages, Spanish, Italian and Portuguese in the nominative, Czech and
// Polish in the genitive ("25. června 1954", "20 listopada 1981"), Latvian in the locative
// ("1997. gada 10. jūnijā"), Welsh, Maltese, Albanian, Icelandic, Catalan and Serbian, Slovene,
// Lithuanian, Ukrainian and Russian in the genitive ("6. julija 1991", "1970 m. gruodžio 21 d.",
// "7 жовтня 1990"), Romanian, Slovak and Croatian in the genitive ("14. júla 1965", "5. siječnja
// 1999"), Macedonian, Galician, Afrikaans, Basque in the genitive ("urtarrilaren") and Georgian,
// and the common English abbreviations. A date alone is no personal
// data; these let a date of birth written in words be read as one after a birth cue.
var monthWords = func() map[string]struct{} {
	m := map[string]struct{}{}
	for _, w := range strings.Fields(`
		january february march april may june july august september october november december
		jan feb mar apr jun jul aug sep sept oct nov dec
		januar februar märz maerz mai juni juli oktober dezember
		janvier février fevrier mars avril juin juillet août aout septembre octobre novembre décembre decembre
		januari februari maart mei augustus
		mars maj augusti
		marts oktober
		enero febrero marzo abril mayo junio julio agosto septiembre setiembre octubre noviembre diciembre
		gennaio febbraio aprile maggio giugno luglio settembre ottobre dicembre
		janeiro fevereiro março marco maio junho julho setembro outubro dezembro
		ledna února března dubna května června července srpna září října listopadu prosince
		leden únor březen duben květen červen červenec srpen září říjen listopad prosinec
		stycznia lutego marca kwietnia maja czerwca lipca sierpnia września października listopada grudnia
		janvārī februārī martā aprīlī maijā jūnijā jūlijā augustā septembrī oktobrī novembrī decembrī
		janvāris februāris marts aprīlis maijs jūnijs jūlijs augusts septembris oktobris novembris decembris
		jaanuar veebruar märts aprill mai juuni juuli august september oktoober november detsember
		tammikuuta helmikuuta maaliskuuta huhtikuuta toukokuuta kesäkuuta heinäkuuta elokuuta syyskuuta lokakuuta marraskuuta joulukuuta
		január február március április május június július augusztus szeptember október
		ocak şubat mart nisan mayıs haziran temmuz ağustos eylül ekim kasım aralık
		ionawr chwefror mawrth ebrill mehefin gorffennaf awst medi hydref tachwedd rhagfyr
		jannar frar marzu mejju ġunju gunju lulju awwissu settembru ottubru novembru diċembru dicembru
		janar shkurt prill qershor korrik gusht shtator tetor nëntor nentor dhjetor
		janúar febrúar apríl maí júní júlí ágúst október nóvember desember
		gener febrer març marc maig juny juliol setembre octubre novembre desembre
		avgust septembar oktobar novembar decembar
		januarja februarja aprila junija julija avgusta septembra oktobra novembra decembra
		sausio vasario kovo balandžio gegužės birželio liepos rugpjūčio rugsėjo spalio lapkričio gruodžio
		ianuarie februarie martie aprilie iunie iulie septembrie octombrie noiembrie decembrie
		січня лютого березня квітня травня червня липня серпня вересня жовтня листопада грудня
		января февраля марта апреля мая июня июля августа сентября октября ноября декабря
		januára februára apríla mája júna júla augusta októbra
		siječnja veljače ožujka travnja svibnja lipnja srpnja kolovoza rujna studenoga prosinca
		јануари февруари март април мај јуни јули август септември октомври ноември декември
		xaneiro febreiro xuño xullo decembro
		januarie februarie maart junie julie desember
		urtarrilaren otsailaren martxoaren apirilaren maiatzaren ekainaren uztailaren abuztuaren irailaren urriaren azaroaren abenduaren
		იანვარი თებერვალი მარტი აპრილი მაისი ივნისი ივლისი აგვისტო სექტემბერი ოქტომბერი ნოემბერი დეკემბერი`) {
		m[w] = struct{}{}
	}
	return m
}()

// monthFirst holds the bytes a month's name can start with: its first letter in either case,
// and the lead bytes of the letters outside ASCII that start some (Czech "února", "června",
// "října", Turkish "şubat").
var monthFirst = func() (t [256]bool) {
	for w := range monthWords {
		t[w[0]] = true
		if isLower(w[0]) {
			t[w[0]-32] = true
		}
	}
	return t
}()

// monthBloom holds the first three bytes (as fold3 folds them) of every month's name: most words
// after a number ("ms", "requests", "matching") are answered by one load, before the word is
// read and looked up.
var monthBloom = func() (b bloom) {
	for w := range monthWords {
		b.add(w)
	}
	return b
}()

// isMonthAt reports whether a month name starts at i and returns its end, past a full stop
// after it.
func isMonthAt(s string, i int) (int, bool) {
	if i+3 > len(s) || !monthFirst[s[i]] || !monthBloom.has(fold3(s, i)) {
		return i, false
	}
	j := i
	high := false
	for j < len(s) && isWordByte(s[j]) && !isDigit(s[j]) {
		high = high || s[j] >= 0x80
		j++
	}
	if j-i < 3 || j-i > 24 {
		return i, false
	}
	var key string
	if high {
		key = strings.ToLower(s[i:j])
	} else {
		var buf [24]byte
		key = string(lowerInto(buf[:0], s[i:j]))
	}
	if _, ok := monthWords[key]; !ok {
		return i, false
	}
	if j < len(s) && s[j] == '.' {
		j++
	}
	return j, true
}

// yearFirstDate recognises a date written year first around the four digits s[i:j]: "1997.
// gada 10. jūnijā" (Latvian), "1959. december 6." (Hungarian), "1970 m. gruodžio 21 d."
// (Lithuanian: "m." for the year, "d." for the day), "1986. 3. 12." is numeric and read
// elsewhere. It returns the span.
func (x *scanCtx) yearFirstDate(i, j int) (int, int, bool) {
	s := x.s
	if j-i != 4 || j+3 >= len(s) {
		return 0, 0, false
	}
	var k int
	switch {
	case s[j] == '.' && s[j+1] == ' ':
		k = j + 2
	case strings.HasPrefix(s[j:], " m. "):
		k = j + 4
	default:
		return 0, 0, false
	}
	if y := atoi([]byte(s[i:j])); y < 1880 || y > 2100 {
		return 0, 0, false
	}
	if strings.HasPrefix(s[k:], "gada ") {
		k += 5
	}
	if me, ok := isMonthAt(s, k); ok {
		// "1959. december 6."
		d := skipSpace(s, me)
		e := d
		for e < len(s) && isDigit(s[e]) && e-d < 2 {
			e++
		}
		if e > d && (e == len(s) || !isDigit(s[e])) && validDay(s[d:e]) {
			if e < len(s) && s[e] == '.' {
				e++
			} else if strings.HasPrefix(s[e:], " d.") {
				e += 3
			}
			return i, e, true
		}
		return 0, 0, false
	}
	// "1997. gada 10. jūnijā"
	d := k
	e := d
	for e < len(s) && isDigit(s[e]) && e-d < 2 {
		e++
	}
	if e == d || e >= len(s) || !validDay(s[d:e]) {
		return 0, 0, false
	}
	if s[e] == '.' {
		e++
	}
	if me, ok := isMonthAt(s, skipSpace(s, e)); ok && skipSpace(s, e) > e {
		return i, me, true
	}
	return 0, 0, false
}

func validDay(d string) bool {
	n := atoi([]byte(d))
	return n >= 1 && n <= 31
}

// yearMarked reports four digits followed by Lithuanian's "m." for metai, the year ("1970 m.
// gruodžio 21 d."), which would otherwise read as a length in metres.
func yearMarked(s string, i, j int) bool {
	return j-i == 4 && strings.HasPrefix(s[j:], " m. ") && j+4 < len(s) && !isDigit(s[j+4])
}
