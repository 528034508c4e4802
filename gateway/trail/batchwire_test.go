package trail

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/moltgate/moltgate/identity"
	"github.com/moltgate/moltgate/merkle"
	"github.com/moltgate/moltgate/receipt"
	"github.com/moltgate/moltgate/wire"
)

// heldChain is n receipts as a callee holds them once sealed, chained by
// prev from first (the organisation's first receipt if first), except
// that the receipt at gap names a leaf outside the batch.
func heldChain(n, gap int, first bool) []*held {
	out := make([]*held, n)
	prev := merkle.LeafHash([]byte("before"))
	for i := range out {
		h := &held{rc: &receipt.Receipt{ReplyID: uuidOf(string(rune('a' + i)))}, leaf: merkle.LeafHash([]byte{byte(i)}), prev: prev, first: first && i == 0}
		if i == gap {
			h.prev = merkle.LeafHash([]byte("another organisation's"))
		}
		out[i], prev = h, h.leaf
	}
	return out
}

// A batch read back gives each receipt's reply, leaf and prev as sent
// (prev written only where it is not the leaf before it) and its proof in
// the signed tree.
func TestBatchWireRoundTrip(t *testing.T) {
	key := agent(t, 2, wire.Ref{Agent: "gateway", Org: "globex"}).Signing
	for _, c := range []struct {
		n, gap      int
		first       bool
		role        string
		prevMembers int
	}{{1, -1, true, receipt.RoleCallee, 1}, {5, -1, false, receipt.RoleCallee, 1}, {7, 4, false, receipt.RoleCallee, 2},
		{3, -1, false, receipt.RoleCaller, 0}} {
		items := heldChain(c.n, c.gap, c.first)
		leaves := make([]merkle.Hash, len(items))
		for i, h := range items {
			leaves[i] = h.leaf
		}
		ps, err := receipt.SignBatch(key, "globex", c.role, time.Now().UnixMilli(), leaves)
		if err != nil {
			t.Fatal(err)
		}
		v, err := batchValue(&ps[0].Root, items, c.role)
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Count(v.String(), `"prev":`); got != c.prevMembers {
			t.Fatalf("%+v: %d prev members in %s; want %d", c, got, v, c.prevMembers)
		}
		b := wire.AppendCanonical(nil, v)
		parsed, err := wire.Parse(b, 0)
		if err != nil {
			t.Fatal(err)
		}
		rt, got, err := parseBatch(parsed)
		if err != nil {
			t.Fatalf("%+v: %v", c, err)
		}
		if rt.Sig != ps[0].Root.Sig || len(got) != c.n {
			t.Fatalf("%+v: root %+v, %d receipts", c, rt, len(got))
		}
		for i, pl := range got {
			h := items[i]
			wantPrev := ""
			if c.role == receipt.RoleCallee && !h.first {
				wantPrev = h.prev.String()
			}
			if pl.replyID != h.rc.ReplyID || pl.leaf != h.leaf || pl.prev != wantPrev {
				t.Fatalf("%+v: receipt %d read back as %+v", c, i, pl)
			}
			if err := pl.proof.Includes(h.leaf); err != nil || pl.proof.Index != ps[i].Index || len(pl.proof.Path) != len(ps[i].Path) {
				t.Fatalf("%+v: receipt %d's proof %+v; want %+v (%v)", c, i, pl.proof, ps[i], err)
			}
		}
	}
}

// What is not a batch is refused, naming the member at fault.
func TestBatchWireRefused(t *testing.T) {
	key := agent(t, 2, wire.Ref{Agent: "gateway", Org: "globex"}).Signing
	items := heldChain(2, -1, false)
	ps, err := receipt.SignBatch(key, "globex", receipt.RoleCallee, time.Now().UnixMilli(), []merkle.Hash{items[0].leaf, items[1].leaf})
	if err != nil {
		t.Fatal(err)
	}
	good, err := batchValue(&ps[0].Root, items, receipt.RoleCallee)
	if err != nil {
		t.Fatal(err)
	}
	list := good.Get("receipts")
	with := func(i int, item wire.Value) wire.Value {
		l := []wire.Value{list.Index(0), list.Index(1)}
		l[i] = item
		return good.With("receipts", wire.ArrayValue(l...))
	}
	for _, c := range []struct {
		v     wire.Value
		field string
	}{
		{good.With("receipts", wire.StringValue("x")), "moltgate.receipts.receipts"},
		{good.With("receipts", wire.ArrayValue(list.Index(0))), "moltgate.receipts.root.size"},
		{with(0, list.Index(0).Without("prev")), "moltgate.receipts.receipts[0].prev"},
		{with(1, list.Index(1).With("leaf", wire.StringValue("sha256:00"))), "moltgate.receipts.receipts[1].leaf"},
		{with(1, list.Index(1).With("prev", wire.StringValue("AAAA"))), "moltgate.receipts.receipts[1].prev"},
		{with(1, list.Index(1).With("index", wire.IntValue(1))), "moltgate.receipts.receipts[1].index"},
		{with(1, list.Index(1).Without("reply_id")), "moltgate.receipts.receipts[1]"},
		{with(1, list.Index(1).With("leaf", list.Index(0).Get("leaf"))), "moltgate.receipts.root.hash"},
	} {
		_, _, err := parseBatch(c.v)
		if err == nil || !strings.Contains(err.Error(), c.field+":") {
			t.Errorf("%s: %v; want an error naming %s", c.v, err, c.field)
		}
	}
}

// FuzzBatchWire: whatever a peer sends as a batch is read or refused,
// never a panic, and a batch read back encodes to what was read.
func FuzzBatchWire(f *testing.F) {
	a, err := identity.Generate(bytes.NewReader(bytes.Repeat([]byte{2}, 256)), wire.Ref{Agent: "gateway", Org: "globex"})
	if err != nil {
		f.Fatal(err)
	}
	key := a.Signing
	items := heldChain(3, 1, true)
	ps, _ := receipt.SignBatch(key, "globex", receipt.RoleCallee, 1795738154995, []merkle.Hash{items[0].leaf, items[1].leaf, items[2].leaf})
	v, _ := batchValue(&ps[0].Root, items, receipt.RoleCallee)
	f.Add(wire.AppendCanonical(nil, v))
	f.Add([]byte(`{"receipts":[],"root":{}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		v, err := wire.Parse(b, 0)
		if err != nil {
			return
		}
		rt, got, err := parseBatch(v)
		if err != nil {
			return
		}
		back := make([]*held, len(got))
		for i, pl := range got {
			h := &held{rc: &receipt.Receipt{ReplyID: pl.replyID}, leaf: pl.leaf, first: pl.prev == ""}
			if pl.prev != "" {
				if err := h.prev.UnmarshalText([]byte(pl.prev)); err != nil {
					t.Fatal(err)
				}
			}
			back[i] = h
		}
		if rt.Role != receipt.RoleCallee && rt.Role != receipt.RoleCaller {
			return
		}
		again, err := batchValue(rt, back, rt.Role)
		if err != nil {
			return
		}
		rt2, got2, err := parseBatch(again)
		if err != nil || *rt2 != *rt || len(got2) != len(got) {
			t.Fatalf("read back %s: %v", again, err)
		}
		for i := range got {
			if got2[i].replyID != got[i].replyID || got2[i].leaf != got[i].leaf || got2[i].prev != got[i].prev {
				t.Fatalf("receipt %d: %+v, then %+v", i, got[i], got2[i])
			}
		}
	})
}
