package gateway

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"testing"
	"time"

	"github.com/moltgate/moltgate/classify"
	"github.com/moltgate/moltgate/localbridge"
	"github.com/moltgate/moltgate/wire"
)

// TestAgentErrorsAreMasked: a local agent's failure message goes back to
// the peer as an error, which is cls pub and passes no gate; personal data
// and secrets in it are masked, and the rest of the message kept.
func TestAgentErrorsAreMasked(t *testing.T) {
	d, ls := newTestDir(t, "globex", AddAgentOptions{ID: "echo", MaxCls: "pii"})
	g := start(t, d, ls, TransportWebSocket)
	st := g.s.agent("echo")
	m := &wire.Message{V: wire.Version, ID: newMessageID(rand.Reader), TS: time.Now().UnixMilli(), Op: wire.OpTool,
		From: wire.Sender{Agent: "caller", Org: "acme"}, To: wire.Ref{Agent: "echo", Org: "globex"}, Cls: wire.Conf,
		Payload: &wire.ToolPayload{Action: "invoke", Tool: "lookup"}}
	leak := &localbridge.Error{Code: "tool.lookup_failed", Where: "agent",
		Message: "no account for jane.doe@example.com; tried postgres://admin:hunter2@db.internal/acct with AKIAZ3MSJV4WWNKWW5V2"}
	a := g.s.callFailed(&inbound{m: m}, st, leak)
	if a.code != wire.ErrTaskFailed || a.body == nil {
		t.Fatalf("answer %s %q", a.code, a.body)
	}
	for _, secret := range []string{"jane.doe", "example.com", "hunter2", "AKIAZ3MSJV4WWNKWW5V2"} {
		if bytes.Contains(a.body, []byte(secret)) {
			t.Errorf("the error sent to the peer holds %q: %s", secret, a.body)
		}
	}
	for _, kept := range []string{"no account for [email]", "[secret]"} {
		if !bytes.Contains(a.body, []byte(kept)) {
			t.Errorf("the error lost %q: %s", kept, a.body)
		}
	}
}

// TestDiscoveryPassesTheGate: a discovery query goes to a peer in the
// gateway's own name, but its requirements are a local caller's text: the
// gate stops personal data and secrets in them as in any other message.
func TestDiscoveryPassesTheGate(t *testing.T) {
	acme, _ := twoGateways(t, TransportWebSocket)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if _, err := acme.s.Discover(ctx, localbridge.DiscoverRequest{Org: "globex", Capability: "echo.text"}); err != nil {
		t.Fatalf("a plain query: %v", err)
	}
	for q, want := range map[string]struct {
		code   wire.Code
		reason classify.Reason
	}{
		`{"capability":"echo.text","requirements":{"note":"mail jane.doe@example.com"}}`: {wire.ErrConsent, classify.ReasonNoConsent},
		`{"capability":"echo.text","requirements":{"note":"key AKIAZ3MSJV4WWNKWW5V2"}}`:  {wire.ErrClassification, classify.ReasonSecret},
	} {
		before := acme.s.blocks.Get(want.reason, classify.Outbound)
		_, err := acme.s.Discover(ctx, localbridge.DiscoverRequest{Org: "globex", Query: json.RawMessage(q)})
		if code(err) != want.code {
			t.Errorf("%s: %v, want %s", q, err, want.code)
		}
		// Stopped on the way out, not by the peer once it had it.
		if acme.s.blocks.Get(want.reason, classify.Outbound) != before+1 {
			t.Errorf("%s: acme's gate did not stop it", q)
		}
	}
}

// TestAgentErrorFieldMasked: the field of a failed call's error is a path
// into the caller's input, whose keys are the caller's text; personal data
// in it is masked too.
func TestAgentErrorFieldMasked(t *testing.T) {
	d, ls := newTestDir(t, "globex", AddAgentOptions{ID: "echo", MaxCls: "pii"})
	g := start(t, d, ls, TransportWebSocket)
	m := &wire.Message{V: wire.Version, ID: newMessageID(rand.Reader), TS: time.Now().UnixMilli(), Op: wire.OpTool,
		From: wire.Sender{Agent: "caller", Org: "acme"}, To: wire.Ref{Agent: "echo", Org: "globex"}, Cls: wire.Conf,
		Payload: &wire.ToolPayload{Action: "invoke", Tool: "echo"}}
	bad := &localbridge.Error{Code: "tool.invalid_input", Where: "core", Field: "jane.doe@example.com", Message: "unexpected property"}
	a := g.s.callFailed(&inbound{m: m}, g.s.agent("echo"), bad)
	if bytes.Contains(a.body, []byte("jane.doe")) || !bytes.Contains(a.body, []byte(`[email]"`)) {
		t.Fatalf("error sent: %s", a.body)
	}
}
