package pii

import "strings"

// Some vendors issue a token as their prefix and a UUID: HubSpot's private-app tokens
// (pat-na1-, pat-eu1-), Axiom's API and personal tokens (xaat-, xapt-), and Langfuse's secret keys
// (sk-lf-, read by skDash). A UUID alone is an identifier of a record and passes (randomish turns
// it away); after the prefix it is the secret itself.

// uuidToken returns a check for prefix followed by a UUID.
func uuidToken(prefix, rule string) tokenRule {
	return tokenRule{prefix, func(x *scanCtx, i int) (int, Type, float64, string) {
		s := x.s
		if !strings.HasPrefix(s[i:], prefix) || !leftEdge(s, i) {
			return no(i)
		}
		b := i + len(prefix)
		e := b + 36
		if e > len(s) || !uuidBodyToken(s[b:e]) || !rightEdge(s, e) {
			return no(i)
		}
		return ok(e, TypeAPIToken, 0.95, rule)
	}}
}

// uuidBodyToken reports a UUID that is no placeholder: no run of zeros ("00000000-0000-…"), nor
// a count ("12345678-1234-…"), in which most neighbours follow one another where a random one has
// two or three that do.
func uuidBodyToken(v string) bool {
	if !uuidShape(v) || placeholderRun(v) {
		return false
	}
	counting := 0
	for k := 1; k < len(v); k++ {
		if v[k] == v[k-1]+1 {
			counting++
		}
	}
	return counting < 12
}
