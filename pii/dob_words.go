package pii

// Birth-date cues and member names of languages the first lists lacked: Vietnamese ("ngày
// sinh"), Greek written in Latin letters ("imerominia gennisis"), Swahili ("tarehe ya
// kuzaliwa"), Hindi and Indian English ("janm tithi"), Arabic ("تاريخ الميلاد"), Filipino
// ("kapanganakan"), and the member names of Indonesian, Hungarian, Romanian, Turkish and
// Vietnamese forms (tgl_lahir, szuletesi_datum, data_nasterii, dogum_tarihi, ngay_sinh). A cue
// only says that a date after it is a birth date; the date must still be there.

// dobWordsMore are added to dobCues (context.go).
var dobWordsMore = []string{
	"ngày sinh", "ngay sinh", "sinh ngày", "sinh ngay", "gennisis", "gennhshs", "gennithike", "gennhthhke",
	"kuzaliwa", "alizaliwa", "janm tithi", "janam tithi", "janm din", "जन्म", "تاريخ الميلاد", "kapanganakan",
	"ipinanganak", "생일",
	// Welsh, Maltese, Albanian, Icelandic and Catalan.
	"ganwyd", "dyddiad geni", "imwieled", "imwielda", "twelid", "lindur", "datëlindj", "datelindj", "fædd", "fæðing",
	"nascut", "nascuda", "naixement", "néixer", "neixer", "nasceu",
	// Slovak, Macedonian, Georgian, Armenian, Basque, Galician, Afrikaans, Bengali, Tamil, Amharic
	// and Kinyarwanda.
	"narodený", "narodená", "narodenia", "роден", "родена", "раѓање", "დაბადების", "დაიბადა", "ծնվել", "ծննդյան",
	"jaio", "jaiotze", "naceu", "nacemento", "gebore", "জন্ম", "பிறந்த", "የትውልድ", "ተወለደ", "yavutse", "amavuko",
}

// dobKeyWord reports whether a member named n (normKey's form) holds a date of birth in one of
// those languages.
func dobKeyWord(n string) bool {
	return containsAny(n, "lahir", "ngaysinh", "szuletes", "szletes", "nasterii", "nastere", "natere", "dogumtarih",
		"dogumtar", "kuzaliwa", "gennisis", "gennhshs", "janmtithi", "kapanganakan", "saengnyeonwoil")
}
