package trail

import (
	"bytes"
	"context"
	"crypto/rand"
	"sync"
	"testing"
	"time"

	"github.com/moltgate/moltgate/audit"
	"github.com/moltgate/moltgate/gateway/pipeline"
	"github.com/moltgate/moltgate/handshake"
	"github.com/moltgate/moltgate/identity"
	"github.com/moltgate/moltgate/keys"
	"github.com/moltgate/moltgate/merkle"
	"github.com/moltgate/moltgate/receipt"
	"github.com/moltgate/moltgate/wire"
)

// link is a peer's gateway in the same process: what is sent to it is
// taken by its Receipts at once.
type link struct {
	org  string
	to   **Receipts
	sent chan *wire.Message // every message sent, if not nil
}

func (l link) Org() string { return l.org }

func (l link) Send(_ context.Context, _ *handshake.Session, m *wire.Message) error {
	if l.sent != nil {
		l.sent <- m
	}
	if !(*l.to).Take(m) {
		return wire.Errorf(wire.ErrInvalidParam, "ext", "not taken")
	}
	return nil
}

type side struct {
	self *identity.Agent
	r    *Receipts
	a    *Trail
	path string
}

// exchange is acme (the caller) and globex (the callee), each with its
// ledger, linked to each other.
func exchange(t *testing.T, wg *sync.WaitGroup) (acme, globex *side, keyOf receipt.KeyOf) {
	t.Helper()
	return exchangeWith(t, wg, context.Background(), 5*time.Millisecond, 64)
}

// exchangeWith is exchange with the batches' window and size, and the
// context whose end sends what is waiting.
func exchangeWith(t *testing.T, wg *sync.WaitGroup, base context.Context, window time.Duration, batch int) (acme, globex *side, keyOf receipt.KeyOf) {
	t.Helper()
	acme = &side{self: agent(t, 1, wire.Ref{Agent: "gateway", Org: "acme"})}
	globex = &side{self: agent(t, 2, wire.Ref{Agent: "gateway", Org: "globex"})}
	keyOf = func(org string) (keys.Ed25519Public, bool) {
		switch org {
		case "acme":
			return acme.self.Signing.Public(), true
		case "globex":
			return globex.self.Signing.Public(), true
		}
		return keys.Ed25519Public{}, false
	}
	for _, sd := range []struct {
		me, other *side
		org       string
	}{{acme, globex, "globex"}, {globex, acme, "acme"}} {
		sd.me.a, sd.me.path = openTrail(t, false)
		other := link{org: sd.org, to: &sd.other.r}
		sd.me.r = NewReceipts(context.Background(), ReceiptsConfig{Self: sd.me.self, KeyOf: keyOf, Trail: sd.me.a,
			Peer: func(org string) Peer {
				if org == other.org {
					return other
				}
				return nil
			},
			Window: window, Batch: batch,
			Go:   func(f func()) { wg.Add(1); go func() { defer wg.Done(); f() }() },
			Base: base, Log: quiet, Now: time.Now, Rand: rand.Reader})
	}
	return acme, globex, keyOf
}

func call(id string) (req, r *wire.Message) {
	req = &wire.Message{V: wire.Version, ID: "q-" + id, TS: time.Now().UnixMilli(), Op: wire.OpQuery, From: wire.Sender{Agent: "client", Org: "acme"},
		To: wire.Ref{Agent: "echo", Org: "globex"}, Cls: wire.Pub, Payload: &wire.QueryPayload{}}
	r = req.Reply(wire.OpRespond, &wire.RespondPayload{Status: "success", Data: wire.ObjectValue()})
	r.ID = id
	return req, r
}

func waitFor(t *testing.T, what string, ok func() bool) {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); !ok(); time.Sleep(2 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%s: still not so", what)
		}
	}
}

func receiptsIn(t *testing.T, sd *side) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	for _, ev := range events(t, sd.a, sd.path) {
		if ev.Type == audit.TypeReceipt {
			r, err := receipt.Parse(ev.Data)
			if err != nil {
				t.Fatal(err)
			}
			out[r.ReplyID] = ev.Data
		}
	}
	return out
}

// TestReceiptExchange: the callee puts each receipt's body in its reply and
// signs its receipts in a batch; the caller checks each body against what
// it sent and received, each proof against the callee's signed root, and
// countersigns in a batch of its own, whether the callee's batch came
// after the reply or before it; both ledgers then keep the same doubly
// signed receipts, which verify alone with the two org keys and chain by
// prev.
func TestReceiptExchange(t *testing.T) {
	var wg sync.WaitGroup
	acme, globex, keyOf := exchange(t, &wg)
	var late [2]*wire.Message
	for _, id := range []string{"r1", "r2", "r3"} {
		req, r := call(id)
		if err := globex.r.Sign(&pipeline.Inbound{M: req, FromPeer: true}, r); err != nil {
			t.Fatal(err)
		}
		if r.Ext.Get(ExtReceipt).IsAbsent() {
			t.Fatal("no receipt in the reply")
		}
		if id == "r3" {
			late = [2]*wire.Message{req, r}
			continue
		}
		acme.r.countersign(link{org: "globex", to: &globex.r}, req, r, nil)
	}
	// r3's reply comes after globex's batch.
	waitFor(t, "globex's batch taken", func() bool { return acme.r.early.Len() == 1 })
	acme.r.countersign(link{org: "globex", to: &globex.r}, late[0], late[1], nil)
	waitFor(t, "every receipt countersigned", func() bool { return globex.r.Awaited() == 0 })
	wg.Wait()

	ar, gr := receiptsIn(t, acme), receiptsIn(t, globex)
	if len(ar) != 3 || len(gr) != 3 {
		t.Fatalf("acme keeps %d receipts, globex %d; want 3 each", len(ar), len(gr))
	}
	prevs := map[string]bool{}
	hashes := map[string]bool{}
	for id, b := range ar {
		if !bytes.Equal(b, gr[id]) {
			t.Fatalf("%s differs:\nacme   %s\nglobex %s", id, b, gr[id])
		}
		r, _ := receipt.Parse(b)
		if err := r.Verify(keyOf); err != nil {
			t.Fatalf("%s: %v", id, err)
		}
		h, _ := r.Hash()
		hashes[h], prevs[r.Prev] = true, true
	}
	if !prevs[""] || len(prevs) != 3 {
		t.Fatalf("prevs %v", prevs)
	}
	for p := range prevs {
		if p != "" && !hashes[p] {
			t.Fatalf("prev %s is no receipt's hash", p)
		}
	}
}

// A batch whose root does not hold, or is not of the organisation that
// sends it, is refused whole; a receipt whose path does not lead to the
// root is refused alone; a body that does not name the exchange is not
// held; and receipts off take and sign nothing.
func TestReceiptsRefused(t *testing.T) {
	var wg sync.WaitGroup
	acme, globex, _ := exchange(t, &wg)
	defer wg.Wait()
	req, r := call("r1")
	if err := globex.r.Sign(&pipeline.Inbound{M: req, FromPeer: true}, r); err != nil {
		t.Fatal(err)
	}
	rc, err := receipt.Parse(wire.AppendCanonical(nil, r.Ext.Get(ExtReceipt)))
	if err != nil {
		t.Fatal(err)
	}
	leaf, _ := rc.Leaf()
	batchOf := func(key keys.Ed25519Private, org string, leaves ...merkle.Hash) *wire.Message {
		ps, err := receipt.SignBatch(key, org, receipt.RoleCallee, time.Now().UnixMilli(), leaves)
		if err != nil {
			t.Fatal(err)
		}
		root, _ := rootValue(&ps[0].Root)
		path := []wire.Value{}
		for _, h := range ps[0].Path {
			path = append(path, wire.StringValue(h.String()))
		}
		item := wire.ObjectValue(wire.Member{Key: "index", Value: wire.IntValue(0)}, wire.Member{Key: "path", Value: wire.ArrayValue(path...)},
			wire.Member{Key: "reply_id", Value: wire.StringValue("r1")})
		items := []wire.Value{item}
		for range leaves[1:] {
			items = append(items, item)
		}
		return &wire.Message{Op: wire.OpRespond, Re: "r1", From: wire.Sender{Agent: pipeline.GatewayAgent, Org: "globex"},
			Ext: wire.ObjectValue(wire.Member{Key: ExtReceipts, Value: wire.ObjectValue(
				wire.Member{Key: "receipts", Value: wire.ArrayValue(items...)}, wire.Member{Key: "root", Value: root})})}
	}
	// Signed by acme's key in globex's name; in acme's name from globex;
	// and a path that does not lead from r1's leaf.
	for _, m := range []*wire.Message{
		batchOf(acme.self.Signing, "globex", leaf),
		batchOf(globex.self.Signing, "acme", leaf),
		batchOf(globex.self.Signing, "globex", merkle.LeafHash([]byte("other")), leaf),
	} {
		if !acme.r.Take(m) {
			t.Fatal("a batch was not taken")
		}
	}
	acme.r.countersign(link{org: "globex", to: &globex.r}, req, r, nil)
	acme.r.counters.mu.Lock()
	countersigning := len(acme.r.counters.open)
	acme.r.counters.mu.Unlock()
	if countersigning != 0 || acme.r.bodies.Len() != 0 {
		t.Fatal("a receipt whose proof does not hold was countersigned, or is still held")
	}
	// A body altered is not held.
	req2, r2 := call("r2")
	if err := globex.r.Sign(&pipeline.Inbound{M: req2, FromPeer: true}, r2); err != nil {
		t.Fatal(err)
	}
	r2.Ext = r2.Ext.With(ExtReceipt, r2.Ext.Get(ExtReceipt).With("outcome", wire.StringValue("error")).With("code", wire.StringValue("E_TIMEOUT")))
	acme.r.countersign(link{org: "globex", to: &globex.r}, req2, r2, nil)
	if _, ok := acme.r.bodies.Peek("r2"); ok {
		t.Fatal("an altered body was held")
	}
	var none *Receipts
	if none.Take(batchOf(globex.self.Signing, "globex", leaf)) || none.Sign(&pipeline.Inbound{M: req, FromPeer: true}, r) != nil {
		t.Fatal("receipts off took or signed")
	}
}
