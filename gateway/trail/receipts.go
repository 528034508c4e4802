package trail

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"strings"
	"sync"
	"time"

	lru "github.com/hashicorp/golang-lru/v2"

	"github.com/moltgate/moltgate/audit"
	"github.com/moltgate/moltgate/gateway/peers"
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
// each receipt's place in it, to the other side's gateway, in a respond
// from gateway to gateway: {"root": {…}, "receipts": [{"reply_id",
// "index", "path"}, …]}. The callee's gateway sends its root (role
// callee) to the caller's, which answers with its own (role caller): the
// countersignature.
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
		awaited: awaited, bodies: bodies, early: early}
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
	req, err := in.M.Tree()
	if err != nil {
		return err
	}
	rep, err := r.Tree()
	if err != nil {
		return err
	}
	rc := &receipt.Receipt{Type: receipt.Type, Caller: in.M.From.Ref().String(), Callee: in.M.To.String(), RequestID: in.M.ID, ReplyID: r.ID,
		RequestDigest: receipt.Digest(req), ReplyDigest: receipt.Digest(rep), Outcome: receipt.OutcomeSuccess,
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

// requestDigest is the digest of a request as it was sent, sig included.
// The tree a sent message builds is not its wire form (TestReceiptInBothLedgers
// in package gateway fails with it): the wire form is parsed again.
func requestDigest(m *wire.Message) (string, error) {
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

// Countersign takes, as the caller, the body of the receipt the callee
// put in its final reply r to req: it checks that the body names what was
// sent and received, and holds it until the callee's signed batch brings
// its proof (or countersigns it at once if the proof came first). A reply
// without a receipt, or with one that does not hold, is still the reply:
// the receipt is proof of the exchange, not a condition of it; a bad one
// is logged.
func (s *Receipts) Countersign(ps *peers.Remote, req, r *wire.Message, sess *handshake.Session) {
	if s == nil || (r.Op != wire.OpRespond && r.Op != wire.OpError) {
		return
	}
	s.countersign(remote{ps: ps, self: s.cfg.Self}, req, r, sess)
}

func (s *Receipts) countersign(ps Peer, req, r *wire.Message, sess *handshake.Session) {
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
	qd, err := requestDigest(req)
	if err != nil {
		return err
	}
	switch {
	case rc.Caller != req.From.Ref().String():
		return &receipt.Error{Field: "caller", Reason: "is not who sent the request"}
	case rc.Callee != req.To.String():
		return &receipt.Error{Field: "callee", Reason: "is not whom the request was for"}
	case rc.RequestID != req.ID || rc.RequestDigest != qd:
		return &receipt.Error{Field: "request_digest", Reason: "is not of the request sent"}
	case rc.ReplyID != r.ID || rc.ReplyDigest != rd:
		return &receipt.Error{Field: "reply_digest", Reason: "is not of the reply received"}
	case (rc.Outcome == receipt.OutcomeError) != (r.Op == wire.OpError):
		return &receipt.Error{Field: "outcome", Reason: "does not say what the reply is"}
	case rc.ConsentID != consentID(req):
		return &receipt.Error{Field: "consent_id", Reason: "is not the request's consent"}
	}
	return nil
}

// signBatch signs b, this gateway's batch in role, and sends the root and
// each receipt's place to the peer. As caller, each receipt is then
// complete, and kept.
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
	list := make([]wire.Value, len(b.items))
	for i, h := range b.items {
		p := &proofs[i]
		path := make([]wire.Value, len(p.Path))
		for j, x := range p.Path {
			path[j] = wire.StringValue(x.String())
		}
		list[i] = wire.ObjectValue(wire.Member{Key: "index", Value: wire.IntValue(p.Index)},
			wire.Member{Key: "path", Value: wire.ArrayValue(path...)},
			wire.Member{Key: "reply_id", Value: wire.StringValue(h.rc.ReplyID)})
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
	root, err := rootValue(&proofs[0].Root)
	if err != nil {
		return
	}
	ext := wire.ObjectValue(wire.Member{Key: ExtReceipts, Value: wire.ObjectValue(
		wire.Member{Key: "receipts", Value: wire.ArrayValue(list...)}, wire.Member{Key: "root", Value: root})})
	s.send(b, ext)
}

func rootValue(rt *receipt.Root) (wire.Value, error) {
	b, err := json.Marshal(rt)
	if err != nil {
		return wire.Value{}, err
	}
	return wire.Parse(b, 0)
}

// send carries ext to the peer of b: a respond from this gateway to its
// gateway, re the batch's first reply, in the session of the last
// exchange, as a late reply is.
func (s *Receipts) send(b *batch, ext wire.Value) {
	ctx, cancel := context.WithTimeout(s.cfg.Base, 10*time.Second)
	defer cancel()
	m := &wire.Message{V: wire.Version, ID: pipeline.NewMessageID(s.cfg.Rand), TS: s.cfg.Now().UnixMilli(), Op: wire.OpRespond,
		Re: b.items[0].rc.ReplyID, From: s.cfg.Self.Current().Sender(), To: wire.Ref{Agent: pipeline.GatewayAgent, Org: b.ps.Org()}, Cls: wire.Pub,
		Payload: &wire.RespondPayload{Status: "success", Data: wire.ObjectValue()}, Ext: ext}
	if err := b.ps.Send(ctx, b.sess, m); err != nil {
		s.cfg.Log.Warn("signed receipts not sent", "peer", b.ps.Org(), "receipts", len(b.items), "err", err.Error())
	}
}

// Peer is the other side of an exchange: a peer's gateway.
type Peer interface {
	// Org is the peer's organisation.
	Org() string
	// Send signs m and seals it in sess (or, if sess is nil or has
	// ended, in a session with the peer) and posts it to the peer's
	// gateway.
	Send(ctx context.Context, sess *handshake.Session, m *wire.Message) error
}

// Remotes adapts the gateway's table of peers (get) to Peer, for
// ReceiptsConfig.Peer; self signs what is sent.
func Remotes(get func(org string) *peers.Remote, self identity.Holder) func(org string) Peer {
	return func(org string) Peer {
		if ps := get(org); ps != nil {
			return remote{ps: ps, self: self}
		}
		return nil
	}
}

// remote is an imported peer as a Peer. Two are equal if they are of the
// same import.
type remote struct {
	ps   *peers.Remote
	self identity.Holder
}

func (r remote) Org() string { return r.ps.Peer().Org }

func (r remote) Send(ctx context.Context, sess *handshake.Session, m *wire.Message) error {
	var (
		body []byte
		err  error
	)
	// A session made under a former org key signs with that key
	// (handshake.Session.Self).
	self := r.self.Current()
	if sess != nil {
		body, err = sess.SignAndSeal(m, self.Signing)
	}
	if sess == nil || err != nil {
		if sess, err = r.ps.Session(ctx); err == nil {
			body, err = sess.SignAndSeal(m, self.Signing)
		}
	}
	if err != nil {
		return err
	}
	resp, err := r.ps.Post(ctx, body)
	if err != nil {
		return err
	}
	return resp.Body.Close()
}

// placed is one receipt's place in an ExtReceipts batch.
type placed struct {
	ReplyID string        `json:"reply_id"`
	Index   int64         `json:"index"`
	Path    []merkle.Hash `json:"path"`
}

// Take is what a peer's gateway sends back about the receipts of
// exchanges with this one: its signed batch (ExtReceipts). It reports
// whether m was that.
func (s *Receipts) Take(m *wire.Message) bool {
	if s == nil || m.Op != wire.OpRespond || m.From.Agent != pipeline.GatewayAgent {
		return false
	}
	v := m.Ext.Get(ExtReceipts)
	if v.IsAbsent() {
		return false
	}
	var got struct {
		Root     receipt.Root `json:"root"`
		Receipts []placed     `json:"receipts"`
	}
	err := wire.Bind(v, &got, ExtReceipts)
	if err == nil && len(got.Receipts) > receiptsHeld {
		err = wire.Errorf(wire.ErrInvalidParam, ExtReceipts+".receipts", "%d receipts; at most %d", len(got.Receipts), receiptsHeld)
	}
	rt := &got.Root
	if err == nil && (rt.Org != m.From.Org || (rt.Role != receipt.RoleCallee && rt.Role != receipt.RoleCaller)) {
		err = &receipt.Error{Field: ExtReceipts + ".root", Reason: "is not signed by the organisation that sent it, as callee or caller"}
	}
	if err == nil && rt.Size != int64(len(got.Receipts)) {
		err = &receipt.Error{Field: ExtReceipts + ".root.size", Reason: "is not the number of receipts sent with it"}
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
		s.cfg.Log.Warn("signed receipts refused", "peer", m.From.Org, "message_id", m.ID, "err", err.Error())
		return true
	}
	bad := 0
	var last error
	for _, pl := range got.Receipts {
		p := &receipt.Proof{Index: pl.Index, Path: pl.Path, Root: *rt}
		var err error
		if rt.Role == receipt.RoleCallee {
			err = s.takeCallee(m.From.Org, pl.ReplyID, p)
		} else {
			err = s.takeCaller(m.From.Org, pl.ReplyID, p)
		}
		if err != nil {
			bad, last = bad+1, err
		}
	}
	if bad > 0 {
		s.cfg.Log.Warn("signed receipts refused", "peer", m.From.Org, "message_id", m.ID, "refused", bad, "err", last.Error())
	}
	return true
}

// takeCallee is the callee's proof of a receipt this gateway holds as
// caller, or will when its reply comes.
func (s *Receipts) takeCallee(from, replyID string, p *receipt.Proof) error {
	h, ok := s.bodies.Peek(replyID)
	if !ok {
		// The batch overtook the reply it covers.
		s.early.Add(replyID, p)
		return nil
	}
	s.bodies.Remove(replyID)
	s.calleeProof(h, p, from)
	return nil
}

// takeCaller is the caller's countersignature of a receipt this gateway
// made: the receipt is complete, and kept.
func (s *Receipts) takeCaller(from, replyID string, p *receipt.Proof) error {
	h, ok := s.awaited.Peek(replyID)
	if !ok {
		return nil // not awaited (any more): nothing to complete
	}
	if orgOf(h.rc.Caller) != from {
		return &receipt.Error{Field: "caller", Reason: "is not of the organisation that countersigned"}
	}
	if err := p.Includes(h.leaf); err != nil {
		return err
	}
	s.awaited.Remove(replyID)
	s.mu.Lock()
	rc := *h.rc
	s.mu.Unlock()
	rc.CallerProof = p
	s.keep(&rc)
	return nil
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

// Replies takes the signed batches of receipts that come back among the
// replies to this gateway's own calls, and hands the rest to Next.
type Replies struct {
	Receipts *Receipts
	Next     pipeline.Replies
}

// Deliver implements pipeline.Replies.
func (r Replies) Deliver(m *wire.Message, sess *handshake.Session, sealed bool) bool {
	return r.Receipts.Take(m) || r.Next.Deliver(m, sess, sealed)
}
