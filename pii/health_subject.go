package pii

import "strings"

// A diagnosis stated of someone in the middle of a sentence ("the booking was cancelled because
// my husband was diagnosed with breast cancer", "not sure it matters but she was diagnosed with
// lupus") names no one and holds no capital that speaks of a person: the capitalised pronouns and
// names that make health vocabulary count (personWords) stand elsewhere or nowhere. What says a
// person is meant is the subject of the phrase itself: a pronoun, a relative, or a role word
// after a determiner ("the customer", "our tenant"), joined to it by nothing but auxiliaries and
// adverbs ("was recently", "has just been"). Sentences about people in general ("patients
// diagnosed with", "about 20% of adults are diagnosed with") have no such subject and pass.
//
// A document's strings are read for it only while the document is short (a message, a ticket,
// a chat), has identified no one and has no other cue; the phrases are found with one substring
// search each, so that a document without them pays a few instructions a byte at most.

// subjectPhrases are the phrases that state a person's condition, after the stem searched for.
var subjectPhrases = []struct{ stem, phrase string }{
	{"diagnos", "diagnosed"},
	// The participle as Spanish and Portuguese, Italian, French and Dutch write it, after the
	// clitic or pronoun that says whom it was diagnosed in ("me han diagnosticado", "mi hanno
	// diagnosticato", "on m'a diagnostiqué", "ik ben gediagnosticeerd"): the same stem, so the
	// same one search.
	{"diagnos", "diagnosticad"},
	{"diagnos", "diagnosticaron"},
	{"diagnos", "diagnosticat"},
	{"diagnos", "diagnostiqu"},
	{"diagnos", "diagnosticeerd"},
	{"suffer", "suffers from"},
	{"suffer", "suffering from"},
	{"treated", "treated for"},
	{"allergic", "allergic to"},
}

// subjectWords are the subjects that speak of one person: pronouns, relatives (kinWords), and
// words for a person that need a determiner before them (subjectRoles).
var subjectPronouns = toSet(`she he i i'm i've we
me mi le lui m'a m'ont j'ai yo eu io je ik fui`)

var subjectRoles = toSet(`customer client tenant patient colleague coworker employee member guest passenger
caller user subscriber policyholder applicant student resident traveller traveler buyer
owner holder`)

var subjectDeterminers = toSet(`my our your his her their the this that`)

// subjectLinks may stand between the subject and the phrase.
var subjectLinks = toSet(`was is has had have been being got gets get recently just also already later finally
officially newly since then once only ever now first
han ha hanno fue foi sido fueron è é sono stato stata a ont été ai suis ben werd
recién recientemente ya appena già récemment déjà onlangs net`)

// subjectLook sets the document's person cue when the string x.s states a condition of a person
// in one of subjectPhrases.
func (x *scanCtx) subjectLook() {
	if x.personCue || x.identity {
		return
	}
	if hl7Patient(x.s) {
		x.personCue = true
		return
	}
	if x.docBytes > shortDoc {
		return
	}
	s := x.s
	if !subjectStemAt(s) {
		return
	}
	for i, p := range subjectPhrases {
		if i > 0 && p.stem == subjectPhrases[i-1].stem {
			continue
		}
		for from := 0; from < len(s); {
			k := strings.Index(s[from:], p.stem)
			if k < 0 {
				break
			}
			k += from
			from = k + len(p.stem)
			at := k
			if k >= 2 && s[k-2:k] == "ge" && strings.HasPrefix(s[k:], "diagnosticeerd") {
				at = k - 2 // Dutch's participle: "gediagnosticeerd"
			}
			if at > 0 && isAlpha(s[at-1]) {
				continue
			}
			if subjectBefore(s, at) && phraseAt(s, k) {
				x.personCue = true
				return
			}
		}
	}
}

// subjectHeads holds the first three bytes (fold3) of the stems of subjectPhrases, and of
// Dutch's "gediagnosticeerd", by the first byte.
var subjectHeads = func() (t [256][]uint32) {
	add := func(w string) {
		for _, h := range t[w[0]] {
			if h == fold3(w, 0) {
				return
			}
		}
		t[w[0]] = append(t[w[0]], fold3(w, 0))
	}
	for _, p := range subjectPhrases {
		add(p.stem)
	}
	add("gediagnos")
	return t
}()

// subjectStemAt reports whether some word of s opens as a stem of subjectPhrases does: one pass
// over s, where a search for each stem would stop at every word that opens with its first
// letter ("d", "s", "t", "a" open many).
func subjectStemAt(s string) bool {
	for i := 0; i+3 <= len(s); i++ {
		heads := subjectHeads[s[i]]
		if len(heads) == 0 || i > 0 && isAlpha(s[i-1]) {
			continue
		}
		k := fold3(s, i)
		for _, h := range heads {
			if h == k {
				return true
			}
		}
	}
	return false
}

// phraseAt reports whether one of subjectPhrases starts at k.
func phraseAt(s string, k int) bool {
	for _, p := range subjectPhrases {
		if strings.HasPrefix(s[k:], p.phrase) {
			return true
		}
	}
	return false
}

// subjectBefore reports whether a subject that speaks of one person stands before k, past
// subjectLinks only.
func subjectBefore(s string, k int) bool {
	e := k
	for n := 0; n < 5; n++ {
		for e > 0 && s[e-1] == ' ' {
			e--
		}
		a := e
		// Letters beyond ASCII belong to the word ("été", "è").
		for a > 0 && (isAlpha(s[a-1]) || s[a-1] == '\'' || s[a-1] >= 0x80) {
			a--
		}
		if a == e || e-a > 16 {
			return false
		}
		var buf [16]byte
		w := string(lowerInto(buf[:0], s[a:e]))
		switch {
		case subjectLinks.has(w):
			e = a
			continue
		case subjectPronouns.has(w), kinWords.has(w) && determinerBefore(s, a, true):
			return true
		case subjectRoles.has(w):
			return determinerBefore(s, a, false) || noteStart(s, a)
		}
		return false
	}
	return false
}

// noteStart reports whether the word at a opens a line or a note, with nothing before it but
// the marks a note starts with ("[mem] user was diagnosed…", "- customer is allergic to…"): a
// note about the one user or customer it is kept for needs no determiner.
func noteStart(s string, a int) bool {
	for a > 0 && s[a-1] == ' ' {
		a--
	}
	return a == 0 || oneOf(s[a-1], "\n]:-*>")
}

// determinerBefore reports whether a determiner of subjectDeterminers stands just before a
// ("the customer", "my husband"); for a relative a possessive of a name will do as well
// ("Anna's husband").
func determinerBefore(s string, a int, kin bool) bool {
	e := a
	for e > 0 && s[e-1] == ' ' {
		e--
	}
	if e == a {
		return false
	}
	b := e
	for b > 0 && (isAlpha(s[b-1]) || s[b-1] == '\'') {
		b--
	}
	if b == e || e-b > 12 {
		return false
	}
	if kin && strings.HasSuffix(s[b:e], "'s") {
		return true
	}
	return subjectDeterminers.hasFold(s[b:e])
}

// hl7Patient reports an HL7 v2 message (its first segment MSH) with a patient identification
// segment (PID): its diagnoses (DG1), observations and orders are of the patient the PID
// segment names, however the name and the birth date are written in its fields.
func hl7Patient(s string) bool {
	if len(s) < 8 || s[:4] != "MSH|" {
		return false
	}
	for _, sep := range []string{"\rPID|", "\nPID|"} {
		if strings.Contains(s, sep) {
			return true
		}
	}
	return false
}
