package trail

import (
	"context"

	"github.com/moltgate/moltgate/gateway/pipeline"
	"github.com/moltgate/moltgate/handshake"
	"github.com/moltgate/moltgate/merkle"
	"github.com/moltgate/moltgate/receipt"
	"github.com/moltgate/moltgate/wire"
)

// The signed batches of receipts: each side's, made and handed to the
// outbox for the other side's gateway, and the other side's, taken from
// whatever message brought them.

// signBatch signs b, this gateway's batch in role, and queues the root and
// each receipt's leaf for the peer's gateway. As caller, each receipt is
// then complete, and kept.
func (s *Receipts) signBatch(role string, b *batch) {
	leaves := make([]merkle.Hash, len(b.items))
	for i, h := range b.items {
		leaves[i] = h.leaf
	}
	self := s.cfg.Self.Current()
	proofs, err := receipt.SignBatch(self.Signing, self.Ref.Org, role, s.cfg.Now().UnixMilli(), leaves)
	if err != nil {
		s.cfg.Log.Error("receipts not signed", "peer", b.ps.Org(), "receipts", len(b.items), "err", err.Error())
		return
	}
	for i, h := range b.items {
		p := &proofs[i]
		s.mu.Lock()
		if role == receipt.RoleCallee {
			h.rc.CalleeProof = p
		} else {
			h.rc.CallerProof = p
		}
		s.mu.Unlock()
		if role == receipt.RoleCaller {
			s.keep(h.rc)
		}
	}
	v, err := batchValue(&proofs[0].Root, b.items, role)
	if err != nil {
		return
	}
	s.put(b.ps.Org(), &signed{b: b, v: v})
}

// Take is what a peer's gateway sends alone about the receipts of
// exchanges with this one: its signed batch (ExtReceipts) in a respond
// from its gateway agent. It reports whether m was that. A batch that
// rides on another message is taken with it (Countersign, Inbound).
func (s *Receipts) Take(m *wire.Message) bool {
	if s == nil || m.Op != wire.OpRespond || m.From.Agent != pipeline.GatewayAgent {
		return false
	}
	v := m.Ext.Get(ExtReceipts)
	if v.IsAbsent() {
		return false
	}
	s.take(m.From.Org, m.ID, v)
	return true
}

// take checks a batch that a message from org (id) brought, and takes
// each receipt's prev and proof.
func (s *Receipts) take(org, id string, v wire.Value) {
	rt, got, err := parseBatch(v)
	if err == nil && (rt.Org != org || (rt.Role != receipt.RoleCallee && rt.Role != receipt.RoleCaller)) {
		err = &receipt.Error{Field: ExtReceipts + ".root", Reason: "is not signed by the organisation that sent it, as callee or caller"}
	}
	if err == nil {
		k, ok := s.cfg.KeyOf(rt.Org)
		if !ok {
			err = &receipt.Error{Field: ExtReceipts + ".root.org", Reason: "is not a peer"}
		} else {
			err = s.roots.Verify(rt, k)
		}
	}
	if err != nil {
		s.cfg.Log.Warn("signed receipts refused", "peer", org, "message_id", id, "err", err.Error())
		return
	}
	bad := 0
	var last error
	for i := range got {
		pl := &got[i]
		var err error
		if rt.Role == receipt.RoleCallee {
			err = s.takeCallee(org, pl)
		} else {
			err = s.takeCaller(org, pl)
		}
		if err != nil {
			bad, last = bad+1, err
		}
	}
	if bad > 0 {
		s.cfg.Log.Warn("signed receipts refused", "peer", org, "message_id", id, "refused", bad, "err", last.Error())
	}
}

// takeCallee is the callee's prev and proof of a receipt this gateway
// holds as caller, or will when its reply comes.
func (s *Receipts) takeCallee(from string, pl *placed) error {
	s.match.Lock()
	h, ok := s.bodies.Peek(pl.replyID)
	if !ok {
		// The batch overtook the reply it covers.
		s.early.Add(pl.replyID, pl)
		s.match.Unlock()
		return nil
	}
	s.bodies.Remove(pl.replyID)
	s.match.Unlock()
	s.calleeProof(h, pl, from)
	return nil
}

// takeCaller is the caller's countersignature of a receipt this gateway
// made: the receipt is complete, and kept.
func (s *Receipts) takeCaller(from string, pl *placed) error {
	h, ok := s.awaited.Peek(pl.replyID)
	if !ok {
		return nil // not awaited (any more): nothing to complete
	}
	if orgOf(h.rc.Caller) != from {
		return &receipt.Error{Field: "caller", Reason: "is not of the organisation that countersigned"}
	}
	if pl.leaf != h.leaf {
		return &receipt.Error{Field: ExtReceipts + ".receipts.leaf", Reason: "the caller countersigned another body than the one this gateway signed for reply " + pl.replyID}
	}
	s.awaited.Remove(pl.replyID)
	s.mu.Lock()
	rc := *h.rc
	s.mu.Unlock()
	rc.CallerProof = pl.proof
	s.keep(&rc)
	return nil
}

// Replies takes the signed batches of receipts that come back alone among
// the replies to this gateway's own calls, and hands the rest to Next.
type Replies struct {
	Receipts *Receipts
	Next     pipeline.Replies
}

// Deliver implements pipeline.Replies.
func (r Replies) Deliver(m *wire.Message, sess *handshake.Session, sealed bool) bool {
	return r.Receipts.Take(m) || r.Next.Deliver(m, sess, sealed)
}

// Boundary is the pipeline's auditor (pipeline.Auditor): the trail's
// record of each decision, and the signed batch of receipts that rides on
// a peer's call (its replies' batches are taken with their receipts, by
// Countersign). Receipts may be nil (receipts off).
type Boundary struct {
	Trail    *Trail
	Receipts *Receipts
}

// Inbound implements pipeline.Auditor. A batch is taken whatever the
// pipeline decided on the call that brought it: its root's signature is
// checked on its own.
func (b Boundary) Inbound(ctx context.Context, in *pipeline.Inbound, a pipeline.Answer) {
	if b.Receipts != nil && in.FromPeer && !pipeline.IsReply(in.M) {
		if v := in.M.Ext.Get(ExtReceipts); !v.IsAbsent() {
			b.Receipts.take(in.M.From.Org, in.M.ID, v)
		}
	}
	b.Trail.Inbound(ctx, in, a)
}
