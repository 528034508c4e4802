package pii

// Health information written carelessly, all in lower case ("fyi my son was dx w/ adhd last wk",
// "mum's dementia got worse, shes on memantine now"), holds no capital for the scan to stop at:
// neither a name nor a capitalised pronoun says that someone is spoken of. A message the size of
// a chat message (shortDoc bytes or fewer, over all its strings) in which the scan met no word in
// title case is read once more, word by word, for the vocabulary of health_vocab.go and for a
// word in lower case that speaks of a person (a pronoun, a relative); when it has both, its
// health vocabulary counts as it does beside a name. Text written with capitals has them where
// it speaks of someone ("My", "She", a name), and costs nothing more.

// shortDoc is the size up to which a document without a capital that speaks of someone is read
// for health information in lower case: a chat message, a note, a ticket's comment.
const shortDoc = 2048

// lowerPersonWords speak of a person in lower case: pronouns, the words careless writing uses
// for them ("im", "shes"), and relatives. Words that are pronouns in one language and other
// words in another ("i" is "in" in Swedish, "her" is "here" in Danish, "kind" a child in German)
// are left out.
var lowerPersonWords = toSet(`my me mine myself she he his him hers himself herself i'm im i've ive i'd i'll
shes she's hes he's hubby wifey husband wife mum mom mommy mummy dad daddy son daughter kid kids child
grandma grandpa granny grandmother grandfather mum's mom's dad's son's daughter's wife's husband's
kid's boyfriend girlfriend bf gf fiancé fiancée fiance fiancee mein meine meinem meinen meiner
meiner mijn moja mój`)

// lowerState is what lowerLook has found so far in a document.
type lowerState struct{ vocab, person bool }

// lowerLook reads the string x.s of a document that is still short for health vocabulary and for
// a word in lower case that speaks of a person. The scan calls it string by string, so that the
// document is not walked again at its end.
func (x *scanCtx) lowerLook() {
	x.subjectLook()
	if x.titleSeen || x.docBytes > shortDoc || x.lower.vocab && x.lower.person || x.identity || x.personCue {
		return
	}
	x.lower.vocab = x.lower.vocab || x.healthVocabScan(false)
	x.lower.person = x.lower.person || lowerPersonIn(x.s)
}

// lowerHealth reports whether the short document just scanned, all in lower case, holds both.
func (x *scanCtx) lowerHealth() bool {
	return !x.titleSeen && x.docBytes <= shortDoc && x.lower.vocab && x.lower.person
}

// lowerPersonIn reports whether a word of lowerPersonWords stands in s.
func lowerPersonIn(s string) bool {
	for k := 0; k < len(s); {
		for k < len(s) && !isAlpha(s[k]) {
			k++
		}
		e := k
		for e < len(s) && (isAlpha(s[e]) || s[e] == '\'') {
			e++
		}
		if e-k >= 1 && e-k <= 12 && lowerPersonWords.hasFold(s[k:e]) {
			return true
		}
		k = e
	}
	return false
}
