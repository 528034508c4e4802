package pii

import "strings"

// What around a capitalised word says it names a person. The gazetteer (names_gazetteer.go)
// knows given names; these cues let a name it does not know, or one that is also a word
// ("Victor", "Heather", "Guy"), count when the sentence treats it as a person's: a verb that
// takes a person ("forward the contract to", "spoke with", "on behalf of", "avisa a", "leiten
// Sie das an"), a role or a relative ("candidate", "my son"), a greeting, or after the name
// what only people do ("called again", "agreed", "prefers", "said", ", who", "; she") or have
// ("'s performance review", "'s wife"). Each set holds words of the languages the gate sees
// most. A cue is looked for only once a capitalised word has been found, so prose without
// one pays nothing for them.

// personVerbs take a person as their object, directly ("Ask X", "avisa X") or through one of
// personPreps within a few words ("forward the contract to X", "spoke with X", "leiten Sie das
// an X").
var personVerbs = toSet(`forward forwarded send sent give gave pass passed hand handed handing introduce introduced
talk talked talking speak speaking spoke chat chatted reach reached book booked reserve reserved behalf
requested signed approved assigned reassign reassigned reported submitted written authored according refer
referred escalate escalated reply replied respond responded write wrote say said says tell told ask asked
explain explained mention mentioned loop looped meet met connect connected follow check checked belongs
addressed issued payable paid transfer transferred email emailed mail mailed message messaged copy copied
shouted whispered yelled answered complained apologised apologized listen listened married engaged
interviewed interview feedback refund refunded ticket opened filed raised diagnose diagnosis results
prescription directed written produced composed painted performed created designed founded hosted
presented narrated illustrated edited translated featuring features starring change changed rename renamed
leiten leite weiterleiten sprechen sprich schreiben schreib senden sende schicken schick geben gib fragen frag
sagen sag melden meld wenden
parler parle parlez écrire écrivez envoyer envoyez transmettre transmettez donner donnez demander demandez
dire dites répondre répondez
habla hablar hable escribe escribir escriba envía enviar envíe manda mandar mande pregunta preguntar
pregunte dile decir llama llamar llame
parla parlare parli scrivi scrivere scriva invia inviare invii chiedi chiedere chieda chiama chiamare chiami
fale falar escreva escrever envie mande pergunte ligue ligar avise
bel bellen stuur sturen vraag vragen spreek spreken
zadzwoń napisz wyślij poinformuj zapytaj porozmawiaj`)

// directVerbs take a person as their object with nothing between ("Ask Ingrid", "tell
// Victor", "said Felix"); the verbs of personVerbs that take things as well ("Book: Faust",
// "send Invoice 12") count only through a preposition.
var directVerbs = toSet(`ask asked tell told email emailed message messaged text texted thank thanked introduce
introduced invite invited remind reminded meet met congratulate congratulated said says replied answered
shouted whispered yelled frag fragen sag sagen demandez pregunta pregunte dile llama llame chiedi chiama
pergunte ligue avise bel vraag zapytaj
volal volala psal psala napsal napsala poslal poslala řekl řekla rief schrieb
laut podle według volgens enligt ifølge ifolge selon según segun secondo segundo`)

// titleWords are ranks and offices: "Princess Royal", "King Charles", "President Lula" are
// public figures or titles, not the people the gate protects.
var titleWords = toSet(`princess prince king queen duke duchess earl lord lady baron baroness count countess
emperor empress pope saint sultan sheikh emir president chancellor senator governor mayor general captain
admiral colonel major sergeant bishop cardinal archbishop reverend rev father sister brother`)

// meetVerbs are spoken with, met with and talked to, which only people are.
var meetVerbs = toSet(`spoke speak speaking speaks talk talked talking talks chat chatted chatting met meet meeting
meets sprach sprechen gesprochen parlé parler hablé hablar hablado parlato parlare falei falar spoken`)

// personPreps join a verb of personVerbs to the name it takes.
var personPreps = toSet(`to with for of by at from a à an au con mit avec pour para per com do z ze met aan voor`)

// kinWords are relatives and the people around someone; the name after one, even a given name
// alone, is a person's ("my kid Lukas", "her husband Tom").
var kinWords = toSet(`kid kids son daughter child children baby wife husband spouse partner mother father mom
mum dad mommy mummy daddy brother sister sibling grandson granddaughter grandma grandpa grandmother
grandfather aunt uncle nephew niece cousin fiancé fiancée fiance fiancee boyfriend girlfriend friend
colleague coworker co-worker boss neighbour neighbor roommate flatmate classmate stepson stepdaughter
sohn tochter kind mutter vater bruder schwester ehemann ehefrau freund freundin kollege kollegin
fils fille enfant mère père frère sœur soeur mari femme ami amie collègue
hijo hija niño niña madre padre hermano hermana esposo esposa marido amigo amiga
figlio figlia bambino bambina madre padre fratello sorella marito moglie amico amica collega
filho filha criança mãe pai irmão irmã esposo esposa amigo amiga colega
zoon dochter moeder vader broer zus man vrouw vriend vriendin collega
syn córka matka ojciec brat siostra mąż żona przyjaciel koleżanka kolega`)

// greetWords open a message to someone or thank them.
var greetWords = toSet(`hi hello hey dear thanks thank cheers welcome congratulations congrats bye goodbye
morning evening afternoon hallo liebe lieber bonjour salut merci hola gracias ciao grazie buongiorno
olá oi obrigado obrigada hoi dag beste cześć dzień dziękuję pozdravem pozdrav pozdrawiam pozdrowienia
hälsning hälsningar hilsen hilsner terveisin saygılarımla cumprimentos saludos saludo groeten grüße grüßen
gruß cordialement cordiali saluti üdvözlettel hej hei heippa ahoj dobrý szia merhaba tere labas sveiki zdravo
bok hejsan tjena`)

// afterVerbs follow a person's name as its subject: what a person does ("X called again",
// "X agreed to", "X prefers", "X said").
var afterVerbs = toSet(`called calls said says asked asks agreed agrees prefers preferred wants wanted wrote writes
replied replies confirmed approved signed joined starts started shouted told tells thinks believes
complained requested emailed phoned apologised apologized promised explained mentioned decided needs
likes loves hates lives lived works worked studied studies sings sang shouted yelled whispered answered
insists insisted disputes disputed booked cancelled canceled paid prefers recommended resigned retired
smiled laughed cried married divorced
sagte sagt fragte fragt rief ruft schrieb schreibt dit déclare demande écrit dijo dice pregunta
llamó escribió disse diz perguntou ligou escreveu zei vraagt belde schreef powiedział powiedziała
began begins tested suffers padece sufre leidet souffre soffre sofre reported reports noticed
angerufen geschrieben gefragt gemeldet unterschrieben bestätigt reklamiert
volal volala poslal poslala napsal napsala ptá ptal ptala žádá žádal žádala říká řekl řekla chce potřebuje
zavolal zavolala reklamuje`)

// personStates follow "is", "was" or "has been" after a person's name: "X is allergic to",
// "X is being treated for", "X has been struggling with".
var personStates = toSet(`allergic pregnant being diagnosed struggling suffering ill sick unwell recovering
hospitalised hospitalized admitted discharged isolating treated married divorced retired deceased
unhappy upset asking requesting complaining`)

// modalVerbs and afterModal: "X will cover for me", "X can sign", "X wird anrufen".
var (
	modalVerbs = toSet(`will would can could should must may might shall wird kann muss va peut doit va puede debe può deve vai pode`)
	afterModal = toSet(`cover call join attend sign send review approve handle lead take meet contact reply confirm
	phone email visit decide explain interview present speak talk write ring pick collect bring drive
	anrufen kommen schreiben appeler venir écrire llamar venir escribir chiamare venire scrivere ligar vir escrever`)
)

// personNouns follow a possessive that makes the owner a person: "X's performance review",
// "X's wife", "X's lab results".
var personNouns = toSet(`performance review appointment account wife husband mother father son daughter kid kids
child children birthday salary payslip lab results insurance medical doctor manager email phone address
contract flight booking visa passport leave diagnosis prescription treatment therapy surgery condition
health record records file application interview resignation team family home car office desk
killers killer funeral wedding lawyer attorney case claim complaint refund order orders parents boss
partner girlfriend boyfriend brother sister friend friends colleague colleagues`)

// personAfterWords end a clause about a person: "X is a sympathetic person", "X is my colleague".
var personAfterWords = toSet(`person guy man woman girl boy lady gentleman friend colleague listener listeners
kid child worker employee customer patient student teacher`)

// pronounsThird refer back to a person.
var pronounsThird = toSet(`he she him her his hers himself herself`)

// prevWord returns the word before a (past spaces and one comma or colon, and the full stop
// of an abbreviation: "Dr. X", "Sra. X") without that full stop, and whether there is one of at
// most 16 bytes.
func prevWord(s string, a int) (word, bool) {
	k := a
	for k > 0 && k > a-3 && (s[k-1] == ' ' || s[k-1] == ',' || s[k-1] == ':' ||
		(s[k-1] == '\n' || s[k-1] == '\r') && k >= 2 && (s[k-2] == ',' || s[k-2] == '\r' && k >= 3 && s[k-3] == ',')) {
		k-- // "Cheers,\nX": a sign-off's line above the name
	}
	if k > 0 && s[k-1] == '.' {
		k--
	}
	pw, ok := wordBefore(s, k)
	if ok && pw.b > pw.a && s[pw.b-1] == '.' {
		pw.b--
	}
	return pw, ok && pw.b > pw.a && pw.b-pw.a <= 16
}

// Strengths of a cue before a capitalised word.
const (
	cueNone   = iota
	cueWeak   // a verb that takes people and things alike, alone: "add X", "send X"
	cueBridge // such a verb joined to the word by a preposition: "send it to X", "booked for X"
	cueStrong // a role, an honorific, a greeting, a relative, a verb that takes only people
)

// personCueBefore says how strongly what precedes the capitalised word at a says a person's
// name follows: strongly after a role word, an honorific, a greeting, a relative or a verb that
// takes only people ("ask", "tell", "thank"); weakly after a verb that takes things too, alone
// ("add X as a guest") or joined to the name by a preposition within a few words of the same
// clause ("forward the contract to X", "booked for X", "leiten Sie das an X").
func (x *scanCtx) personCueBefore(a int) int {
	s := x.s
	if assignCueBefore(s, a) {
		return cueStrong // names_assign.go: "reassigned to X", "-> X", "Co-authored-by: X"
	}
	pw, ok := prevWord(s, a)
	if !ok {
		return cueNone
	}
	w := s[pw.a:pw.b]
	if roleWords.hasFold(w) || directVerbs.hasFold(w) || kinWords.hasFold(w) || greetWords.hasFold(w) ||
		len(w) > 3 && hasFoldPrefix(w, "ex-") {
		return cueStrong
	}
	if weakVerbs.hasFold(w) {
		return cueWeak
	}
	if reflexiveCueBefore(s, a) {
		return cueBridge
	}
	if !personPreps.hasFold(w) {
		return cueNone
	}
	k := pw.a
	for n := 0; n < 5 && k > 0; n++ {
		for k > 0 && s[k-1] == ' ' {
			k--
		}
		if k == 0 || !inWordTab[s[k-1]] || s[k-1] == '.' {
			return cueNone
		}
		pw, ok := wordBefore(s, k)
		if !ok || pw.b-pw.a > 16 {
			return cueNone
		}
		v := s[pw.a:pw.b]
		if n == 0 && (hasFoldPrefix(v, "behalf") || hasFoldPrefix(v, "according")) && len(v) <= 9 {
			return cueStrong // "on behalf of X", "according to X": only people
		}
		if n == 0 && meetVerbs.hasFold(v) && (w == "with" || w == "to" || w == "With" || w == "To") {
			return cueStrong // "spoke with X", "talked to X": only people are spoken with
		}
		if personVerbs.hasFold(v) || roleWords.hasFold(v) || directVerbs.hasFold(v) {
			return cueBridge
		}
		k = pw.a
	}
	return cueNone
}

// speechAround reports "says X", "said X", "according to X", "X said" and "X says" around the
// word s[a:e]: a few bytes compared, so that the step may ask before any lookup.
func speechAround(s string, a, e int) bool {
	// Every form has "sa" two bytes after the word or "s ", "d " or "o " just before it: most
	// capitalised words are answered by those bytes alone.
	if a >= 5 && s[a-1] == ' ' && (s[a-2] == 's' || s[a-2] == 'd' || s[a-2] == 'o' || s[a-2] == 'O') {
		before := s[max(0, a-13):a]
		if strings.HasSuffix(before, "says ") || strings.HasSuffix(before, "said ") || hasFoldSuffix(before, "according to ") {
			return true
		}
	}
	if e+5 > len(s) || s[e] != ' ' || s[e+1] != 's' || s[e+2] != 'a' {
		return false
	}
	after := s[e:min(len(s), e+6)]
	return (strings.HasPrefix(after, " said") || strings.HasPrefix(after, " says")) && (len(after) == 5 || !isAlpha(after[5]))
}

// hasFoldSuffix reports whether s ends with the lower-case p, compared case-insensitively.
func hasFoldSuffix(s, p string) bool {
	return len(s) >= len(p) && hasFoldPrefix(s[len(s)-len(p):], p)
}

// greetingBefore reports whether the word before a is a greeting.
func (x *scanCtx) greetingBefore(a int) bool {
	pw, ok := prevWord(x.s, a)
	return ok && greetWords.hasFold(x.s[pw.a:pw.b])
}

// weakVerbs take a person or a thing with nothing between: "add X as a guest", "send X".
var weakVerbs = toSet(`add added send forward include includes included copy loop pay paid assign assigned
reassign reassigned features featuring starring`)

// personCueAfter reports whether what follows a name that ends at e says it is a person's:
// ", who", "; she", a verb of afterVerbs (past "will", "has", "just"), or a possessive before
// a word of personNouns.
func (x *scanCtx) personCueAfter(e int) bool {
	s := x.s
	if x.hasToAfter(e) || ageAfter(s, e) {
		return true
	}
	if strings.HasPrefix(s[e:], "'s ") || strings.HasPrefix(s[e:], "’s ") {
		k := e + 3
		if s[e] != '\'' {
			k = e + 5
		}
		w, ok := wordAt(s, k, false)
		return ok && w.a == k && personNouns.hasFold(strings.TrimRight(s[w.a:w.b], "."))
	}
	k := e
	if k < len(s) && (s[k] == ',' || s[k] == ';') {
		k++
	}
	for n := 0; n < 3; n++ {
		w, ok := wordAt(s, k, false)
		if !ok || w.a > k+1 || !isLower(s[w.a]) && s[w.a] < 0x80 || w.b-w.a > 14 {
			return false
		}
		lw := s[w.a:w.b]
		switch {
		case afterVerbs.has(lw), lw == "who", pronounsThird.has(lw) && e < len(s) && (s[e] == ';' || s[e] == ','):
			return true
		case strings.HasPrefix(lw, "she'") || strings.HasPrefix(lw, "he'"):
			return s[e] == ';' || s[e] == ','
		case modalVerbs.has(lw) && n == 0:
			// "X will cover for me", "X can sign it": a verb only people do after a modal.
			if v, ok := wordAt(s, w.b, false); ok && v.a == w.b+1 && afterModal.hasFold(s[v.a:v.b]) {
				return true
			}
			k = w.b
			continue
		case lw == "is" || lw == "was" || lw == "been":
			if v, ok := wordAt(s, w.b, false); ok && v.a == w.b+1 && personStates.hasFold(s[v.a:v.b]) {
				return true
			}
			if lw != "been" {
				return false
			}
			k = w.b
			continue
		case lw == "has" || lw == "just" || lw == "had" || lw == "then" || lw == "also" ||
			lw == "never" || lw == "always" || lw == "again" || lw == "se" || lw == "sich" || lw == "si":
			k = w.b
			continue
		}
		return false
	}
	return false
}

// singleName tries a given name standing alone at s[a:e] (a title-case word that no other
// capitalised word follows). Alone, a given name is a person's only with a strong cue: a
// relative, a role or a verb that takes a person before it; after it, what people
// do or have, "is from", "is a ... person"; or, opening a sentence, a comma and words spoken
// to someone ("Danial, can I speak to your boss?") or a pronoun that refers back to it. Only
// names of the gazetteer that are no common word count. It returns the end of the name, or a.
//
// The step calls it for a given name of the gazetteer; a word that is none is loneSurname's.
func (x *scanCtx) singleName(a, e int) int {
	if x.key == keyPlace {
		return a // a place or a firm named for a person
	}
	s := x.s
	if e-a < 3 || e-a > 20 || e < len(s) && (isAlnum(s[e]) || s[e] >= 0x80) {
		return a
	}
	// The word is title case, or title case before a possessive ("Franciska's kid").
	if te := titleWord(s, a); te != e && (te != e+2 || !strings.HasPrefix(s[e:], "'s")) {
		return a
	}
	if namePairStop.hasFold(s[a:e]) || notNames.hasFold(s[a:e]) {
		return a
	}
	if (x.personCueBefore(a) == cueNone || x.greetingBefore(a)) && !x.personCueAfter(e) && !x.singleCueAfter(a, e) &&
		!workOf(s, a, e) {
		// A first name in a greeting ("Hello, Ada!") addresses the reader and identifies no
		// one; a full name after one does ("Hi Sofia Carranza").
		return a
	}
	if f := skipSpace(s, e); f > e && f < len(s) && (orgAt(s, f) || placeNounAt(s, f, wordEndAt(s, f), 1)) {
		return a // "Aunt Bertha Inc", "Mother Teresa Square"
	}
	x.add(TypeName, a, e, 0.7, "name.single")
	return e
}

// singleCueAfter holds the cues after a given name alone that do not follow a full name as
// well: "is from", "is a ... person", a vocative at a sentence's start, a pronoun that refers
// back to it.
func (x *scanCtx) singleCueAfter(a, e int) bool {
	s := x.s
	start := sentenceStart(s, a)
	if start && strings.HasPrefix(s[e:], ", ") {
		// "Danial, can I please speak to your boss?"
		w, ok := wordAt(s, e+2, false)
		return ok && vocativeNext.hasFold(s[w.a:w.b])
	}
	if e >= len(s) || s[e] != ' ' {
		return false
	}
	w, ok := wordAt(s, e+1, false)
	if !ok || w.a != e+1 {
		return false
	}
	lw := s[w.a:w.b]
	if lw == "from" {
		return true
	}
	if lw != "is" && lw != "was" {
		return false
	}
	// "X is from ...", "X is a very sympathetic person", "X is very reliable. ... on him."
	lim := min(len(s), w.b+120)
	end := w.b
	for end < lim && s[end] != '.' && s[end] != '!' && s[end] != '?' && s[end] != '\n' {
		end++
	}
	for k := w.b; k < end; {
		v, ok := wordAt(s, k, true)
		if !ok {
			break
		}
		lv := strings.TrimRight(s[v.a:v.b], ".")
		if k == w.b && lv == "from" || personAfterWords.has(lv) {
			return true
		}
		k = v.b
	}
	if !start {
		return false
	}
	for k := w.b; k < lim; {
		v, ok := wordAt(s, k, true)
		if !ok {
			if k < lim && !isAlpha(s[k]) {
				k++
				continue
			}
			break
		}
		if pronounsThird.has(strings.TrimRight(s[v.a:v.b], ".")) {
			return true
		}
		k = v.b
	}
	return false
}

// vocativeNext are words that follow "Name, " when the name is spoken to.
var vocativeNext = toSet(`can could would will please you your are do did have i we thanks thank let how what
when where why is it`)

// sentenceStart reports whether a opens the text or a sentence.
func sentenceStart(s string, a int) bool {
	k := a
	for k > 0 && (s[k-1] == ' ' || s[k-1] == '"' || s[k-1] == '\'') {
		k--
	}
	return k == 0 || s[k-1] == '.' || s[k-1] == '!' || s[k-1] == '?' || s[k-1] == '\n'
}

// pairCounts decides a capitalised pair s[a:end] whose first word s[a:e] is not a given name of
// the list: ambiguous when it is one that is also a word or a place, unknown otherwise;
// surname is the second word.
//
// A strong cue before makes either a name ("Passenger Przemysław Czerepak", "Thanks, Piccarda
// Farina", "Può richiamare Victor Berry"), and a verb joined by a preposition an ambiguous one
// ("spoke with Victor Ngata"). Otherwise the words must be known as names
// somewhere and something must say a person is meant: an ambiguous given name before a
// surname of the list ("Chad Phillips"), or a weak cue or a verb after for a pair of which one
// word is a known name ("add Irena Kowalczyk as a guest", "Heather Berg called again"). Firms
// and teams sign, agree and say too, and things are added and sent: "the Denver Broncos
// signed" (a plural that is no name), "add Apple Pay" pass.
func (x *scanCtx) pairCounts(a, e, end int, surname string, ambiguous bool) bool {
	s := x.s
	cue := x.personCueBefore(a)
	if cue == cueStrong || cue == cueBridge && ambiguous || teamAfter(s, end) || partyAfter(s, end) {
		return true
	}
	surname = strings.TrimSuffix(surname, "'s")
	if ambiguous && inNameList(surnames(), surname) {
		return true
	}
	firstKnown := ambiguous || knownOrShaped(s[a:e])
	secondKnown := knownOrShaped(surname)
	if (firstKnown || secondKnown) && (workOf(s, a, end) || addressBlock(s, a, end) || actionItem(s, a, end)) {
		return true // "a Eustachy Gorski concert", "Martin Karlsen\n\nLos Angeles\nUnited States"
	}
	if cue != cueNone && (secondKnown || !ambiguous && firstKnown || whoAfter(s, end)) {
		return true // "handing this over to Kamolchanok Charoensuksopol, who covers": two cues
	}
	if !firstKnown && !secondKnown {
		return subjectOnlyPerson(s, end) // names_subject.go: "X Y se ptá", "X Y war krankgeschrieben"
	}
	if !sentenceStart(s, a) && healthAfter(s, end) {
		return true // names_health.go: "Apoteket: Mikael Andersson hämtar ut sertralin"
	}
	return x.personCueAfter(end) && (!strings.HasSuffix(surname, "s") || inNameList(surnames(), surname)) ||
		subjectOnlyPerson(s, end)
}

// personPlurals are groups of people: the capitalised words listed beside one are their names
// ("our founders: Kónya, Becker and Vasquez", "Marrero and Murphy were precision engineers").
var personPlurals = toSet(`founders cofounders co-founders engineers authors writers doctors nurses directors
managers members employees colleagues friends brothers sisters parents siblings twins musicians singers
players students teachers scientists researchers lawyers owners hosts guests speakers winners candidates
applicants patients passengers tenants customers clients`)

// personList reads two to five capitalised words joined by commas and "and" at a; when none is
// a word of a firm, a place or a date and a word for a group of people stands just before the
// list or after "were" or "are" behind it, each is a person's name, whether a list knows it
// or not ("Dale and White were precision engineers"). It returns the end of the list, or a.
func (x *scanCtx) personList(a int) int {
	if x.key == keyPlace {
		return a // a place or a firm named for a person
	}
	s := x.s
	type item struct{ a, b int }
	var items [5]item
	n := 0
	k := a
	for n < len(items) {
		e := titleWord(s, k)
		if e-k < 2 || e < len(s) && isAlnum(s[e]) || notNames.hasFold(s[k:e]) || namePairStop.hasFold(s[k:e]) ||
			orgWords.hasFold(s[k:e]) || orgNouns.hasFold(s[k:e]) || orgSuffixes[s[k:e]] {
			return a
		}
		items[n] = item{k, e}
		n++
		switch {
		case strings.HasPrefix(s[e:], ", and "):
			k = e + 6
		case strings.HasPrefix(s[e:], ", "):
			k = e + 2
		case strings.HasPrefix(s[e:], " and "):
			k = e + 5
		default:
			k = -1
		}
		if k < 0 {
			break
		}
	}
	if n < 2 {
		return a
	}
	end := items[n-1].b
	ok := false
	// Before: "founders: A, B and C", "our three engineers A and B".
	if pw, found := prevWord(s, a); found && personPlurals.hasFold(s[pw.a:pw.b]) {
		ok = true
	}
	// After: "A and B were precision engineers".
	if !ok && (strings.HasPrefix(s[end:], " were ") || strings.HasPrefix(s[end:], " are ")) {
		q := end + 5
		if s[end+1] == 'w' {
			q = end + 6
		}
		for w := 0; w < 3; w++ {
			v, found := wordAt(s, q, false)
			if !found {
				break
			}
			if personPlurals.hasFold(strings.TrimRight(s[v.a:v.b], ".")) {
				ok = true
				break
			}
			q = v.b
		}
	}
	if !ok {
		return a
	}
	for _, it := range items[:n] {
		x.add(TypeName, it.a, it.b, 0.7, "name.list")
	}
	return end
}

// personPluralNear is personList's prefilter for the capitalised word s[i:j]: a word ending in
// "s" or a colon just before it, or "were" or "are" in the next 60 bytes.
func personPluralNear(s string, i, j int) bool {
	k := i
	for k > 0 && s[k-1] == ' ' {
		k--
	}
	if k > 0 && (s[k-1] == ':' || s[k-1] == 's') {
		return true
	}
	w := s[j:min(len(s), j+60)]
	return strings.Contains(w, " were ") || strings.Contains(w, " are ")
}

// whoAfter reports ", who " just after e: a relative clause that only a person takes.
func whoAfter(s string, e int) bool {
	return strings.HasPrefix(s[e:], ", who ")
}

// reflexiveCueBefore reports a reflexive pronoun just before a, after a verb ("meldete sich X",
// "ozval se X"): the subject of a verb put after it, which the German and Czech word order does.
func reflexiveCueBefore(s string, a int) bool {
	pw, ok := prevWord(s, a)
	if !ok || pw.b != a-1 {
		return false
	}
	w := s[pw.a:pw.b]
	if w != "sich" && w != "se" {
		return false
	}
	vw, ok := prevWord(s, pw.a)
	return ok && vw.b == pw.a-1 && isLower(s[vw.a])
}
