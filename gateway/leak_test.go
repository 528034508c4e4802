package gateway

import (
	"bytes"
	"crypto/rand"
	"testing"
	"time"

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
