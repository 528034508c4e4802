package trail

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/moltgate/moltgate/audit"
	"github.com/moltgate/moltgate/classify"
	"github.com/moltgate/moltgate/receipt"
	"github.com/moltgate/moltgate/wire"
)

// callAndReply is a call from client@acme to echo@globex and its reply.
func callAndReply(i int) (req, rep *wire.Message) {
	req = &wire.Message{V: wire.Version, ID: fmt.Sprintf("q-%d", i), Op: wire.OpTool, From: wire.Sender{Agent: "client", Org: "acme"},
		To: wire.Ref{Agent: "echo", Org: "globex"}, Cls: wire.Int}
	rep = &wire.Message{V: wire.Version, ID: fmt.Sprintf("r-%d", i), Re: req.ID, Op: wire.OpRespond, From: wire.Sender{Agent: "echo", Org: "globex"},
		To: wire.Ref{Agent: "client", Org: "acme"}, Cls: wire.Int}
	return req, rep
}

// heldTrail is a trail recording every decision that holds those of
// exchanges with globex for hold.
func heldTrail(t *testing.T, hold time.Duration) (*Trail, string) {
	t.Helper()
	a, path := openTrail(t, true)
	a.holdExchanges(hold, func(org string) bool { return org == "globex" })
	return a, path
}

// TestExchangeKeptWhole: the decisions of an exchange whose receipt comes
// are kept with it, one event, the request's decision first whatever the
// order they were made in; a receipt whose decisions were not held is kept
// alone.
func TestExchangeKeptWhole(t *testing.T) {
	a, path := heldTrail(t, time.Minute)
	s := &Receipts{cfg: ReceiptsConfig{Trail: a, Log: quiet}}
	ctx := context.Background()
	for i := range 3 {
		req, rep := callAndReply(i)
		if i == 1 {
			// Made in the other order, as a callee does.
			a.Reply(ctx, rep, classify.Decision{Allow: true})
			a.Outbound(ctx, req, classify.Decision{Allow: true})
		} else if i == 0 {
			a.Outbound(ctx, req, classify.Decision{Allow: true})
			a.Reply(ctx, rep, classify.Decision{Allow: true})
		}
		s.keep(&receipt.Receipt{Type: receipt.Type, Caller: "client@acme", Callee: "echo@globex", RequestID: req.ID, ReplyID: rep.ID, Outcome: receipt.OutcomeSuccess})
	}
	evs := events(t, a, path)
	if len(evs) != 3 {
		t.Fatalf("%d events, want 3", len(evs))
	}
	for i, ev := range evs[:2] {
		var x audit.Exchange
		if ev.Type != audit.TypeExchange || json.Unmarshal(ev.Data, &x) != nil {
			t.Fatalf("event %d: %s %s", i, ev.Type, ev.Data)
		}
		if x.Peer != "globex" || len(x.Decisions) != 2 || x.Decisions[0].MessageID != fmt.Sprint("q-", i) || x.Decisions[1].MessageID != fmt.Sprint("r-", i) {
			t.Fatalf("exchange %d: %s", i, ev.Data)
		}
		var r struct {
			RequestID string `json:"request_id"`
		}
		if err := json.Unmarshal(x.Receipt, &r); err != nil || r.RequestID != fmt.Sprint("q-", i) {
			t.Fatalf("exchange %d's receipt: %v %s", i, err, x.Receipt)
		}
	}
	if evs[2].Type != audit.TypeReceipt {
		t.Fatalf("a receipt without decisions held: %s", evs[2].Type)
	}
}

// TestExchangeWithoutReceipt: decisions whose receipt does not come within
// the hold are written alone, as are those of exchanges with a peer that
// keeps no receipts, what is blocked, personal data transmitted and what
// is not part of an exchange; closing the trail writes what is still held.
func TestExchangeWithoutReceipt(t *testing.T) {
	a, path := heldTrail(t, 20*time.Millisecond)
	ctx := context.Background()
	req, rep := callAndReply(0)
	a.Outbound(ctx, req, classify.Decision{Allow: true})
	a.Reply(ctx, rep, classify.Decision{Allow: true})
	// The hold passes with no receipt.
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		a.held.mu.Lock()
		n := len(a.held.byReq)
		a.held.mu.Unlock()
		if n == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the decisions were never written alone")
		}
	}
	// Not held: another peer's, a ping, a stream's chunk, a block.
	other, _ := callAndReply(1)
	other.To.Org = "initech"
	a.Outbound(ctx, other, classify.Decision{Allow: true})
	ping := &wire.Message{V: wire.Version, ID: "p-1", Op: wire.OpPing, From: wire.Sender{Agent: "client", Org: "acme"}, To: wire.Ref{Agent: "echo", Org: "globex"}}
	a.Outbound(ctx, ping, classify.Decision{Allow: true})
	blockedReq, _ := callAndReply(2)
	a.Outbound(ctx, blockedReq, classify.Decision{Err: &wire.Error{Code: wire.ErrClassification}})
	// Held, then written at close.
	last, _ := callAndReply(3)
	a.held.hold = time.Hour
	a.Outbound(ctx, last, classify.Decision{Allow: true})

	got := map[string]string{}
	for _, ev := range events(t, a, path) {
		var d audit.Decision
		if err := json.Unmarshal(ev.Data, &d); err != nil {
			t.Fatal(err)
		}
		got[d.MessageID] = ev.Type
	}
	want := map[string]string{"q-0": audit.TypeAllowed, "r-0": audit.TypeAllowed, "q-1": audit.TypeAllowed,
		"p-1": audit.TypeAllowed, "q-2": audit.TypeBlocked, "q-3": audit.TypeAllowed}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("recorded %v\nwant     %v", got, want)
	}
	// A closed trail holds nothing more.
	if a.held.put(last, audit.Decision{Peer: "globex"}, "") {
		t.Fatal("a closed trail held a decision")
	}
}

// TestExchangesBounded: past exchangesHeld exchanges waiting, the oldest
// are written alone at once.
func TestExchangesBounded(t *testing.T) {
	var alone []string
	x := newExchanges(time.Hour, time.Now, func(string) bool { return true }, func(e *heldExchange) { alone = append(alone, e.req) })
	for i := range exchangesHeld + 3 {
		req, _ := callAndReply(i)
		if !x.put(req, audit.Decision{Peer: "globex", MessageID: req.ID}, "") {
			t.Fatalf("exchange %d not held", i)
		}
	}
	// A third decision of one exchange is not held.
	req, _ := callAndReply(exchangesHeld)
	if x.put(req, audit.Decision{Peer: "globex"}, "") && x.put(req, audit.Decision{Peer: "globex"}, "") {
		t.Fatal("three decisions held for one exchange")
	}
	if fmt.Sprint(alone) != "[q-0 q-1 q-2]" {
		t.Fatalf("written alone: %v", alone)
	}
	x.close()
	if len(alone) != exchangesHeld+3 {
		t.Fatalf("%d written alone after close, want %d", len(alone), exchangesHeld+3)
	}
}
