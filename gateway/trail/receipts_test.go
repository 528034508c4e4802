package trail

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/moltgate/moltgate/audit"
	"github.com/moltgate/moltgate/crypto"
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

// uuidOf is the message id the tests name name, a UUID v4 as the codec
// wants.
func uuidOf(name string) string {
	sum := sha256.Sum256([]byte(name))
	sum[6] = sum[6]&0x0f | 0x40
	sum[8] = sum[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", sum[0:4], sum[4:6], sum[6:8], sum[8:10], sum[10:16])
}

func call(id string) (req, r *wire.Message) {
	req = &wire.Message{V: wire.Version, ID: uuidOf("q-" + id), TS: time.Now().UnixMilli(), Op: wire.OpQuery, From: wire.Sender{Agent: "client", Org: "acme"},
		To: wire.Ref{Agent: "echo", Org: "globex"}, Cls: wire.Pub, Payload: &wire.QueryPayload{}}
	r = req.Reply(wire.OpRespond, &wire.RespondPayload{Status: "success", Data: wire.ObjectValue()})
	r.ID, r.TS = uuidOf(id), req.TS
	return req, r
}

// answer is globex answering req with r, as the gateway does: the
// receipt started (Sign), r signed by the echo agent, the receipt told
// (Sealed); it returns r as acme's gateway receives it.
func answer(t *testing.T, globex *side, req, r *wire.Message) *wire.Message {
	t.Helper()
	if err := globex.r.Sign(&pipeline.Inbound{M: req, FromPeer: true}, r); err != nil {
		t.Fatal(err)
	}
	echo := agent(t, 3, wire.Ref{Agent: "echo", Org: "globex"})
	r.From = echo.Sender()
	codec := wire.NewCodec(wire.Limits{MaxMessage: 1 << 20})
	b, err := crypto.Sign(codec, r, echo.Signing)
	globex.r.Sealed(r, err)
	if err != nil {
		t.Fatal(err)
	}
	got, err := codec.Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	return got
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

// TestReceiptExchange: the callee marks each reply with its receipt's
// time alone and signs its receipts in a batch; the caller rebuilds each
// body from what it sent and received, takes its prev and leaf from the
// callee's batch, checks the leaf against the body and the tree against
// the signed root, and countersigns in a batch of its own, whether the
// callee's batch came after the reply or before it; both ledgers then keep
// the same doubly signed receipts, which verify alone with the two org
// keys and chain by prev.
func TestReceiptExchange(t *testing.T) {
	var wg sync.WaitGroup
	acme, globex, keyOf := exchange(t, &wg)
	var late [2]*wire.Message
	for _, id := range []string{"r1", "r2", "r3"} {
		req, r := call(id)
		rr := answer(t, globex, req, r)
		if mark := rr.Ext.Get(ExtReceipt); mark.Len() != 1 || mark.Get("ts").IsAbsent() {
			t.Fatalf("the reply's mark is %s; want its time alone", mark)
		}
		if id == "r3" {
			late = [2]*wire.Message{req, rr}
			continue
		}
		acme.r.countersign(link{org: "globex", to: &globex.r}, req, rr, nil)
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

// batchOf is a batch signed with key in org's name over items, as ext
// ExtReceipts of a respond from org's gateway.
func batchOf(t *testing.T, key keys.Ed25519Private, org, role string, items ...*held) *wire.Message {
	t.Helper()
	leaves := make([]merkle.Hash, len(items))
	for i, h := range items {
		leaves[i] = h.leaf
	}
	ps, err := receipt.SignBatch(key, org, role, time.Now().UnixMilli(), leaves)
	if err != nil {
		t.Fatal(err)
	}
	v, err := batchValue(&ps[0].Root, items, role)
	if err != nil {
		t.Fatal(err)
	}
	return &wire.Message{Op: wire.OpRespond, Re: items[0].rc.ReplyID, From: wire.Sender{Agent: pipeline.GatewayAgent, Org: org},
		Ext: wire.ObjectValue(wire.Member{Key: ExtReceipts, Value: v})}
}

// A batch whose root does not verify, is not of the organisation that
// sends it, or is not the root of the leaves sent with it, is refused
// whole; a receipt whose leaf is not the body the caller rebuilt is
// refused alone; a reply whose mark is not a time is not held; and
// receipts off take and sign nothing.
func TestReceiptsRefused(t *testing.T) {
	var wg sync.WaitGroup
	// Nothing is signed or sent but what the test sends, until base ends.
	base, cancel := context.WithCancel(context.Background())
	defer wg.Wait()
	defer cancel()
	acme, globex, _ := exchangeWith(t, &wg, base, time.Hour, 1000)
	req, r := call("r1")
	rr := answer(t, globex, req, r)
	h1, ok := globex.r.awaited.Peek(uuidOf("r1"))
	if !ok {
		t.Fatal("globex awaits no countersignature of r1")
	}
	acme.r.countersign(link{org: "globex", to: &globex.r}, req, rr, nil)
	if _, ok := acme.r.bodies.Peek(uuidOf("r1")); !ok {
		t.Fatal("acme holds no body of r1")
	}
	other := &held{rc: &receipt.Receipt{ReplyID: uuidOf("r0")}, leaf: merkle.LeafHash([]byte("other")), first: true}
	notTheRoot := batchOf(t, globex.self.Signing, "globex", receipt.RoleCallee, other, h1)
	v := notTheRoot.Ext.Get(ExtReceipts)
	items := v.Get("receipts")
	forged := wire.ArrayValue(items.Index(0).With("leaf", leafText(&h1.leaf)), items.Index(1))
	notTheRoot.Ext = wire.ObjectValue(wire.Member{Key: ExtReceipts, Value: v.With("receipts", forged)})
	// Signed by acme's key in globex's name; in acme's name from globex;
	// and leaves that are not the signed root's tree.
	for _, m := range []*wire.Message{
		batchOf(t, acme.self.Signing, "globex", receipt.RoleCallee, h1),
		batchOf(t, globex.self.Signing, "acme", receipt.RoleCallee, h1),
		notTheRoot,
	} {
		if !acme.r.Take(m) {
			t.Fatal("a batch was not taken")
		}
		if _, ok := acme.r.bodies.Peek(uuidOf("r1")); !ok || acme.r.early.Len() != 0 {
			t.Fatal("a batch refused whole completed a receipt")
		}
	}
	// Signed by globex, over a body other than the exchange's (its time
	// altered).
	rc := *h1.rc
	rc.TS++
	leaf, err := rc.Leaf()
	if err != nil {
		t.Fatal(err)
	}
	altered := &held{rc: &rc, leaf: leaf, prev: h1.prev, first: h1.first}
	acme.r.Take(batchOf(t, globex.self.Signing, "globex", receipt.RoleCallee, altered))
	acme.r.counters.mu.Lock()
	countersigning := len(acme.r.counters.open)
	acme.r.counters.mu.Unlock()
	if countersigning != 0 || acme.r.bodies.Len() != 0 {
		t.Fatal("a receipt whose leaf is not the exchange's was countersigned, or is still held")
	}
	// A mark that is not a time is not held.
	req2, r2 := call("r2")
	rr2 := answer(t, globex, req2, r2)
	rr2.Ext = rr2.Ext.With(ExtReceipt, wire.ObjectValue(wire.Member{Key: "ts", Value: wire.StringValue("soon")}))
	acme.r.countersign(link{org: "globex", to: &globex.r}, req2, rr2, nil)
	if _, ok := acme.r.bodies.Peek(uuidOf("r2")); ok {
		t.Fatal("a reply whose mark is not a time was held")
	}
	var none *Receipts
	req3, r3 := call("r3")
	none.Sealed(r3, nil)
	if none.Take(batchOf(t, globex.self.Signing, "globex", receipt.RoleCallee, h1)) || none.Sign(&pipeline.Inbound{M: req3, FromPeer: true}, r3) != nil ||
		!r3.Ext.IsAbsent() || r3.SignedDigest != nil {
		t.Fatal("receipts off took or signed")
	}
}
