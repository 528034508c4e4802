package trail

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/moltgate/moltgate/crypto"
	"github.com/moltgate/moltgate/gateway/pipeline"
	"github.com/moltgate/moltgate/receipt"
	"github.com/moltgate/moltgate/wire"
)

// The digest a sender keeps of the bytes it signed is the one the callee
// takes of the bytes it received, and the one the request encoded again
// gives: the caller names the request in a receipt without encoding it
// again, and a request sent without it is named the same.
func TestRequestDigestFromSignedBytes(t *testing.T) {
	codec := wire.NewCodec(wire.Limits{MaxMessage: 1 << 16})
	sender := agent(t, 1, wire.Ref{Agent: "client", Org: "acme"})
	req, _ := call("r1")
	req.ID = pipeline.NewMessageID(rand.Reader)
	req.Payload = &wire.QueryPayload{Domain: "weather", Intent: "alerts"}
	req.From = sender.Sender()
	req.Ext = wire.ObjectValue(wire.Member{Key: "acme.note", Value: wire.ObjectValue(wire.Member{Key: "text", Value: wire.StringValue("é \u2028 \"quoted\" <&>")})})
	req.SignedDigest = new([32]byte)
	b, err := crypto.Sign(codec, req, sender.Signing)
	if err != nil {
		t.Fatal(err)
	}
	kept := digestString(req.SignedDigest)
	got, err := codec.Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	if !got.Canonical() {
		t.Fatal("a signed message does not decode as canonical")
	}
	received, err := receivedDigest(got)
	if err != nil {
		t.Fatal(err)
	}
	reencoded, err := requestDigest(req)
	if err != nil {
		t.Fatal(err)
	}
	if kept != received || kept != reencoded {
		t.Fatalf("digests differ: kept %s, received %s, encoded again %s", kept, received, reencoded)
	}
	if sent, err := sentDigest(req); err != nil || sent != received {
		t.Fatalf("the digest kept is %s; want %s (%v)", sent, received, err)
	}
	req.SignedDigest = nil
	if sent, err := sentDigest(req); err != nil || sent != received {
		t.Fatalf("a request without a digest kept has %s; want %s (%v)", sent, received, err)
	}
}

// A signed batch waiting for a peer rides on the next reply or call to
// it, which the other side takes it from, and goes alone only when no
// message takes it within the window; the exchange then completes with no
// message of its own.
func TestBatchesRideOnMessages(t *testing.T) {
	var wg sync.WaitGroup
	// Each receipt is signed at once, and nothing goes alone until base
	// ends.
	base, cancel := context.WithCancel(context.Background())
	acme, globex, _ := exchangeWith(t, &wg, base, time.Hour, 1)
	globexLink := link{org: "globex", to: &globex.r}
	// Calls one after the other, each once the batches of the one before
	// are signed and waiting, as on a busy link.
	waiting := func(r *Receipts, org string) func() bool {
		return func() bool {
			r.out.mu.Lock()
			defer r.out.mu.Unlock()
			return len(r.out.waiting[org]) > 0
		}
	}
	req1, r1 := call("r1")
	acme.r.countersign(globexLink, req1, answer(t, globex, req1, r1), nil)
	waitFor(t, "globex's batch waiting", waiting(globex.r, "acme"))
	req2, r2 := call("r2")
	rr2 := answer(t, globex, req2, r2)
	if rr2.Ext.Get(ExtReceipts).IsAbsent() {
		t.Fatal("globex's batch did not ride on its next reply")
	}
	acme.r.countersign(globexLink, req2, rr2, nil)
	waitFor(t, "acme's countersignature waiting", waiting(acme.r, "globex"))
	req3, _ := call("r3")
	end := acme.r.Outgoing(req3)
	if req3.Ext.Get(ExtReceipts).IsAbsent() || req3.SignedDigest == nil {
		t.Fatal("acme's batch did not ride on its next call, or its digest is not kept")
	}
	end(nil)
	Boundary{Trail: globex.a, Receipts: globex.r}.Inbound(context.Background(), &pipeline.Inbound{M: req3, FromPeer: true}, pipeline.Answer{})
	if _, ok := globex.r.awaited.Peek(uuidOf("r1")); ok {
		t.Fatal("the countersignature that came with a call was not taken")
	}
	if globex.r.Awaited() != 1 {
		t.Fatalf("globex awaits %d countersignatures; want 1 (r2's)", globex.r.Awaited())
	}
	// What is left goes alone.
	cancel()
	waitFor(t, "r2 countersigned", func() bool { return globex.r.Awaited() == 0 })
	wg.Wait()
}

// A reply that is not sealed has no receipt, and the batch that rode on it
// waits for the next message.
func TestReplyNotSealed(t *testing.T) {
	var wg sync.WaitGroup
	base, cancel := context.WithCancel(context.Background())
	defer wg.Wait()
	defer cancel()
	acme, globex, _ := exchangeWith(t, &wg, base, time.Hour, 1)
	req1, r1 := call("r1")
	acme.r.countersign(link{org: "globex", to: &globex.r}, req1, answer(t, globex, req1, r1), nil)
	waiting := 0
	waitFor(t, "globex's batch waiting", func() bool {
		globex.r.out.mu.Lock()
		defer globex.r.out.mu.Unlock()
		waiting = len(globex.r.out.waiting["acme"])
		return waiting > 0
	})
	req2, r2 := call("r2")
	if err := globex.r.Sign(&pipeline.Inbound{M: req2, FromPeer: true}, r2); err != nil {
		t.Fatal(err)
	}
	if r2.Ext.Get(ExtReceipts).IsAbsent() {
		t.Fatal("the batch did not ride on the reply")
	}
	globex.r.Sealed(r2, errors.New("sealing failed"))
	globex.r.out.mu.Lock()
	waiting = len(globex.r.out.waiting["acme"])
	globex.r.out.mu.Unlock()
	if waiting != 1 || globex.r.Awaited() != 1 || globex.r.unsealed.Len() != 0 {
		t.Fatalf("after a reply not sealed: %d batches wait, %d receipts are awaited, %d unsealed; want 1, 1 (r1's), 0", waiting, globex.r.Awaited(), globex.r.unsealed.Len())
	}
}

// A receipt of an error reply says so and names the error the reply
// carries, in both ledgers.
func TestReceiptOfAnError(t *testing.T) {
	var wg sync.WaitGroup
	acme, globex, keyOf := exchange(t, &wg)
	req, _ := call("e1")
	r := req.Reply(wire.OpError, (&wire.Error{Code: wire.ErrTimeout, Message: "the agent did not answer"}).Payload())
	r.ID, r.TS = uuidOf("e1"), req.TS
	acme.r.countersign(link{org: "globex", to: &globex.r}, req, answer(t, globex, req, r), nil)
	waitFor(t, "the error's receipt countersigned", func() bool { return globex.r.Awaited() == 0 })
	wg.Wait()
	for _, sd := range []*side{acme, globex} {
		b, ok := receiptsIn(t, sd)[uuidOf("e1")]
		if !ok {
			t.Fatal("no receipt of e1")
		}
		rc, err := receipt.Parse(b)
		if err != nil {
			t.Fatal(err)
		}
		if rc.Outcome != receipt.OutcomeError || rc.Code != string(wire.ErrTimeout) || rc.Verify(keyOf) != nil {
			t.Fatalf("receipt of an error: %s", b)
		}
	}
}

// A batch that covers replies still coming meets their bodies on other
// goroutines, in either order, at once: every body is paired with its
// proof, and none is left holding.
func TestBatchMeetsBodiesConcurrently(t *testing.T) {
	const n = 32
	for round := range 10 {
		var wg sync.WaitGroup
		base, cancel := context.WithCancel(context.Background())
		// globex signs its batch once all n receipts are made, and nothing
		// goes alone until base ends.
		acme, globex, _ := exchangeWith(t, &wg, base, time.Hour, n)
		var reqs, replies [n]*wire.Message
		for i := range n {
			req, r := call(fmt.Sprintf("c%d-%d", round, i))
			reqs[i], replies[i] = req, answer(t, globex, req, r)
		}
		var batch wire.Value
		waitFor(t, "globex's batch signed", func() bool {
			globex.r.out.mu.Lock()
			defer globex.r.out.mu.Unlock()
			if q := globex.r.out.waiting["acme"]; len(q) > 0 {
				batch = q[0].v
				return true
			}
			return false
		})
		var start, done sync.WaitGroup
		start.Add(1)
		globexLink := link{org: "globex", to: &globex.r}
		for i := range n {
			done.Go(func() {
				start.Wait()
				acme.r.countersign(globexLink, reqs[i], replies[i], nil)
			})
		}
		done.Go(func() {
			start.Wait()
			acme.r.take("globex", "batch", batch)
		})
		start.Done()
		done.Wait()
		if b, e := acme.r.bodies.Len(), acme.r.early.Len(); b != 0 || e != 0 {
			t.Fatalf("round %d: %d bodies wait for a proof and %d proofs for a body, both already here", round, b, e)
		}
		cancel()
		wg.Wait()
	}
}
