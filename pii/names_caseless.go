package pii

import (
	"slices"
	"strings"
	"unicode/utf8"
)

// Names in scripts without capitals: Hebrew, Arabic and Persian, Devanagari, Thai and Georgian.
// No capital sets a name apart in them, and the name lists are in Latin letters, so a name is
// found by what stands before it: an honorific of the script ("מר", "السيدة", "آقای", "श्रीमती",
// "นาย", written onto the name in Thai, "ქალბატონი"), or, inside text in Latin letters, a word that
// takes a person ("for", "to", "dear", "patient") before a run of two or three words of the script
// that the sentence goes on after ("Rx for नरभूपाल महर्जन: ...", "Dispense to ประสงค์ นาควงษ์ —").
// A word of the script alone after such a word is as often a place or a phrase, and a run that
// goes on in the script is a sentence of it: neither is taken.

// caselessScript returns the script of the rune at s[p:]: 'h' Hebrew, 'a' Arabic (Persian and
// Urdu among it), 'd' Devanagari, 't' Thai, 'g' Georgian, 'b' Bengali, 'm' Tamil, 'e' Ethiopic,
// or 0.
func caselessScript(s string, p int) byte {
	if p+1 >= len(s) {
		return 0
	}
	c, c2 := s[p], s[p+1]
	switch {
	case c == 0xD6 && c2 >= 0x90 || c == 0xD7:
		return 'h'
	case c >= 0xD8 && c <= 0xDB:
		return 'a'
	case c == 0xE0 && (c2 == 0xA4 || c2 == 0xA5):
		return 'd'
	case c == 0xE0 && (c2 == 0xB8 || c2 == 0xB9):
		return 't'
	case c == 0xE1 && (c2 == 0x82 || c2 == 0x83):
		return 'g'
	case c == 0xE0 && (c2 == 0xA6 || c2 == 0xA7):
		return 'b'
	case c == 0xE0 && (c2 == 0xAE || c2 == 0xAF):
		return 'm'
	case c == 0xE1 && c2 >= 0x88 && c2 <= 0x8D:
		return 'e'
	}
	return 0
}

// caselessTitles are the honorifics before a person's name, by script. Thai writes them onto
// the name, the longest first ("นางสาว" before "นาง").
var caselessTitles = map[byte][]string{
	'h': {"מר", "גב'", "גב׳", "גברת", "ד\"ר", "ד״ר", "עו\"ד", "עו״ד", "פרופ'", "פרופ׳", "הגב'", "הגב׳"},
	'a': {"السيد", "السيدة", "الآنسة", "الأستاذ", "الأستاذة", "الدكتور", "الدكتورة", "الشيخ", "آقای", "آقا", "خانم",
		"جناب", "سرکار", "دکتر", "مهندس"},
	'd': {"श्री", "श्रीमती", "सुश्री", "कुमारी", "डॉ.", "डा.", "श्रीमान"},
	't': {"นางสาว", "นาง", "นาย", "ด.ช.", "ด.ญ.", "ดร.", "คุณ"},
	'g': {"ბატონი", "ქალბატონი", "ბ-ნი", "ქ-ნი"},
	'b': {"জনাব", "বেগম", "শ্রী", "শ্রীমতী", "ডা.", "ডাঃ"},
	'm': {"திரு", "திருமதி", "செல்வி", "டாக்டர்"},
	'e': {"አቶ", "ወይዘሮ", "ወ/ሮ", "ወይዘሪት", "ዶ/ር"},
}

// caselessRoles are the words of a script for a user, a patient and a pupil (and, in Georgian, a
// customer, a tenant and an employee), which take a person's given name and surname after them as
// an honorific does ("მომხმარებელი ლევან ხარაიშვილი", "பயனர் கார்த்திக் சேகர்"). The words after a
// role may be the sentence's verb or a compound's noun instead ("the user asks ...", "customer
// service"), so they count only as two words the sentence goes on after in the script, the
// second, in Georgian, with a surname's ending; the words for a customer or an employee make
// compounds too often to count in the other scripts.
var caselessRoles = map[byte][]string{
	'g': {"მომხმარებელი", "მოსწავლე", "პაციენტი", "კლიენტი", "დამქირავებელი", "თანამშრომელი"},
	'b': {"ব্যবহারকারী", "রোগী", "শিক্ষার্থী"},
	'm': {"பயனர்", "நோயாளி", "மாணவர்", "மாணவி"},
	'e': {"ተጠቃሚ", "ታካሚ", "ተማሪ"},
}

// georgianSurnameEnds end Georgian surnames (-შვილი, -ძე, -ია, -ავა, -ური, -ანი, -ელი).
var georgianSurnameEnds = []string{"შვილი", "ძე", "ია", "ავა", "ური", "ანი", "ელი", "ინი"}

// thaiTitleWords are words a Thai honorific begins that are no name after it: "นายก" (mayor,
// prime minister), "นายจ้าง" (employer), "นางพยาบาล" (nurse)...
var thaiTitleWords = []string{"กรัฐมนตรี", "กเทศมนตรี", "กสมาคม", "จ้าง", "หน้า", "ทหาร", "ฟ้า", "งาม", "พยาบาล", "แบบ",
	"ท่าน", "ทั้งหลาย", "ทุกคน"}

// caselessParticles join the words of a name in Arabic and Persian: "آل", "بن", "بنت", "ابو".
var caselessParticles = []string{"آل", "بن", "بنت", "ابن", "ابو", "أبو", "عبد", "بنی"}

// caselessPersonCues are words in Latin letters that take a person after them.
var caselessPersonCues = toSet(`for to from by dear hi hello patient member customer client tenant applicant attn cc
contact ask call mr mrs ms dr`)

// caselessWord returns the end of the word of script sc that starts at a (letters and marks of
// the script, and the apostrophes and gershayim abbreviations use), or a.
func caselessWord(s string, a int, sc byte) int {
	e := a
	for e < len(s) {
		if s[e] < 0x80 {
			if (s[e] == '\'' || s[e] == '"' || s[e] == '.') && e > a && e+1 < len(s) && s[e+1] >= 0x80 {
				e++ // ד"ר, ด.ช.
				continue
			}
			if s[e] == '\'' && sc == 'h' && e > a && (e+1 == len(s) || s[e+1] == ' ') {
				e++ // גב': an abbreviation's apostrophe
			}
			break
		}
		if caselessScript(s, e) != sc {
			if r, n := utf8.DecodeRuneInString(s[e:]); r == '׳' || r == '״' || r == 0x200C || r == 0x200D {
				e += n // Hebrew geresh and gershayim, Persian's zero-width non-joiner
				continue
			}
			break
		}
		_, n := utf8.DecodeRuneInString(s[e:])
		e += n
	}
	return e
}

// caselessName tries a name at the word of script sc that starts at p. It returns the end of the
// name, or p.
func (x *scanCtx) caselessName(p int, sc byte) int {
	s := x.s
	e := caselessWord(s, p, sc)
	if e == p {
		return p
	}
	if a, b := x.caselessTitled(p, e, sc); b > a {
		x.add(TypeName, a, b, 0.8, "name.script-title")
		return b
	}
	if a, b := caselessRoleName(s, p, e, sc); b > a {
		x.add(TypeName, a, b, 0.75, "name.script-role")
		return b
	}
	// A run of two or three words of the script after a word that takes a person, the
	// sentence going on in other letters after it.
	pw, ok := prevWord(s, p)
	if !ok || s[pw.a] >= 0x80 || !caselessPersonCues.hasFold(strings.ToLower(s[pw.a:pw.b])) || pw.b+1 != p && pw.b+2 != p {
		return p
	}
	words, end := 1, e
	for words < 4 {
		if end+1 >= len(s) || s[end] != ' ' || caselessScript(s, end+1) != sc {
			break
		}
		end = caselessWord(s, end+1, sc)
		words++
	}
	if words < 2 || words > 3 || end < len(s) && s[end] != ' ' && !oneOf(s[end], ":,;.)—\n") && s[end] < 0x80 {
		return p
	}
	if end+1 < len(s) && s[end] == ' ' && (caselessScript(s, end+1) != 0 || isDigit(s[end+1])) {
		return p // a sentence of the script, or a label before its number ("תעודת זהות 116219826")
	}
	for _, w := range strings.Fields(s[p:end]) {
		if caselessOrgWords.has(w) {
			return p // "for צוות התמיכה": a team
		}
	}
	x.add(TypeName, p, end, 0.75, "name.script-cue")
	return end
}

// caselessTitled returns the name after an honorific that starts at p (the word s[p:e]), or
// (p, p).
func (x *scanCtx) caselessTitled(p, e int, sc byte) (int, int) {
	s := x.s
	w := s[p:e]
	if sc == 't' {
		// Thai writes the honorific onto the given name, and a space before the surname.
		for _, t := range caselessTitles['t'] {
			if !strings.HasPrefix(w, t) || len(w)-len(t) < 6 || hasAnyPrefix(w[len(t):], thaiTitleWords) {
				continue
			}
			a, b := p+len(t), e
			if b+1 < len(s) && s[b] == ' ' && caselessScript(s, b+1) == 't' {
				b = caselessWord(s, b+1, 't')
			} else if t == "คุณ" {
				return p, p // "คุณ" alone before a word is also "you"
			}
			if t == "คุณ" && !(latinBefore(s, p) && (b == len(s) || s[b] < 0x80)) {
				return p, p // in Thai prose "คุณ..." is "you ...": a name set in other text only
			}
			return a, b
		}
		return p, p
	}
	titled := false
	for _, t := range caselessTitles[sc] {
		if w == t {
			titled = true
			break
		}
	}
	if !titled {
		return p, p
	}
	// Titles run together ("جناب آقای", "آقای دکتر"): the name starts after the last.
	a := e
	for {
		if a+1 >= len(s) || s[a] != ' ' || caselessScript(s, a+1) != sc {
			return p, p
		}
		b := caselessWord(s, a+1, sc)
		next := s[a+1 : b]
		more := false
		for _, t := range caselessTitles[sc] {
			if next == t {
				more = true
				break
			}
		}
		if !more {
			break
		}
		a = b
	}
	a++
	if sc == 'a' && strings.HasPrefix(s[a:], "ال") || sc == 'h' && strings.HasPrefix(s[a:], "ה") {
		return p, p // the definite article: a role ("السيد الرئيس", "מר המנהל"), no name
	}
	b := caselessWord(s, a, sc)
	// The surname after the given name, and the word after a particle ("آل معيض").
	for n := 0; n < 3 && b+1 < len(s) && s[b] == ' ' && caselessScript(s, b+1) == sc; n++ {
		if n >= 1 && !slices.Contains(caselessParticles, s[max(a, strings.LastIndexByte(s[:b], ' ')+1):b]) {
			break
		}
		b = caselessWord(s, b+1, sc)
	}
	if sc == 'd' && !strings.Contains(s[a:b], " ") {
		return p, p // "श्री" goes before a god's or a place's name as well: a person's has two words
	}
	return a, b
}

// latinBefore reports whether the nearest byte before p but spaces is one of ASCII text.
func latinBefore(s string, p int) bool {
	k := p
	for k > 0 && s[k-1] == ' ' {
		k--
	}
	return k > 0 && s[k-1] < 0x80
}

// caselessRoleName returns the given name and surname after a role word of caselessRoles that is
// the word s[p:e], or (p, p).
func caselessRoleName(s string, p, e int, sc byte) (int, int) {
	if !slices.Contains(caselessRoles[sc], s[p:e]) || e+1 >= len(s) || s[e] != ' ' || caselessScript(s, e+1) != sc {
		return p, p
	}
	a := e + 1
	m := caselessWord(s, a, sc)
	if m+1 >= len(s) || s[m] != ' ' || caselessScript(s, m+1) != sc {
		return p, p
	}
	b := caselessWord(s, m+1, sc)
	if b+1 >= len(s) || s[b] != ' ' || caselessScript(s, b+1) != sc {
		return p, p // the sentence must go on after the name: "user X Y asks ..."
	}
	if sc == 'g' && !hasAnySuffix(s[m+1:b], georgianSurnameEnds) {
		return p, p
	}
	return a, b
}

func hasAnySuffix(w string, ends []string) bool {
	for _, x := range ends {
		if strings.HasSuffix(w, x) {
			return true
		}
	}
	return false
}
