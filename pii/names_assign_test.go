package pii

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// madeUpName returns a given name and a surname made of syllables, which no name list holds,
// so that only the cue can make them a person's.
func madeUpName(r *rand.Rand) (string, string) {
	syl := []string{"ka", "vo", "ru", "tel", "mi", "sa", "pon", "ja", "nu", "lek", "to", "ri", "bo", "sen", "da", "wi", "ko", "lai", "pha", "nor"}
	word := func(n int) string {
		var b strings.Builder
		for i := 0; i < n; i++ {
			b.WriteString(syl[r.IntN(len(syl))])
		}
		w := b.String()
		return strings.ToUpper(w[:1]) + w[1:]
	}
	return word(2 + r.IntN(2)), word(3 + r.IntN(2))
}

var assignTemplates = []string{
	"Reassigned INC%07d from L1 to %s (network team).",
	"Assignee changed: unassigned -> %s",
	"Ticket %d assigned to %s",
	"Escalated case %d to %s for review.",
	"Owner: support -> %s",
	"Handed over ticket %d to %s.",
	"Co-authored-by: %s",
	"Signed-off-by: %s",
	"Reviewed-by: %s",
	"Attendees: platform team, %s (finance). Notes: migrate invoices by Friday.",
	"Delegated task %d to %s → due Friday",
	"Zugewiesen an %s (Support)",
	"Ticket %d: %s (Legal) will answer",
}

// TestNamesHandedWork: the person a ticket, a task or a commit is handed to or credited to is
// found whatever the name (made-up names no list holds), after an assignment and "to" or an
// arrow, after a commit trailer, or before their team in brackets; a team, a queue or a status
// in the same places is no name.
func TestNamesHandedWork(t *testing.T) {
	sc := mustScanner(t)
	r := rand.New(rand.NewPCG(7, 21))
	variants := 0
	for i := 0; i < 130; i++ {
		g, f := madeUpName(r)
		tpl := assignTemplates[i%len(assignTemplates)]
		var text string
		if strings.Count(tpl, "%") == 2 {
			text = fmt.Sprintf(tpl, r.IntN(9000000)+1000000, g+" "+f)
		} else {
			text = fmt.Sprintf(tpl, g+" "+f)
		}
		if !hasType(sc.ScanText(text), TypeName) {
			t.Errorf("%q: no name found", text)
		}
		variants++
	}
	teams := []string{"Network Operations", "Billing Support", "Tier Two", "Customer Success", "Platform Team",
		"In Progress", "Needs Review", "Release Bot", "Level Three", "Service Desk", "Data Platform", "Security Team"}
	negatives := []string{"Reassigned INC%07d from L1 to %s.", "Assignee changed: unassigned -> %s",
		"Ticket %d routed to %s", "Status: Open -> %s", "Escalated case %d to %s for review."}
	for i := 0; i < 60; i++ {
		tpl := negatives[i%len(negatives)]
		team := teams[i%len(teams)]
		var text string
		if strings.Count(tpl, "%") == 2 {
			text = fmt.Sprintf(tpl, r.IntN(9000000)+1000000, team)
		} else {
			text = fmt.Sprintf(tpl, team)
		}
		if fs := sc.ScanText(text); hasType(fs, TypeName) {
			t.Errorf("%q: a team read as a name: %v", text, fs)
		}
		variants++
	}
	if variants < 20 {
		t.Fatalf("only %d variants", variants)
	}
}
