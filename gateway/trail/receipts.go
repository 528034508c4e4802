package trail

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"io"
	"log/slog"
	"sort"
	"strings"
	"sync"
	"time"

	lru "github.com/hashicorp/golang-lru/v2"

	"github.com/moltgate/moltgate/audit"
	"github.com/moltgate/moltgate/gateway/pipeline"
	"github.com/moltgate/moltgate/handshake"
	"github.com/moltgate/moltgate/identity"
	"github.com/moltgate/moltgate/keys"
	"github.com/moltgate/moltgate/merkle"
	"github.com/moltgate/moltgate/receipt"
	"github.com/moltgate/moltgate/wire"
)

// ExtReceipt marks a reply whose exchange has a receipt: the callee's
// gateway puts {"ts": …}, the time it made the receipt, in its reply. The
// rest of the receipt's body the caller's gateway rebuilds from what it
// sent and received (the parties, the ids, both digests, the outcome, the
// consent), and prev comes with the callee's signed batch (ExtReceipts).
const ExtReceipt = "moltgate.receipt"

// ExtReceipts carries one side's signed root of a batch of receipts and
// each receipt's leaf, to the other side's gateway: {"root": {…},
// "receipts": [{"leaf", "prev", "reply_id"}, …]}, in the order of the
// tree (batchwire.go). It rides on a message already going there (a
// reply, a call), or on a respond from gateway to gateway of its own when
// none leaves within the window (carry.go). The callee's gateway sends its
// root (role callee) to the caller's, which answers with its own (role
// caller): the countersignature.
const ExtReceipts = "moltgate.receipts"

// Defaults of ReceiptsConfig.
const (
	// DefaultReceiptWindow is how long a batch gathers receipts before it
	// is signed, and how long a signed batch waits for a message to ride
	// on: a busy exchange signs once per window, and a receipt is complete
	// a few windows after its reply. Each batch costs each side a
	// signature, a verification and the root on the wire, and one that no
	// message took in time a message of its own: a pair of gateways
	// recording everything spent 8-12% more CPU a round trip at 10 ms than
	// at 50 ms (docs/benchmarks.md), where they are amortised over five
	// times the receipts, for a path two hashes longer in each proof kept;
	// 200 ms saved nothing more.
	DefaultReceiptWindow = 50 * time.Millisecond
	// DefaultReceiptBatch is the number of receipts that has a batch
	// signed before its window ends.
	DefaultReceiptBatch = 256
)

// receiptsHeld bounds the receipts each side keeps while the other's
// signature is on its way.
const receiptsHeld = 16384

// ReceiptsConfig is what Receipts need. Every field is required unless it
// says otherwise.
type ReceiptsConfig struct {
	// Self is gateway@org, whose org key signs the batches, read at each
	// use: a rotation changes it while the gateway serves.
	Self identity.Holder
	// KeyOf is the org key the gateway trusts for org: its own, or an
	// imported peer's.
	KeyOf func(org string) (keys.Ed25519Public, bool)
	// Peer is the imported peer org, nil if none (Remotes adapts the
	// gateway's table of peers).
	Peer func(org string) Peer
	// Trail keeps the receipts in the ledger.
	Trail *Trail
	// Verifier checks the signatures, keeping the peers' org keys
	// expanded. Optional: without it each check expands its key anew.
	Verifier *keys.Verifier
	// Window is how long a batch gathers receipts before it is signed.
	// Default DefaultReceiptWindow.
	Window time.Duration
	// Batch is the number of receipts that has a batch signed at once.
	// Default DefaultReceiptBatch.
	Batch int
	// Go runs f in the background, tracked so that shutdown waits for it.
	Go func(f func())
	// Base is the context of the batches sent, cancelled at shutdown.
	Base context.Context
	Log  *slog.Logger
	Now  func() time.Time
	// Rand is the source of the ids of the messages that carry batches.
	Rand io.Reader
	// Hold is how long, when the trail records every decision, the
	// decisions of an exchange wait for its receipt, to be kept with it
	// as one event. Default DefaultExchangeHold.
	Hold time.Duration
}

// Receipts are both sides of the receipt exchange. A nil *Receipts
// ([audit] receipts off) signs, countersigns and takes nothing.
type Receipts struct {
	cfg   ReceiptsConfig
	roots *receipt.Roots

	mu sync.Mutex // guards prev, and the proofs set on held receipts
	// prev is the last receipt this gateway made as callee, by its leaf;
	// none is set before the first.
	prev merkle.Hash
	none bool

	// As callee: the receipts whose replies are being signed, by reply
	// id, until they are (Sealed); then the receipts made, until
	// countersigned.
	unsealed *lru.Cache[string, *held]
	awaited  *lru.Cache[string, *held]
	// As caller: the receipts whose replies came, by reply id, until the
	// callee's batch brings their prev and proof; and what batches brought
	// first.
	bodies *lru.Cache[string, *held]
	early  *lru.Cache[string, *placed]
	// match guards the pairing of a body with its callee's proof, which
	// come in either order on different goroutines (a batch rides on one
	// reply and covers others): without it each could look for the other
	// before the other was held, and both would wait for ever.
	match sync.Mutex

	signing  *batcher // the callee's batches
	counters *batcher // the caller's
	out      outbox   // both, signed, until a message takes them
}

// held is a receipt and its leaf.
type held struct {
	rc   *receipt.Receipt
	leaf merkle.Hash
	ps   Peer               // the other side
	sess *handshake.Session // the session of the exchange, or nil
	// prev is rc.Prev as a leaf, unless first (rc.Prev is "").
	prev  merkle.Hash
	first bool
	// As callee: the digest of the reply as signed, which its signing
	// writes (wire.Message.SignedDigest), and the signed batch that rides
	// on the reply, until it is sealed.
	signed  [32]byte
	carried *signed
}

// NewReceipts starts the exchange where the ledger's chain of receipts
// this gateway made as callee ends, so that it goes on across restarts.
func NewReceipts(ctx context.Context, cfg ReceiptsConfig) *Receipts {
	if cfg.Window <= 0 {
		cfg.Window = DefaultReceiptWindow
	}
	if cfg.Batch <= 0 {
		cfg.Batch = DefaultReceiptBatch
	}
	unsealed, _ := lru.New[string, *held](receiptsHeld)
	awaited, _ := lru.New[string, *held](receiptsHeld)
	bodies, _ := lru.New[string, *held](receiptsHeld)
	early, _ := lru.New[string, *placed](receiptsHeld)
	s := &Receipts{cfg: cfg, roots: receipt.NewRoots(cfg.Verifier, 1024),
		unsealed: unsealed, awaited: awaited, bodies: bodies, early: early, out: outbox{waiting: map[string][]*signed{}}}
	s.prev, s.none = lastReceipt(ctx, cfg.Trail.l, cfg.Self.Current().Ref.Org)
	cfg.Trail.holdExchanges(cfg.Hold, func(org string) bool { return cfg.Peer(org) != nil })
	s.signing = &batcher{window: cfg.Window, max: cfg.Batch, goFn: cfg.Go, base: cfg.Base, open: map[string]*batch{},
		flush: func(b *batch) { s.signBatch(receipt.RoleCallee, b) }}
	s.counters = &batcher{window: cfg.Window, max: cfg.Batch, goFn: cfg.Go, base: cfg.Base, open: map[string]*batch{},
		flush: func(b *batch) { s.signBatch(receipt.RoleCaller, b) }}
	return s
}

// Awaited is the number of receipts made as callee whose
// countersignatures have not come back.
func (s *Receipts) Awaited() int { return s.awaited.Len() }

// lastReceipt is the leaf of the last receipt this gateway made as
// callee, from its ledger, kept alone or with its exchange's decisions;
// none if there is none.
func lastReceipt(ctx context.Context, l *audit.Ledger, org string) (leaf merkle.Hash, none bool) {
	var es []audit.Entry
	for _, typ := range []string{audit.TypeReceipt, audit.TypeExchange} {
		got, err := l.Entries(ctx, audit.Filter{Type: typ, Limit: 1000})
		if err != nil {
			return merkle.Hash{}, true
		}
		es = append(es, got...)
	}
	// Oldest first, as each list is: by link, and by place in it.
	sort.Slice(es, func(i, j int) bool {
		return es[i].Seq < es[j].Seq || es[i].Seq == es[j].Seq && es[i].Index < es[j].Index
	})
	for i := len(es) - 1; i >= 0; i-- {
		var ev audit.Event
		if json.Unmarshal(es[i].Event, &ev) != nil {
			continue
		}
		data, err := audit.ReceiptOf(&ev)
		if err != nil || data == nil {
			continue
		}
		r, err := receipt.Parse(data)
		if err != nil || orgOf(r.Callee) != org {
			continue
		}
		if h, err := r.Leaf(); err == nil {
			return h, false
		}
	}
	return merkle.Hash{}, true
}

// Sign starts the receipt of the exchange of in.M and its final reply r,
// before r is signed: it marks r (ExtReceipt, with the receipt's time) and
// asks r's signing for the digest of its bytes (wire.Message.SignedDigest),
// which Sealed then takes to finish the receipt. A signed batch waiting
// for the caller's gateway rides on r, under r's signature and digest.
func (s *Receipts) Sign(in *pipeline.Inbound, r *wire.Message) error {
	if s == nil || !in.FromPeer || (r.Op != wire.OpRespond && r.Op != wire.OpError) {
		return nil
	}
	ps := s.cfg.Peer(in.M.From.Org)
	if ps == nil {
		return nil
	}
	qd, err := receivedDigest(in.M)
	if err != nil {
		return err
	}
	rc := &receipt.Receipt{Type: receipt.Type, Caller: in.M.From.Ref().String(), Callee: in.M.To.String(), RequestID: in.M.ID, ReplyID: r.ID,
		RequestDigest: qd, Outcome: receipt.OutcomeSuccess, Code: errorCode(r), ConsentID: consentID(in.M), TS: s.cfg.Now().UnixMilli()}
	if r.Op == wire.OpError {
		rc.Outcome = receipt.OutcomeError
	}
	h := &held{rc: rc, ps: ps, sess: in.Sess}
	h.carried = s.carry(in.M.From.Org, r)
	if r.Ext.IsAbsent() {
		r.Ext = wire.ObjectValue()
	}
	r.Ext = r.Ext.With(ExtReceipt, wire.ObjectValue(wire.Member{Key: "ts", Value: wire.IntValue(rc.TS)}))
	r.SignedDigest = &h.signed
	s.unsealed.Add(r.ID, h)
	return nil
}

// Sealed is told that r was signed and sealed, or failed to be (err). The
// receipt Sign started for r, if any, then has its reply's digest: it
// takes its place in the chain of this gateway's receipts (prev) and in
// its next batch. A reply that did not leave has no receipt, and the
// batch that rode on it waits for the next message.
func (s *Receipts) Sealed(r *wire.Message, err error) {
	if s == nil || r.SignedDigest == nil {
		return
	}
	h, ok := s.unsealed.Peek(r.ID)
	if !ok || r.SignedDigest != &h.signed {
		return
	}
	s.unsealed.Remove(r.ID)
	org := orgOf(h.rc.Caller)
	if err != nil || h.signed == ([32]byte{}) {
		if h.carried != nil {
			s.put(org, h.carried)
		}
		return
	}
	h.carried = nil
	h.rc.ReplyDigest = digestString(&h.signed)
	// The chain's order is the batch's: prev is taken and the receipt
	// queued under one lock, so that a batch's receipts follow each other
	// in the chain and each one's prev need not travel.
	s.mu.Lock()
	defer s.mu.Unlock()
	h.prev, h.first = s.prev, s.none
	if !h.first {
		h.rc.Prev = h.prev.String()
	}
	leaf, err := h.rc.Leaf()
	if err != nil {
		s.cfg.Log.Error("receipt not made", "peer", org, "message_id", r.ID, "err", err.Error())
		return
	}
	h.leaf, s.prev, s.none = leaf, leaf, false
	s.awaited.Add(r.ID, h)
	s.signing.add(org, h)
}

// receivedDigest is the digest of a request as it was received: of its
// bytes, when they are their own canonical form, as they are when the
// sender is a gateway; otherwise of that form, encoded.
func receivedDigest(m *wire.Message) (string, error) {
	if m.Canonical() {
		sum := sha256.Sum256(m.Raw())
		return digestString(&sum), nil
	}
	t, err := m.Tree()
	if err != nil {
		return "", err
	}
	return receipt.Digest(t), nil
}

// keep appends a doubly signed receipt to the ledger. The receipt is
// encoded into a recycled buffer, which the ledger copies as it queues the
// event (a sink keeps what it is offered: with one, the buffer is the
// event's own).
func (s *Receipts) keep(rc *receipt.Receipt) {
	a := s.cfg.Trail
	if a == nil {
		return
	}
	bp := keepBufs.Get().(*[]byte)
	s.mu.Lock()
	b, err := rc.AppendMarshal((*bp)[:0])
	s.mu.Unlock()
	var x *heldExchange
	if a.held != nil {
		x = a.held.take(rc.RequestID)
	}
	switch {
	case err != nil:
	case x != nil:
		// One event for the exchange: its decisions and its receipt. The
		// event's data is a copy, made as the receipt is copied into it.
		var ev audit.Event
		if ev, err = a.ev.NewEvent(audit.TypeExchange, rc.RequestID, &audit.Exchange{Peer: x.ds[0].Peer, Decisions: x.ds, Receipt: b}); err == nil {
			ev.TraceParent = x.traces[0]
			a.appendEvent(context.Background(), ev)
		}
	default:
		data := audit.Raw(b)
		if a.sink != nil {
			data = audit.Raw(append([]byte(nil), b...))
		}
		var ev audit.Event
		if ev, err = a.ev.NewEvent(audit.TypeReceipt, rc.RequestID, data); err == nil {
			a.appendEvent(context.Background(), ev)
		}
	}
	if err != nil {
		s.cfg.Log.Error("receipt not kept", "message_id", rc.RequestID, "err", err.Error())
	}
	if cap(b) <= maxKeepBuf {
		*bp = b[:0]
	}
	keepBufs.Put(bp)
}

// keepBufs recycles the buffers receipts are encoded in to be kept.
var keepBufs = sync.Pool{New: func() any { b := make([]byte, 0, 4096); return &b }}

// maxKeepBuf bounds the buffers kept for reuse.
const maxKeepBuf = 64 << 10

// consentID is the id of the consent a message travels under, or "".
func consentID(m *wire.Message) string {
	id, _ := consentOf(m)
	return id
}

// orgOf is the organisation of an agent@org reference.
func orgOf(ref string) string {
	if i := strings.LastIndexByte(ref, '@'); i >= 0 {
		return ref[i+1:]
	}
	return ""
}
