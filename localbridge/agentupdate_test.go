package localbridge_test

import (
	"strings"
	"testing"

	"github.com/moltgate/moltgate/localbridge"
	"github.com/moltgate/moltgate/localbridge/osp"
)

// TestAgentUpdate holds agent.update to its contract: the sender's own id and a printable
// name are taken and answered with core.agent.updated, and reported; anything else is a
// core.error that changes nothing.
func TestAgentUpdate(t *testing.T) {
	b := newBridge(t, localbridge.Config{})
	r, _ := b.connectRaw(t, "greeter")
	id := r.send(osp.TypeAgentUpdate, osp.AgentUpdate{ID: "greeter", Name: "Greeter of Guests"})
	e := r.expect(osp.TypeAgentUpdated)
	var got osp.AgentUpdate
	if err := e.DecodePayload(&got); err != nil || e.InReplyTo != id || got != (osp.AgentUpdate{ID: "greeter", Name: "Greeter of Guests"}) {
		t.Fatalf("answer %+v %+v %v", e.Header, got, err)
	}
	waitFor(t, "the name reported", func() bool { a, _ := b.core.Agent("greeter"); return a.Name == "Greeter of Guests" })
	for _, bad := range []osp.AgentUpdate{
		{ID: "other", Name: "Impostor"},
		{ID: "greeter", Name: ""},
		{ID: "greeter", Name: "two\nlines"},
		{ID: "greeter", Name: strings.Repeat("n", 129)},
	} {
		id := r.send(osp.TypeAgentUpdate, bad)
		e := r.expect(osp.TypeError)
		if e.InReplyTo != id || e.Error == nil || e.Error.Code != osp.CodeInvalidMessage {
			t.Fatalf("%+v: answered %+v", bad, e.Header)
		}
	}
	if a, _ := b.core.Agent("greeter"); a.Name != "Greeter of Guests" {
		t.Fatalf("a refused update changed the name to %q", a.Name)
	}
}
