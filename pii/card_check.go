package pii

// A card number whose Luhn digit fails is a mistyped card number: a support ticket quotes the
// number a form refused, and a refund log the one it could not charge. It is no payment card, and
// its layout (4-6-5 for American Express, groups of four for the others) or a word naming a card
// says it is no phone number either.

// mistypedCard reports whether n, which failed the Luhn check, is written as a card number is:
// thirteen to nineteen digits in an issuer's range, in a card's groups, or after a word naming a
// card. A number in one group of fifteen digits or fewer needs the word: it could be a phone
// number written without its plus sign.
func (x *scanCtx) mistypedCard(n *numSpan, d []byte, cardCue bool) bool {
	if n.plus || n.paren || len(d) < 13 || len(d) > 19 || !iinOK(d) && !cardCue || !cardGrouping(n) {
		return false
	}
	if n.ng == 1 && len(d) <= 15 && !cardCue {
		return false
	}
	return !luhn(d)
}
