package classify

import (
	"context"
	"testing"

	"github.com/moltgate/moltgate/wire"
)

// The ext members the gateways write and consume themselves
// (GateConfig.Unscanned) are not scanned; the same text in any other
// member still is, and the message's own members are scanned as before.
func TestGateUnscannedExt(t *testing.T) {
	f := newFixture(t)
	f.gate.unscanned = []string{"moltgate.receipts"}
	withExt := func(key, text string) *wire.Message {
		m := f.msg(t, bob, alice, wire.Conf, "Summarise the Q3 plan in 200 words.", nil)
		m = &wire.Message{V: m.V, ID: m.ID, TS: m.TS, Op: m.Op, From: m.From, To: m.To, Cls: m.Cls, Payload: m.Payload,
			Ext: wire.ObjectValue(wire.Member{Key: key, Value: wire.ObjectValue(wire.Member{Key: "note", Value: wire.StringValue(text)})})}
		return decoded(t, m)
	}
	if d := f.gate.Check(context.Background(), withExt("moltgate.receipts", email), Inbound, "globex", sealed); !d.Allow {
		t.Fatalf("an unscanned member was scanned: %v", d.Err)
	}
	d := f.gate.Check(context.Background(), withExt("globex.note", email), Inbound, "globex", sealed)
	expectBlock(t, d, wire.ErrConsent, ReasonNoConsent, "email")
	f.gate.unscanned = nil
	d = f.gate.Check(context.Background(), withExt("moltgate.receipts", email), Inbound, "globex", sealed)
	expectBlock(t, d, wire.ErrConsent, ReasonNoConsent, "email")
}
