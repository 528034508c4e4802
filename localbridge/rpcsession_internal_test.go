package localbridge

import (
	"strconv"
	"testing"
)

// A session keeps the last MaxSessionQueries queries, oldest dropped first.
func TestSessionRemembersTheLast(t *testing.T) {
	var cs connSession
	for i := range MaxSessionQueries + 50 {
		cs.remember(SessionQuery{QueryID: "q-" + strconv.Itoa(i)})
	}
	if len(cs.queries) != MaxSessionQueries || cs.queries[0].QueryID != "q-50" || cs.queries[MaxSessionQueries-1].QueryID != "q-149" {
		t.Fatalf("kept %d, from %s to %s", len(cs.queries), cs.queries[0].QueryID, cs.queries[len(cs.queries)-1].QueryID)
	}
	if n := testing.AllocsPerRun(100, func() { cs.remember(SessionQuery{QueryID: "q-x"}) }); n != 0 {
		t.Fatalf("remember allocates %v times once full", n)
	}
}
