package pii

import "strings"

// Work handed to someone. Tickets, change logs and commit messages name the person a piece of
// work goes to in a few fixed ways, whatever the person's name and whether any list knows it:
// after an assignment on the same line and "to" or an arrow ("Reassigned INC8137447 from L1 to
// Ljubov Kikkas", "Assignee changed: unassigned -> Jevgeni Kasemets", "escalated to Ants Suits"),
// after a commit trailer that credits a person ("Co-authored-by: Folake Onyekachi",
// "Reviewed-by:"), and before the team the person belongs to in brackets ("Phoibos Lebentes
// (finance)", "Ants Suits (network team)"). Each is a strong cue for the capitalised pair it
// stands beside (personCueBefore, pairCounts); the pair must still be no firm, place or title.

// assignWords say that work is given to someone, in the languages the gate sees most.
var assignWords = toSet(`assign assigned assigning reassign reassigned reassigning assignee assignees assignment
hand handed handing handover escalate escalated escalating transfer transferred transferring delegate delegated
delegating route routed reroute rerouted owner ownership
zugewiesen zugeordnet übergeben weitergeleitet eskaliert asignado asignada reasignado escalado assigné assignée
réassigné transféré assegnato assegnata riassegnato toegewezen overgedragen przypisano przypisane przekazano
přiřazeno přiřazen předáno předán atribuído atribuida`)

// trailerCues end the commit trailers that name a person: "Co-authored-by: ", "Signed-off-by: ".
var trailerCues = []string{"authored-by:", "signed-off-by:", "reviewed-by:", "reported-by:", "acked-by:",
	"tested-by:", "suggested-by:", "helped-by:", "requested-by:", "approved-by:"}

// assignCueBefore reports whether the capitalised word at a is the one work is handed to (see
// the comment at the top): "to", "->", "→" or "=>" just before it after an assignment word
// earlier on its line, or a commit trailer that names a person.
func assignCueBefore(s string, a int) bool {
	k := a
	for k > 0 && s[k-1] == ' ' {
		k--
	}
	if k == a || k == 0 {
		return false
	}
	ls := max(strings.LastIndexByte(s[:k], '\n')+1, k-96)
	if teamPairAt(s, a) {
		return false // "escalated to Network Operations", "routed to Billing Support": a team
	}
	switch {
	case strings.HasSuffix(s[ls:k], "->"), strings.HasSuffix(s[ls:k], "=>"), strings.HasSuffix(s[ls:k], "→"):
	case s[k-1] == ':':
		line := s[ls:k]
		for _, c := range trailerCues {
			if hasFoldSuffix(line, c) {
				return true
			}
		}
		return false
	default:
		pw, ok := wordBefore(s, k)
		if !ok || pw.b != k || pw.b-pw.a > 4 {
			return false
		}
		if w := s[pw.a:pw.b]; !strings.EqualFold(w, "to") && w != "an" && w != "a" && w != "à" && w != "aan" && w != "na" {
			return false
		}
		k = pw.a
	}
	// An assignment word earlier on the line.
	for q := ls; q < k; {
		w, ok := wordAt(s, q, false)
		if !ok {
			q++
			continue
		}
		if w.a >= k {
			return false
		}
		if n := w.b - w.a; n >= 4 && n <= 14 && assignWords.hasFold(strings.TrimRight(s[w.a:w.b], ":.,")) {
			return true
		}
		q = w.b
	}
	return false
}

// teamWords name a team or a department, which a person's name may be followed by in brackets.
var teamWords = toSet(`team finance legal hr sales marketing ops operations it support engineering accounting
procurement network networking security qa design product platform billing payroll logistics purchasing
compliance infra infrastructure devops sre facilities admin administration research management dept
department office desk squad backoffice helpdesk servicedesk frontend backend data analytics
tier tiers level line queue group groups shift rota rotation board committee council bot bots one two three
first second third review progress backlog`)

// teamAfter reports whether a team or a department follows the name that ends at e in
// brackets: " (network team)", " (finance)", " (Legal)".
func teamAfter(s string, e int) bool {
	if e+3 >= len(s) || s[e] != ' ' || s[e+1] != '(' {
		return false
	}
	c := strings.IndexByte(s[e+2:min(len(s), e+40)], ')')
	if c <= 0 {
		return false
	}
	inner := s[e+2 : e+2+c]
	for _, w := range strings.Fields(inner) {
		if len(w) <= 14 && teamWords.hasFold(w) {
			return true
		}
	}
	return false
}

// teamPairAt reports whether the capitalised word at a, or the one after it, names a team or a
// firm rather than a person.
func teamPairAt(s string, a int) bool {
	for n := 0; n < 2 && a < len(s); n++ {
		e := titleWord(s, a)
		if e == a {
			return false
		}
		w := s[a:e]
		if teamWords.hasFold(w) || orgWords.hasFold(w) || orgNouns.hasFold(w) || orgAfter.hasFold(w) {
			return true
		}
		if e >= len(s) || s[e] != ' ' {
			return false
		}
		a = e + 1
	}
	return false
}
