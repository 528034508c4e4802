package pii

import "strings"

// Action items. Minutes and stand-up notes hand each piece of work to the person who owns it, on
// a line of its own under a bullet or a marker ("AP:", "Action:", "TODO:"), with the verb of the
// work after the name: "- Jelagat Owino to follow up with the vendor", "AP: Rajesh Reddy book the
// venue", "Action: Mirela Dobre to circulate the draft". A capitalised pair one of whose words a
// list knows or whose shape is a surname's is a person's there; a team's words ("Finance Team",
// "Legal Ops") end the pair before, at the firm and team rules.

// actionMarkers open an action item, after the start of a line or a sentence.
var actionMarkers = toSet(`- * • – ap: ai: ap ai action: actions: todo: to-do: owner: [ ] - [ ]`)

// actionVerbs are the work an action item hands over.
var actionVerbs = toSet(`follow chase send draft book review prepare share update confirm schedule check
circulate contact investigate organise organize arrange call email write fix set collect order finalise
finalize present sort raise reach ping`)

// actionItem reports whether the pair s[a:end] owns an action item: a marker before it at the
// start of its line or sentence, and after it the verb of the work, with or without "to".
func actionItem(s string, a, end int) bool {
	b := a
	for b > 0 && s[b-1] == ' ' {
		b--
	}
	ls := b
	for ls > 0 && b-ls <= 14 && s[ls-1] != '\n' && !(s[ls-1] == ' ' && ls > 1 && s[ls-2] == '.') {
		ls--
	}
	if ls > 0 && s[ls-1] != '\n' && s[ls-1] != ' ' || ls == b || !actionMarkers.hasFold(s[ls:b]) {
		return false
	}
	k := end
	if strings.HasPrefix(s[k:], " to ") {
		k += 3
	}
	w, ok := wordAt(s, k, false)
	return ok && w.a == k+1 && actionVerbs.has(s[w.a:w.b])
}
