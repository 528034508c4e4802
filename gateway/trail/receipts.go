package trail

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"io"
	"log/slog"
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

// ExtReceipt carries the body of a receipt of an exchange: the callee's
// gateway puts it in its reply, unsigned; the reply's signature covers it,
// and the batch signature that makes it a receipt comes a few
// milliseconds later (ExtReceipts).
const ExtReceipt = "moltgate.receipt"

// ExtReceipts carries one side's signed root of a batch of receipts and
// each receipt's place in it, to the other side's gateway: {"root": {…},
// "receipts": [{"reply_id", "index", "path"}, …]}. It rides on a message
// already going there (a reply, a call), or on a respond from gateway to
// gateway of its own when none leaves within the window (carry.go). The
// callee's gateway sends its root (role callee) to the caller's, which
// answers with its own (role caller): the countersignature.
const ExtReceipts = "moltgate.receipts"

// Defaults of ReceiptsConfig.
const (
	// DefaultReceiptWindow is how long a batch gathers receipts before it
	// is signed: a busy exchange signs once per window, and a receipt is
	// complete a few windows after its reply.
	DefaultReceiptWindow = 10 * time.Millisecond
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
}

// Receipts are both sides of the receipt exchange. A nil *Receipts
// ([audit] receipts off) signs, countersigns and takes nothing.
type Receipts struct {
	cfg   ReceiptsConfig
	roots *receipt.Roots

	mu   sync.Mutex // guards prev, and the proofs set on held receipts
	prev string     // Hash of the last receipt this gateway made as callee

	// As callee: the receipts made, by reply id, until countersigned.
	awaited *lru.Cache[string, *held]
	// As caller: the receipts whose bodies came with replies, by reply
	// id, until the callee's proofs come; and the proofs that came first.
	bodies *lru.Cache[string, *held]
	early  *lru.Cache[string, *receipt.Proof]

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
	awaited, _ := lru.New[string, *held](receiptsHeld)
	bodies, _ := lru.New[string, *held](receiptsHeld)
	early, _ := lru.New[string, *receipt.Proof](receiptsHeld)
	s := &Receipts{cfg: cfg, roots: receipt.NewRoots(cfg.Verifier, 1024), prev: lastReceipt(ctx, cfg.Trail.l, cfg.Self.Current().Ref.Org),
		awaited: awaited, bodies: bodies, early: early, out: outbox{waiting: map[string][]*signed{}}}
	s.signing = &batcher{window: cfg.Window, max: cfg.Batch, goFn: cfg.Go, base: cfg.Base, open: map[string]*batch{},
		flush: func(b *batch) { s.signBatch(receipt.RoleCallee, b) }}
	s.counters = &batcher{window: cfg.Window, max: cfg.Batch, goFn: cfg.Go, base: cfg.Base, open: map[string]*batch{},
		flush: func(b *batch) { s.signBatch(receipt.RoleCaller, b) }}
	return s
}

// Awaited is the number of receipts made as callee whose
// countersignatures have not come back.
func (s *Receipts) Awaited() int { return s.awaited.Len() }

// lastReceipt is the hash of the last receipt this gateway made as
// callee, from its ledger.
func lastReceipt(ctx context.Context, l *audit.Ledger, org string) string {
	es, err := l.Entries(ctx, audit.Filter{Type: audit.TypeReceipt, Limit: 1000})
	if err != nil {
		return ""
	}
	for i := len(es) - 1; i >= 0; i-- {
		var ev audit.Event
		if json.Unmarshal(es[i].Event, &ev) != nil {
			continue
		}
		r, err := receipt.Parse(ev.Data)
		if err != nil || orgOf(r.Callee) != org {
			continue
		}
		if h, err := r.Hash(); err == nil {
			return h
		}
	}
	return ""
}

// Sign makes the receipt of the exchange of in.M and its final reply r,
// before r is signed, puts its body in r's ext and queues it for this
// gateway's next batch. r's digest is taken before the body goes in: it
// is of r without ext moltgate.receipt, and without sig, which covers the
// body too.
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
	// A signed batch waiting for the caller's gateway rides on the
	// reply, before its digest is taken: the digest covers it, as the
	// reply's signature does.
	ext := r.Ext
	carried := s.carry(in.M.From.Org, r)
	if err := s.sign(in, r, ps, qd); err != nil {
		if carried != nil {
			// The reply will not leave as it is: the batch waits for the
			// next message, or goes alone.
			r.Ext = ext
			s.put(in.M.From.Org, carried)
		}
		return err
	}
	return nil
}

// sign is Sign once the request's digest is known and a batch may ride on
// r.
func (s *Receipts) sign(in *pipeline.Inbound, r *wire.Message, ps Peer, qd string) error {
	rep, err := r.Tree()
	if err != nil {
		return err
	}
	rc := &receipt.Receipt{Type: receipt.Type, Caller: in.M.From.Ref().String(), Callee: in.M.To.String(), RequestID: in.M.ID, ReplyID: r.ID,
		RequestDigest: qd, ReplyDigest: receipt.Digest(rep), Outcome: receipt.OutcomeSuccess,
		ConsentID: consentID(in.M), TS: s.cfg.Now().UnixMilli()}
	if r.Op == wire.OpError {
		rc.Outcome = receipt.OutcomeError
		if p, ok := r.Payload.(*wire.ErrorPayload); ok {
			rc.Code = string(p.Code)
		}
	}
	s.mu.Lock()
	rc.Prev = s.prev
	leaf, err := rc.Leaf()
	if err == nil {
		s.prev = leaf.String()
	}
	s.mu.Unlock()
	if err != nil {
		return err
	}
	b, err := rc.Marshal()
	if err != nil {
		return err
	}
	v, err := wire.Parse(b, 0)
	if err != nil {
		return err
	}
	if r.Ext.IsAbsent() {
		r.Ext = wire.ObjectValue()
	}
	r.Ext = r.Ext.With(ExtReceipt, v)
	h := &held{rc: rc, leaf: leaf, ps: ps, sess: in.Sess}
	s.awaited.Add(r.ID, h)
	s.signing.add(in.M.From.Org, h)
	return nil
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

// keep appends a doubly signed receipt to the ledger.
func (s *Receipts) keep(rc *receipt.Receipt) {
	a := s.cfg.Trail
	if a == nil {
		return
	}
	s.mu.Lock()
	b, err := rc.Marshal()
	s.mu.Unlock()
	if err != nil {
		return
	}
	ev, err := a.ev.NewEvent(audit.TypeReceipt, rc.RequestID, audit.Raw(b))
	if err != nil {
		return
	}
	a.appendEvent(context.Background(), ev)
}

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
