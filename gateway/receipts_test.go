package gateway

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/moltgate/moltgate/audit"
	"github.com/moltgate/moltgate/keys"
	"github.com/moltgate/moltgate/localbridge"
	"github.com/moltgate/moltgate/receipt"
)

// receiptsOf returns the receipts in a stopped gateway's ledger.
func receiptsOf(t *testing.T, d Dir) [][]byte {
	t.Helper()
	var out [][]byte
	for _, ev := range ledgerEvents(t, d) {
		b, err := audit.ReceiptOf(&ev)
		if err != nil {
			t.Fatal(err)
		}
		if b != nil {
			out = append(out, b)
		}
	}
	return out
}

// TestReceiptInBothLedgers: a call between two gateways leaves the same
// receipt, signed by globex and countersigned by acme, in both ledgers;
// it verifies with the two peer documents alone, and not once either
// signature is altered.
func TestReceiptInBothLedgers(t *testing.T) {
	t.Run("receipts", func(t *testing.T) { receiptInBothLedgers(t, "receipts = true") })
	// Recording every decision too, each exchange is one event on each
	// side: its two decisions and its receipt.
	t.Run("all", func(t *testing.T) {
		acme, globex := receiptInBothLedgers(t, "receipts = true", `decisions = "all"`)
		for _, side := range []struct {
			dir   Dir
			first string // the direction of the decision on the request
		}{{acme.dir, "outbound"}, {globex.dir, "inbound"}} {
			n := 0
			for _, ev := range ledgerEvents(t, side.dir) {
				switch ev.Type {
				case audit.TypeReceipt:
					t.Errorf("%s: a receipt kept apart from its exchange's decisions", side.dir)
				case audit.TypeAllowed:
					// What the gateways send each other (batches of
					// receipts alone) is no exchange of agents.
					if strings.Contains(string(ev.Data), `"from":"gateway@`) {
						continue
					}
					t.Errorf("%s: a decision kept apart from its exchange: %s", side.dir, ev.Data)
				case audit.TypeExchange:
					n++
					var x audit.Exchange
					if err := json.Unmarshal(ev.Data, &x); err != nil {
						t.Fatal(err)
					}
					r, err := receipt.Parse(x.Receipt)
					if err != nil {
						t.Fatal(err)
					}
					if len(x.Decisions) != 2 || x.Decisions[0].Direction != side.first || x.Decisions[0].MessageID != r.RequestID ||
						x.Decisions[1].MessageID != r.ReplyID || x.Decisions[1].Op != "respond" || x.Peer == "" || ev.Subject != r.RequestID {
						t.Errorf("%s: exchange %s", side.dir, ev.Data)
					}
				}
			}
			if n != 2 {
				t.Errorf("%s keeps %d exchanges, want 2", side.dir, n)
			}
		}
	})
}

func receiptInBothLedgers(t *testing.T, settings ...string) (acme, globex *testGateway) {
	acme, globex = auditedGateways(t, settings...)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	for i := range 2 {
		if _, err := acme.s.local.Query(ctx, localbridge.QueryRequest{From: "client", To: "echo@globex", Tool: "echo",
			Input: json.RawMessage(`{"text":"hello"}`)}, nil); err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
	}
	// The countersignatures go back in the background.
	for deadline := time.Now().Add(10 * time.Second); globex.s.receipts.Awaited() > 0; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d receipts not countersigned", globex.s.receipts.Awaited())
		}
	}
	for _, g := range []*testGateway{acme, globex} {
		if err := g.s.Shutdown(ctx); err != nil {
			t.Fatal(err)
		}
	}
	ar, gr := receiptsOf(t, acme.dir), receiptsOf(t, globex.dir)
	if len(ar) != 2 || len(gr) != 2 {
		t.Fatalf("acme keeps %d receipts, globex %d; want 2 each", len(ar), len(gr))
	}
	docs := map[string]keys.Ed25519Public{}
	for _, d := range []Dir{acme.dir, globex.dir} {
		b, err := ExportPeer(d, nil, time.Now())
		if err != nil {
			t.Fatal(err)
		}
		doc, err := ParsePeerDoc(b)
		if err != nil {
			t.Fatal(err)
		}
		docs[doc.Org] = doc.OrgKey
	}
	keyOf := func(org string) (keys.Ed25519Public, bool) { k, ok := docs[org]; return k, ok }
	// The ledgers are appended to as the receipts come, not in the order
	// of the calls: match them by request, and the chain by prev.
	byRequest := map[string][]byte{}
	for _, b := range gr {
		r, err := receipt.Parse(b)
		if err != nil {
			t.Fatal(err)
		}
		byRequest[r.RequestID] = b
	}
	hashes, prevs := map[string]bool{}, map[string]bool{}
	for i := range ar {
		r, err := receipt.Parse(ar[i])
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(ar[i], byRequest[r.RequestID]) {
			t.Fatalf("receipt %d differs:\nacme   %s\nglobex %s", i, ar[i], byRequest[r.RequestID])
		}
		if err := r.Verify(keyOf); err != nil {
			t.Fatalf("receipt %d: %v", i, err)
		}
		if r.Caller != "client@acme" || r.Callee != "echo@globex" || r.Outcome != receipt.OutcomeSuccess {
			t.Fatalf("receipt %d: %+v", i, r)
		}
		h, _ := r.Hash()
		hashes[h], prevs[r.Prev] = true, true
		for _, alter := range []func(*receipt.Receipt){
			func(r *receipt.Receipt) { p := *r.CalleeProof; p.Root.Sig[7] ^= 1; r.CalleeProof = &p },
			func(r *receipt.Receipt) { p := *r.CallerProof; p.Root.Sig[7] ^= 1; r.CallerProof = &p },
		} {
			c := *r
			alter(&c)
			if c.Verify(keyOf) == nil {
				t.Fatal("a receipt with an altered signature verifies")
			}
		}
	}
	// globex's first receipt has no prev, its second names the first.
	if !prevs[""] || len(prevs) != 2 {
		t.Fatalf("prevs %v", prevs)
	}
	for p := range prevs {
		if p != "" && !hashes[p] {
			t.Fatalf("prev %s is no receipt's hash", p)
		}
	}
	return acme, globex
}
