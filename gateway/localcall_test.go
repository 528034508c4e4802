package gateway

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/moltgate/moltgate/gateway/pipeline"
	"github.com/moltgate/moltgate/localbridge"
	"github.com/moltgate/moltgate/wire"
)

// TestLocalCallRules: a call between two agents of one organisation passes
// no gate, since nothing leaves, but each agent's ceiling holds, and a
// consent given must be one the organisation issued to the agent called;
// an input that is not JSON says why.
func TestLocalCallRules(t *testing.T) {
	d, ls := newTestDir(t, "acme", AddAgentOptions{ID: "client", MaxCls: "sec"}, AddAgentOptions{ID: "echo", QueryTool: "echo", MaxCls: "pii"})
	g := start(t, d, ls, TransportWebSocket)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	call := func(cls, token, input string) error {
		_, err := g.s.local.Query(ctx, localbridge.QueryRequest{From: "client", To: "echo@acme", Tool: "echo", Class: cls, Consent: token,
			Input: json.RawMessage(input)}, nil)
		return err
	}
	if err := call("pii", "", `{"text":"mail jane.doe@example.com"}`); err != nil {
		t.Fatalf("personal data inside the organisation: %v", err)
	}
	if err := call("sec", "", `{"text":"x"}`); pipeline.Code(err) != wire.ErrClassification || !strings.Contains(err.Error(), "echo") {
		t.Fatalf("sec to an agent whose ceiling is pii: %v", err)
	}
	if err := call("", "garbage", `{"text":"x"}`); pipeline.Code(err) != wire.ErrConsent {
		t.Fatalf("a malformed consent: %v", err)
	}
	issue := func(grantee string) string {
		tok, err := g.s.local.IssueConsent(ctx, localbridge.ConsentRequest{Grantee: grantee, Purpose: "support", DataTypes: []string{"email"}, TTL: time.Hour})
		if err != nil {
			t.Fatal(err)
		}
		return tok
	}
	if err := call("", issue("echo@acme"), `{"text":"mail jane.doe@example.com"}`); err != nil {
		t.Fatalf("a consent for the agent called: %v", err)
	}
	if err := call("", issue("other@acme"), `{"text":"x"}`); pipeline.Code(err) != wire.ErrConsent {
		t.Fatalf("a consent for another agent: %v", err)
	}
	if err := call("", "", `{"text":"a","text":"b"}`); pipeline.Code(err) != wire.ErrInvalidParam || !strings.Contains(err.Error(), "duplicate") {
		t.Fatalf("a duplicate key: %v", err)
	}
}
