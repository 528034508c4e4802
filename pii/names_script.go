package pii

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Names in Cyrillic, Greek and Hangul. The name lists are in Latin letters, so a name written
// in another script is found by its shape: in Cyrillic and Greek, two capitalised words inside a
// sentence, the second ending as surnames of the languages written in it do ("Никифор
// Комиссаров", "Богдан Нестеренко", "Πολύκαρπος Βαβουλίδης"), or after a word for a customer,
// a patient or a person who wrote ("Клиент", "πελάτης", "Звернувся"); in Hangul, a word of two to
// four syllables before an honorific for a person ("장선영 고객님이", "김민수 씨").

// cyrSurnameEnds and greekSurnameEnds are the endings of surnames (lower case).
var cyrSurnameEnds = []string{"ов", "ова", "ев", "ева", "ёв", "ёва", "ин", "ина", "ын", "ына", "ский", "ская", "ськ", "ський",
	"ська", "цкий", "цкая", "енко", "ко", "ук", "юк", "чук", "ич", "вич", "ян", "як", "ак", "ець", "ец", "их", "ых", "ий", "ая"}
var greekSurnameEnds = []string{"ίδης", "ιδης", "άκης", "ακης", "όπουλος", "οπουλος", "οπούλου", "ίδου", "άκη", "ίου", "ής", "ης",
	"ή", "άς", "ας", "ου", "ού"}

// scriptPersonCues are words after which a capitalised pair in Cyrillic or Greek is a person's.
var scriptPersonCues = toSet(`клиент клиентка клиента пациент пациентка сотрудник сотрудница менеджер господин
госпожа звернувся звернулася обратился обратилась позвонил позвонила написал написала клієнт клієнтка
пацієнт пацієнтка пан пані від від: от от: πελάτης πελάτισσα ασθενής κύριος κυρία κ. από`)

// hangulHonorifics follow a person's name in Korean.
var hangulHonorifics = []string{"고객님", "님", "씨", "선생님", "환자", "고객"}

// scriptName tries a name in Cyrillic, Greek or Hangul at the word s[p:j]; it returns the end of
// the name, or p.
func (x *scanCtx) scriptName(p, j int) int {
	s := x.s
	r, _ := utf8.DecodeRuneInString(s[p:])
	switch {
	case r >= 0xAC00 && r <= 0xD7A3:
		return x.hangulName(p, j)
	case r >= 0x0400 && r <= 0x04FF || r >= 0x0370 && r <= 0x03FF:
	default:
		return p
	}
	if !unicode.IsUpper(r) || j+2 >= len(s) || s[j] != ' ' {
		return p
	}
	e := j + 1
	for e < len(s) && s[e] >= 0x80 {
		e++
	}
	second := s[j+1 : e]
	r2, _ := utf8.DecodeRuneInString(second)
	if len(second) < 4 || !unicode.IsUpper(r2) || unicode.Is(unicode.Cyrillic, r) != unicode.Is(unicode.Cyrillic, r2) {
		return p
	}
	if e < len(s) && (isAlnum(s[e]) || s[e] == '-') {
		return p
	}
	if e+1 < len(s) && s[e] == ' ' && isDigit(s[e+1]) {
		return p // "Λεωφόρος Συγγρού 119": a street and its number
	}
	// A third capitalised word makes a title or a place's or a firm's name.
	if e+2 < len(s) && s[e] == ' ' && s[e+1] >= 0x80 {
		if r3, _ := utf8.DecodeRuneInString(s[e+1:]); unicode.IsUpper(r3) {
			return p
		}
	}
	cue := false
	if pw, ok := prevWord(s, p); ok {
		cue = scriptPersonCues.hasFold(strings.ToLower(s[pw.a:pw.b]))
	} else {
		pw := p
		for pw > 0 && s[pw-1] >= 0x80 {
			pw--
		}
		cue = pw < p && scriptPersonCues.has(strings.ToLower(s[pw:p]))
	}
	cue = cue || ageAfter(s, e) // "Дмитрий Кузнецов, 34 лет" (names_age.go)
	if !cue && !x.midSentence(p) {
		return p
	}
	ends := cyrSurnameEnds
	if !unicode.Is(unicode.Cyrillic, r) {
		ends = greekSurnameEnds
	}
	low := strings.ToLower(second)
	shaped := false
	for _, end := range ends {
		if strings.HasSuffix(low, end) {
			shaped = true
			break
		}
	}
	if !cue && !shaped {
		return p
	}
	x.add(TypeName, p, e, 0.75, "name.script")
	return e
}

// midSentence reports whether the word at p follows another word of its sentence.
func (x *scanCtx) midSentence(p int) bool {
	s := x.s
	k := p
	for k > 0 && s[k-1] == ' ' {
		k--
	}
	return k > 0 && k < p && !oneOf(s[k-1], ".!?\n:;\"'(«")
}

// hangulTitles are words an honorific follows that are no name: "고객님" is "dear customer".
var hangulTitles = []string{"고객", "선생", "환자", "회원", "사장", "부장", "과장", "팀장", "여러분", "교수", "기사", "손님"}

// hangulName reads a Korean name of two to four syllables before an honorific.
func (x *scanCtx) hangulName(p, j int) int {
	s := x.s
	if n := utf8.RuneCountInString(s[p:j]); n < 2 || n > 7 {
		return p
	}
	for _, t := range hangulTitles {
		if strings.HasPrefix(s[p:j], t) {
			return p
		}
	}
	// The honorific is written onto the name ("장선영님") or after a space ("장선영 고객님이").
	for _, h := range hangulHonorifics {
		for k := p + 6; k <= j-len(h) && k <= p+12; k += 3 {
			if strings.HasPrefix(s[k:], h) && k-p >= 6 {
				x.add(TypeName, p, k, 0.75, "name.script")
				return j
			}
		}
		if j+1+len(h) <= len(s) && s[j] == ' ' && strings.HasPrefix(s[j+1:], h) && j-p >= 6 && j-p <= 12 {
			x.add(TypeName, p, j, 0.75, "name.script")
			return j
		}
	}
	return p
}
