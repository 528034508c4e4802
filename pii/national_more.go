package pii

// Switzerland's AHV number, Austria's social insurance number, Argentina's CUIT and CUIL, and
// Ukraine's taxpayer number (RNOKPP), with the words that name them and Belgium's national
// register number and Croatia's OIB in the languages of their forms ("NISS", "INSZ",
// "rijksregisternummer", "osobni identifikacijski broj"). Each has a check a run of digits passes
// by chance (one in ten or eleven; the AHV number's "756" makes it one in ten thousand), so each
// counts only where a word names it, not after a word for any identifier ("ID number"), and one
// so named whose check fails passes, as the others do.

// chAHVValid checks a Swiss AHV number: 756, nine digits and an EAN-13 check digit.
func chAHVValid(d []byte) bool {
	if len(d) != 13 || string(d[:3]) != "756" {
		return false
	}
	sum := 0
	for i := 0; i < 12; i++ {
		w := 1
		if i%2 == 1 {
			w = 3
		}
		sum += w * int(d[i]-'0')
	}
	return (10-sum%10)%10 == int(d[12]-'0')
}

// atSVNRValid checks an Austrian social insurance number: a serial of three digits (the first
// not zero), a check digit, and the holder's date of birth as DDMMYY (the month may be 13 to 15
// where the date was not known).
func atSVNRValid(d []byte) bool {
	if len(d) != 10 || d[0] == '0' {
		return false
	}
	weights := [10]int{3, 7, 9, 0, 5, 8, 4, 2, 1, 6}
	sum := 0
	for i, w := range weights {
		sum += w * int(d[i]-'0')
	}
	if sum%11 != int(d[3]-'0') {
		return false
	}
	day, month := atoi(d[4:6]), atoi(d[6:8])
	return day >= 1 && day <= 31 && month >= 1 && month <= 15
}

// arCUITValid checks an Argentine CUIT or CUIL: a type (20, 23, 24, 27 for people, 30, 33, 34 for
// firms), a DNI of eight digits and a check digit modulo 11.
func arCUITValid(d []byte) bool {
	if len(d) != 11 {
		return false
	}
	switch string(d[:2]) {
	case "20", "23", "24", "27", "30", "33", "34":
	default:
		return false
	}
	weights := [10]int{5, 4, 3, 2, 7, 6, 5, 4, 3, 2}
	sum := 0
	for i, w := range weights {
		sum += w * int(d[i]-'0')
	}
	return "012345678990"[11-sum%11] == d[10]
}

// uaRNTRCValid checks a Ukrainian taxpayer's registration number: ten digits, the last a check
// over the first nine.
func uaRNTRCValid(d []byte) bool {
	if len(d) != 10 {
		return false
	}
	weights := [9]int{-1, 5, 7, 9, 4, 6, 10, 5, 7}
	sum := 0
	for i, w := range weights {
		sum += w * int(d[i]-'0')
	}
	return ((sum%11+11)%11)%10 == int(d[9]-'0')
}

// moreSchemeValidators are these identifiers, tried after schemeValidators.
var moreSchemeValidators = []natValidator{
	{"ch.ahv", 13, chAHVValid},
	{"at.svnr", 10, atSVNRValid},
	{"ar.cuit", 11, arCUITValid},
	{"ua.rntrc", 10, uaRNTRCValid},
}

// moreSchemeNames are the words that name them (and Belgium's and Croatia's numbers in more of
// their languages), added to namedIDs and to the national identifier cues. Cases are folded in
// ASCII only, so a Cyrillic word is given in both cases.
var moreSchemeNames = []namedID{
	{"ahv-nr", "ch.ahv"}, {"ahv nr", "ch.ahv"}, {"ahv number", "ch.ahv"}, {"ahv-nummer", "ch.ahv"}, {"ahvn13", "ch.ahv"},
	{"numéro avs", "ch.ahv"}, {"numero avs", "ch.ahv"}, {"n. avs", "ch.ahv"}, {"no avs", "ch.ahv"},
	{"svnr", "at.svnr"}, {"sv-nummer", "at.svnr"}, {"sv-nr", "at.svnr"}, {"sozialversicherungsnummer", "at.svnr"},
	{"versicherungsnummer", "at.svnr"},
	{"cuit", "ar.cuit"}, {"cuil", "ar.cuit"},
	{"rnokpp", "ua.rntrc"}, {"рнокпп", "ua.rntrc"}, {"РНОКПП", "ua.rntrc"}, {"іпн", "ua.rntrc"}, {"ІПН", "ua.rntrc"},
	{"ідентифікаційний код", "ua.rntrc"}, {"Ідентифікаційний код", "ua.rntrc"}, {"ідентифікаційний номер", "ua.rntrc"},
	{"niss", "be.nn"}, {"insz", "be.nn"}, {"rijksregisternummer", "be.nn"}, {"rijksregister", "be.nn"},
	{"registre national", "be.nn"}, {"numéro national", "be.nn"}, {"national register", "be.nn"},
	{"osobni identifikacijski", "hr.oib"},
}

// moreSchemeCues are moreSchemeNames' words.
func moreSchemeCues() []string {
	out := make([]string, len(moreSchemeNames))
	for i, n := range moreSchemeNames {
		out[i] = n.cue
	}
	return out
}

// namedOnlyScheme reports the identifiers that count only where a word names them.
func namedOnlyScheme(rule string) bool {
	switch rule {
	case "ch.ahv", "at.svnr", "ar.cuit", "ua.rntrc":
		return true
	}
	return false
}
