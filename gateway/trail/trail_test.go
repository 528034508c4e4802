package trail

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/moltgate/moltgate/audit"
	"github.com/moltgate/moltgate/classify"
	"github.com/moltgate/moltgate/gateway/pipeline"
	"github.com/moltgate/moltgate/identity"
	"github.com/moltgate/moltgate/keys"
	"github.com/moltgate/moltgate/receipt"
	"github.com/moltgate/moltgate/wire"
)

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

func openTrail(t *testing.T, all bool) (*Trail, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "audit.db")
	l, err := audit.OpenSQLite(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	return New(Config{Ledger: l, Events: audit.Config{Source: "moltgate://acme"}, All: all, Log: quiet}), path
}

// events closes a and reads back what its ledger holds.
func events(t *testing.T, a *Trail, path string) []audit.Event {
	t.Helper()
	if err := a.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	l, err := audit.OpenSQLite(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	es, err := l.Entries(context.Background(), audit.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	out := make([]audit.Event, len(es))
	for i, e := range es {
		if err := json.Unmarshal(e.Event, &out[i]); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

func agent(t *testing.T, seed byte, ref wire.Ref) *identity.Agent {
	t.Helper()
	a, err := identity.Generate(bytes.NewReader(bytes.Repeat([]byte{seed}, 256)), ref)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// TestTrailRecordsBlocksAndAllowed: a block is recorded whatever the
// setting; a message allowed only with decisions = "all"; and a nil trail
// records nothing and lets everything go.
func TestTrailRecordsBlocksAndAllowed(t *testing.T) {
	m := &wire.Message{V: wire.Version, ID: "m1", Op: wire.OpQuery, From: wire.Sender{Agent: "client", Org: "acme"},
		To: wire.Ref{Agent: "echo", Org: "globex"}, Cls: wire.Pub}
	blocked := classify.Decision{Err: &wire.Error{Code: wire.ErrClassification}}
	for _, all := range []bool{false, true} {
		a, path := openTrail(t, all)
		if err := a.Outbound(context.Background(), m, classify.Decision{Allow: true}); err != nil {
			t.Fatal(err)
		}
		if err := a.Outbound(context.Background(), m, blocked); err != nil {
			t.Fatal(err)
		}
		var types []string
		for _, ev := range events(t, a, path) {
			types = append(types, ev.Type)
		}
		want := []string{audit.TypeBlocked}
		if all {
			want = []string{audit.TypeAllowed, audit.TypeBlocked}
		}
		// Decisions are committed in the background: in any order.
		slices.Sort(types)
		slices.Sort(want)
		if !slices.Equal(types, want) {
			t.Errorf("decisions all=%v: recorded %v, want %v", all, types, want)
		}
	}
	var none *Trail
	if err := none.Outbound(context.Background(), m, blocked); err != nil {
		t.Fatalf("a nil trail: %v", err)
	}
	none.Reply(context.Background(), m, blocked)
}

// TestReceiptExchange: the callee signs a receipt into its reply; the
// caller's countersignature, when it comes back, is taken once, and the
// receipt lands in the callee's ledger signed twice. A countersignature
// for a reply not awaited is not taken.
func TestReceiptExchange(t *testing.T) {
	acme := agent(t, 1, wire.Ref{Agent: "gateway", Org: "acme"})
	globex := agent(t, 2, wire.Ref{Agent: "gateway", Org: "globex"})
	keyOf := func(org string) (keys.Ed25519Public, bool) {
		switch org {
		case "acme":
			return acme.Signing.Public(), true
		case "globex":
			return globex.Signing.Public(), true
		}
		return keys.Ed25519Public{}, false
	}
	a, path := openTrail(t, false)
	now := time.UnixMilli(1_700_000_000_000)
	rs := NewReceipts(context.Background(), ReceiptsConfig{Self: globex, KeyOf: keyOf, Trail: a, Go: func(f func()) { f() },
		Base: context.Background(), Log: quiet, Now: func() time.Time { return now }, Rand: bytes.NewReader(make([]byte, 64))})
	req := &wire.Message{V: wire.Version, ID: "q1", TS: now.UnixMilli(), Op: wire.OpQuery, From: wire.Sender{Agent: "client", Org: "acme"},
		To: wire.Ref{Agent: "echo", Org: "globex"}, Cls: wire.Pub, Payload: &wire.QueryPayload{}}
	r := req.Reply(wire.OpRespond, &wire.RespondPayload{Status: "success", Data: wire.ObjectValue()})
	r.ID = "r1"
	if err := rs.Sign(&pipeline.Inbound{M: req, FromPeer: true}, r); err != nil {
		t.Fatal(err)
	}
	if rs.Awaited() != 1 || r.Ext.Get(ExtReceipt).IsAbsent() {
		t.Fatalf("after Sign: %d awaited, ext %v", rs.Awaited(), r.Ext)
	}
	rc, err := receipt.Parse(wire.AppendCanonical(nil, r.Ext.Get(ExtReceipt)))
	if err != nil {
		t.Fatal(err)
	}
	if err := rc.VerifyCallee(keyOf); err != nil {
		t.Fatalf("the callee's signature: %v", err)
	}
	if err := rc.Countersign(acme.Signing); err != nil {
		t.Fatal(err)
	}
	v, err := receiptValue(rc)
	if err != nil {
		t.Fatal(err)
	}
	back := func(re string) *wire.Message {
		return &wire.Message{Op: wire.OpRespond, Re: re, From: wire.Sender{Agent: pipeline.GatewayAgent, Org: "acme"},
			Ext: wire.ObjectValue(wire.Member{Key: ExtReceipt, Value: v})}
	}
	if rs.Take(back("other")) {
		t.Fatal("a countersignature for a reply not awaited was taken")
	}
	if !rs.Take(back("r1")) || rs.Awaited() != 0 {
		t.Fatalf("the countersignature was not taken; %d awaited", rs.Awaited())
	}
	var kept []audit.Event
	for _, ev := range events(t, a, path) {
		if ev.Type == audit.TypeReceipt {
			kept = append(kept, ev)
		}
	}
	if len(kept) != 1 {
		t.Fatalf("%d receipts in the ledger, want 1", len(kept))
	}
	got, err := receipt.Parse(kept[0].Data)
	if err != nil {
		t.Fatal(err)
	}
	if err := got.Verify(keyOf); err != nil {
		t.Fatalf("the receipt kept does not verify with both keys: %v", err)
	}
	var none *Receipts
	if none.Take(back("r1")) || none.Sign(&pipeline.Inbound{M: req, FromPeer: true}, r) != nil {
		t.Fatal("receipts off took or signed")
	}
}

// TestCountersignedInBatch: countersignatures that come back many in one
// message are each checked over the receipt the callee signed and kept;
// one that does not hold, or names a reply not awaited, is not, and the
// rest are kept all the same.
func TestCountersignedInBatch(t *testing.T) {
	acme := agent(t, 1, wire.Ref{Agent: "gateway", Org: "acme"})
	globex := agent(t, 2, wire.Ref{Agent: "gateway", Org: "globex"})
	keyOf := func(org string) (keys.Ed25519Public, bool) {
		switch org {
		case "acme":
			return acme.Signing.Public(), true
		case "globex":
			return globex.Signing.Public(), true
		}
		return keys.Ed25519Public{}, false
	}
	a, path := openTrail(t, false)
	now := time.UnixMilli(1_700_000_000_000)
	rs := NewReceipts(context.Background(), ReceiptsConfig{Self: globex, KeyOf: keyOf, Trail: a, Go: func(f func()) { f() },
		Base: context.Background(), Log: quiet, Now: func() time.Time { return now }, Rand: bytes.NewReader(make([]byte, 64))})
	var items []wire.Value
	for i, id := range []string{"r1", "r2", "r3"} {
		req := &wire.Message{V: wire.Version, ID: "q" + id, TS: now.UnixMilli(), Op: wire.OpQuery, From: wire.Sender{Agent: "client", Org: "acme"},
			To: wire.Ref{Agent: "echo", Org: "globex"}, Cls: wire.Pub, Payload: &wire.QueryPayload{}}
		r := req.Reply(wire.OpRespond, &wire.RespondPayload{Status: "success", Data: wire.ObjectValue()})
		r.ID = id
		if err := rs.Sign(&pipeline.Inbound{M: req, FromPeer: true}, r); err != nil {
			t.Fatal(err)
		}
		rc, err := receipt.Parse(wire.AppendCanonical(nil, r.Ext.Get(ExtReceipt)))
		if err != nil {
			t.Fatal(err)
		}
		signer := acme.Signing
		if i == 1 {
			signer = globex.Signing // not the caller's key
		}
		if err := rc.Countersign(signer); err != nil {
			t.Fatal(err)
		}
		sig, _ := rc.CallerSig.AppendText(nil)
		items = append(items, wire.ObjectValue(wire.Member{Key: "caller_sig", Value: wire.StringValue(string(sig))},
			wire.Member{Key: "reply_id", Value: wire.StringValue(id)}))
	}
	items = append(items, wire.ObjectValue(wire.Member{Key: "caller_sig", Value: items[0].Get("caller_sig")},
		wire.Member{Key: "reply_id", Value: wire.StringValue("unknown")}))
	m := &wire.Message{Op: wire.OpRespond, Re: "r1", From: wire.Sender{Agent: pipeline.GatewayAgent, Org: "acme"},
		Ext: wire.ObjectValue(wire.Member{Key: ExtCountersigned, Value: wire.ObjectValue(wire.Member{Key: "receipts", Value: wire.ArrayValue(items...)})})}
	if !rs.Take(m) {
		t.Fatal("the batch was not taken")
	}
	if rs.Awaited() != 1 {
		t.Fatalf("%d receipts awaited, want 1 (the one countersigned with the wrong key)", rs.Awaited())
	}
	var kept []string
	for _, ev := range events(t, a, path) {
		if ev.Type != audit.TypeReceipt {
			continue
		}
		got, err := receipt.Parse(ev.Data)
		if err != nil {
			t.Fatal(err)
		}
		if err := got.Verify(keyOf); err != nil {
			t.Fatalf("a receipt kept does not verify with both keys: %v", err)
		}
		kept = append(kept, got.ReplyID)
	}
	if len(kept) != 2 || kept[0] != "r1" || kept[1] != "r3" {
		t.Fatalf("kept %v, want r1 and r3", kept)
	}
}

// TestSpansCountPeerCalls: a call to a peer is counted with its outcome,
// "ok" or the refusal's code, with tracing off.
func TestSpansCountPeerCalls(t *testing.T) {
	var got []string
	s := NewSpans(SpansConfig{Done: func(org, op, outcome string, took time.Duration) { got = append(got, org+" "+op+" "+outcome) }})
	m := &wire.Message{Op: wire.OpQuery, To: wire.Ref{Agent: "echo", Org: "globex"}}
	_, done := s.PeerCall(context.Background(), m)
	done(nil)
	_, done = s.PeerCall(context.Background(), m)
	done(&wire.Error{Code: wire.ErrRateLimit})
	want := []string{"globex query ok", "globex query " + string(wire.ErrRateLimit)}
	if len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Fatalf("counted %q, want %q", got, want)
	}
}
