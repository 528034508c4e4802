package gateway

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/moltgate/moltgate/directory"
	"github.com/moltgate/moltgate/localbridge/osp"
)

// TestAgentToolsFitItsEntry: an agent registers at most as many tools as its directory entry
// and its pong may list capabilities (256); the rest are refused with tool.too_many. Were
// they all taken, the agent would be registered and callable, yet its entry could not be
// published and its pong would not be a valid message.
func TestAgentToolsFitItsEntry(t *testing.T) {
	d, ls := newTestDir(t, "acme", AddAgentOptions{ID: "many"})
	g := start(t, d, ls, "websocket")
	g.waitListed("many@acme")

	tok, err := g.s.core.ProvisionToken("many", time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := net.Dial("unix", d.CoreSocket())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fr := osp.NewReader(conn, 0)
	n := 0
	send := func(typ string, p any) {
		n++
		h := osp.Header{V: 1, Type: typ, ID: fmt.Sprintf("m-%d", n), TS: osp.Timestamp(time.Now())}
		b, err := osp.Marshal(&h, p)
		if err != nil {
			t.Fatal(err)
		}
		if err := osp.WriteFrame(conn, b, 0); err != nil {
			t.Fatal(err)
		}
	}
	expect := func(typ string) *osp.Envelope {
		for {
			conn.SetReadDeadline(time.Now().Add(10 * time.Second))
			f, err := fr.ReadFrame()
			if err != nil {
				t.Fatalf("waiting for %s: %v", typ, err)
			}
			e, err := osp.Decode(f)
			if err != nil {
				t.Fatal(err)
			}
			if e.Type == typ {
				return e
			}
		}
	}
	send(osp.TypeHello, osp.Hello{SessionToken: tok.Reveal(), AgentID: "many", AgentVersion: "1", Protocol: osp.HelloProtocol{SupportedVersions: []int{1}}})
	var w osp.Welcome
	if e := expect(osp.TypeWelcome); e.Error != nil || e.DecodePayload(&w) != nil {
		t.Fatalf("welcome: %v", e.Error)
	}
	var tools []osp.Tool
	for i := range 300 {
		name := fmt.Sprintf("tool%03d", i)
		tools = append(tools, osp.Tool{ToolID: "many/" + name, Name: name, InputSchema: json.RawMessage(`{"type":"object"}`)})
	}
	send(osp.TypeToolsRegister, osp.ToolsRegister{Tools: tools})
	var reg osp.ToolsRegistered
	if err := expect(osp.TypeToolsRegistered).DecodePayload(&reg); err != nil {
		t.Fatal(err)
	}
	if len(reg.Registered) != directory.MaxCapabilities || len(reg.Rejected) != 300-directory.MaxCapabilities || reg.Rejected[0].Error.Code != osp.CodeTooManyTools {
		t.Fatalf("registered %d, rejected %d (%+v); want %d registered and the rest tool.too_many",
			len(reg.Registered), len(reg.Rejected), reg.Rejected[:min(1, len(reg.Rejected))], directory.MaxCapabilities)
	}
	send(osp.TypeHeartbeat, osp.Heartbeat{SessionID: w.SessionID, Status: osp.HealthOK})

	deadline := time.Now().Add(10 * time.Second)
	for {
		rec, err := g.s.Registry().Lookup(context.Background(), directory.ID{Agent: "many", Org: "acme"}, directory.Viewer{Local: true})
		if err == nil && len(rec.Capabilities) == directory.MaxCapabilities {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the agent's entry does not list its tools: %v; log:\n%s", err, g.logs())
		}
		time.Sleep(10 * time.Millisecond)
	}
	if strings.Contains(g.logs(), "cannot publish agent") {
		t.Fatalf("an entry was not published:\n%s", g.logs())
	}
	pong := g.s.local.Pong("many", "n")
	if err := g.s.codec.ValidateStruct(pong, "p"); err != nil {
		t.Fatalf("the agent's pong is not valid: %v", err)
	}
}
