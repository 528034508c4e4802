package trail

import (
	"crypto/sha256"
	"encoding/hex"

	"github.com/moltgate/moltgate/gateway/peers"
	"github.com/moltgate/moltgate/handshake"
	"github.com/moltgate/moltgate/merkle"
	"github.com/moltgate/moltgate/receipt"
	"github.com/moltgate/moltgate/wire"
)

// The caller's side of the receipt exchange: the body of each receipt,
// rebuilt from what was sent and received, held until the callee's signed
// batch brings its prev and proof, then countersigned.

// Countersign takes, as the caller, the mark of a receipt (ExtReceipt)
// in the callee's final reply r to req: it rebuilds the receipt's body
// from req and r (the parties, the ids, the digests of both as signed, the
// outcome, the consent) and the mark's time, and holds it until the
// callee's signed batch brings its prev and its leaf, which must be the
// body's (or completes it at once if the batch came first). A reply
// without a receipt, or with one that does not hold, is still the reply:
// the receipt is proof of the exchange, not a condition of it; a bad one
// is logged. A signed batch that rides on r is taken too.
func (s *Receipts) Countersign(ps *peers.Remote, req, r *wire.Message, sess *handshake.Session) {
	if s == nil || (r.Op != wire.OpRespond && r.Op != wire.OpError) {
		return
	}
	s.countersign(remote{ps: ps, self: s.cfg.Self}, req, r, sess)
}

func (s *Receipts) countersign(ps Peer, req, r *wire.Message, sess *handshake.Session) {
	if v := r.Ext.Get(ExtReceipts); !v.IsAbsent() {
		s.take(ps.Org(), r.ID, v)
	}
	v := r.Ext.Get(ExtReceipt)
	if v.IsAbsent() {
		return
	}
	rc, err := bodyOf(req, r, v)
	if err != nil {
		s.cfg.Log.Error("receipt refused", "peer", ps.Org(), "message_id", r.ID, "err", err.Error())
		return
	}
	h := &held{rc: rc, ps: ps, sess: sess}
	s.match.Lock()
	if pl, ok := s.early.Peek(r.ID); ok {
		s.early.Remove(r.ID)
		s.match.Unlock()
		s.calleeProof(h, pl, ps.Org())
		return
	}
	s.bodies.Add(r.ID, h)
	s.match.Unlock()
}

// bodyOf is the body of the receipt of the exchange of req and its reply
// r, as the caller knows it, but for prev: mark is the reply's ExtReceipt.
func bodyOf(req, r *wire.Message, mark wire.Value) (*receipt.Receipt, error) {
	ts, ok := mark.Get("ts").Int()
	if mark.Kind() != wire.Object || mark.Len() != 1 || !ok || ts <= 0 {
		return nil, wire.Errorf(wire.ErrInvalidParam, "ext."+ExtReceipt, `want {"ts": the time the callee made the receipt, unix milliseconds}`)
	}
	qd, err := sentDigest(req)
	if err != nil {
		return nil, err
	}
	rd, err := requestDigest(r)
	if err != nil {
		return nil, err
	}
	rc := &receipt.Receipt{Type: receipt.Type, Caller: req.From.Ref().String(), Callee: req.To.String(), RequestID: req.ID, ReplyID: r.ID,
		RequestDigest: qd, ReplyDigest: rd, Outcome: receipt.OutcomeSuccess, Code: errorCode(r), ConsentID: consentID(req), TS: ts}
	if r.Op == wire.OpError {
		rc.Outcome = receipt.OutcomeError
	}
	return rc, nil
}

// calleeProof takes the callee's prev and proof of a receipt held as
// caller, whose root was checked: the body, with that prev, must be the
// leaf the callee signed. The receipt is queued to be countersigned.
func (s *Receipts) calleeProof(h *held, pl *placed, from string) {
	var leaf merkle.Hash
	err := error(&receipt.Error{Field: "callee", Reason: "is not of the organisation that signed the batch"})
	if orgOf(h.rc.Callee) == from {
		h.rc.Prev = pl.prev
		leaf, err = h.rc.Leaf()
	}
	if err == nil && leaf != pl.leaf {
		err = &receipt.Error{Field: ExtReceipts + ".receipts.leaf", Reason: "the callee signed another body than the exchange this gateway sent and received (parties, ids, digests, outcome, consent or time)"}
	}
	if err != nil {
		s.cfg.Log.Error("receipt refused", "peer", from, "message_id", h.rc.ReplyID, "err", err.Error())
		return
	}
	h.leaf = leaf
	s.mu.Lock()
	h.rc.CalleeProof = pl.proof
	s.mu.Unlock()
	s.counters.add(from, h)
}

// errorCode is the code of an error reply, "" for any other.
func errorCode(r *wire.Message) string {
	if p, ok := r.Payload.(*wire.ErrorPayload); ok && r.Op == wire.OpError {
		return string(p.Code)
	}
	return ""
}

// sentDigest is the digest of the request m as it was signed and sent:
// the digest of the bytes signed, which wire.Message.SignedDigest kept
// when m left (Outgoing asks for it), or for a request sent without it,
// of m encoded again.
func sentDigest(m *wire.Message) (string, error) {
	if d := m.SignedDigest; d != nil && *d != ([32]byte{}) {
		return digestString(d), nil
	}
	return requestDigest(m)
}

// digestString is a SHA-256 sum as receipts write digests.
func digestString(sum *[32]byte) string {
	var b [7 + 64]byte
	copy(b[:], "sha256:")
	hex.Encode(b[7:], sum[:])
	return string(b[:])
}

// requestDigest is the digest of a message (a request, a reply) as it was
// sent, sig included:
// of its bytes as received, when they are their own canonical form, and
// otherwise of its wire form parsed again (the tree a sent message builds
// is not always its wire form).
func requestDigest(m *wire.Message) (string, error) {
	if m.Canonical() {
		sum := sha256.Sum256(m.Raw())
		return digestString(&sum), nil
	}
	b, err := m.AppendWire(nil)
	if err != nil {
		return "", err
	}
	t, err := wire.Parse(b, 0)
	if err != nil {
		return "", err
	}
	return receipt.Digest(t), nil
}
