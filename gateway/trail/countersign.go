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

// The caller's side of the receipt exchange: the bodies that come with
// replies, checked against what was sent and received, held until the
// callee's signed batch proves them, then countersigned.

// Countersign takes, as the caller, the body of the receipt the callee
// put in its final reply r to req: it checks that the body names what was
// sent and received, and holds it until the callee's signed batch brings
// its proof (or countersigns it at once if the proof came first). A reply
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
	rc, err := receipt.FromValue(v)
	if err == nil && (rc.CalleeProof != nil || rc.CallerProof != nil) {
		err = &receipt.Error{Field: "callee_proof", Reason: "a receipt in a reply is a body alone; its proofs come in batches"}
	}
	if err == nil {
		err = matches(rc, req, r)
	}
	var leaf merkle.Hash
	if err == nil {
		leaf, err = rc.Leaf()
	}
	if err != nil {
		s.cfg.Log.Error("receipt refused", "peer", ps.Org(), "message_id", r.ID, "err", err.Error())
		return
	}
	h := &held{rc: rc, leaf: leaf, ps: ps, sess: sess}
	if p, ok := s.early.Peek(r.ID); ok {
		s.early.Remove(r.ID)
		s.calleeProof(h, p, ps.Org())
		return
	}
	s.bodies.Add(r.ID, h)
}

// calleeProof takes the callee's proof of a receipt held as caller, whose
// root was checked, and queues the receipt to be countersigned.
func (s *Receipts) calleeProof(h *held, p *receipt.Proof, from string) {
	err := error(&receipt.Error{Field: "callee", Reason: "is not of the organisation that signed the batch"})
	if orgOf(h.rc.Callee) == from {
		err = p.Includes(h.leaf)
	}
	if err != nil {
		s.cfg.Log.Error("receipt refused", "peer", from, "message_id", h.rc.ReplyID, "err", err.Error())
		return
	}
	s.mu.Lock()
	h.rc.CalleeProof = p
	s.mu.Unlock()
	s.counters.add(from, h)
}

// matches checks that rc names the exchange of req and r.
func matches(rc *receipt.Receipt, req, r *wire.Message) error {
	rd, err := replyDigest(r)
	if err != nil {
		return err
	}
	switch {
	case rc.Caller != req.From.Ref().String():
		return &receipt.Error{Field: "caller", Reason: "is not who sent the request"}
	case rc.Callee != req.To.String():
		return &receipt.Error{Field: "callee", Reason: "is not whom the request was for"}
	case rc.RequestID != req.ID || !sentDigestIs(req, rc.RequestDigest):
		return &receipt.Error{Field: "request_digest", Reason: "is not of the request sent"}
	case rc.ReplyID != r.ID || rc.ReplyDigest != rd:
		return &receipt.Error{Field: "reply_digest", Reason: "is not of the reply received"}
	case (rc.Outcome == receipt.OutcomeError) != (r.Op == wire.OpError):
		return &receipt.Error{Field: "outcome", Reason: "does not say what the reply is"}
	case rc.Code != errorCode(r):
		return &receipt.Error{Field: "code", Reason: "is not the error the reply carries"}
	case rc.ConsentID != consentID(req):
		return &receipt.Error{Field: "consent_id", Reason: "is not the request's consent"}
	}
	return nil
}

// errorCode is the code of an error reply, "" for any other.
func errorCode(r *wire.Message) string {
	if p, ok := r.Payload.(*wire.ErrorPayload); ok && r.Op == wire.OpError {
		return string(p.Code)
	}
	return ""
}

// replyDigest is a reply's digest as its receipt names it: without sig and
// without the receipt itself.
func replyDigest(r *wire.Message) (string, error) {
	t, err := r.Tree()
	if err != nil {
		return "", err
	}
	t = t.Without("sig")
	if ext := t.Get("ext").Without(ExtReceipt); ext.Len() == 0 {
		t = t.Without("ext")
	} else {
		t = t.With("ext", ext)
	}
	return receipt.Digest(t), nil
}

// sentDigestIs reports whether want is the digest of the request m as it
// was signed and sent. The digest of the bytes signed, which
// wire.Message.SignedDigest kept when m left (Outgoing asks for it), is
// compared first; a request sent without it, or whose digest was taken
// otherwise, is encoded again.
func sentDigestIs(m *wire.Message, want string) bool {
	if d := m.SignedDigest; d != nil && *d != ([32]byte{}) && want == digestString(d) {
		return true
	}
	got, err := requestDigest(m)
	return err == nil && got == want
}

// digestString is a SHA-256 sum as receipts write digests.
func digestString(sum *[32]byte) string {
	var b [7 + 64]byte
	copy(b[:], "sha256:")
	hex.Encode(b[7:], sum[:])
	return string(b[:])
}

// requestDigest is the digest of a request as it was sent, sig included:
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
