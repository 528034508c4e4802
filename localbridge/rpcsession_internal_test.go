package localbridge

import (
	"encoding/json"
	"reflect"
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

// tool.complete, encoded directly, is what encoding/json makes of a ToolComplete: the same
// bytes for a tool name as the face admits them, the same JSON value for any string.
func TestToolCompleteNotification(t *testing.T) {
	for _, tool := range []string{"echo", "a\"b\\c\u2028<"} {
		got := toolCompleteNotification("q-1", tool, OutcomeCancelled, 42)
		want := notification(NotifyToolComplete, ToolComplete{ExecutionID: "q-1", QueryID: "q-1", Tool: tool, Status: OutcomeCancelled,
			Result: ToolCompleteResult{DurationMS: 42}})
		var g, w any
		if json.Unmarshal(got, &g) != nil || json.Unmarshal(want, &w) != nil || !reflect.DeepEqual(g, w) || (tool == "echo" && string(got) != string(want)) {
			t.Errorf("%q:\n%s\nwant\n%s", tool, got, want)
		}
	}
}
