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
	"github.com/moltgate/moltgate/receipt"
	"github.com/moltgate/moltgate/wire"
)

// ExtReceipt carries a receipt of an exchange: the callee's gateway puts
// the receipt it signed in its reply. (A caller may also send one receipt
// back countersigned in it, in a respond whose re is the reply's id.)
const ExtReceipt = "moltgate.receipt"

// ExtCountersigned carries countersignatures back to the callee's gateway,
// many in one message: {"receipts": [{"reply_id", "caller_sig"}, …]},
// one per receipt, in a respond from the caller's gateway. The callee signed the
// rest of each receipt itself and holds it, so the countersignature is all
// it needs.
const ExtCountersigned = "moltgate.countersigned"

// Countersignatures go back in batches: a batch is sent once it holds
// returnMax, or returnLinger after its first, so that a busy exchange
// costs one message per returnMax calls and a quiet one waits little.
const (
	returnMax    = 64
	returnLinger = 50 * time.Millisecond
)

// receiptsAwaited bounds the receipts a callee keeps while their
// countersignatures are on their way.
const receiptsAwaited = 4096

// ReceiptsConfig is what Receipts need. Every field is required.
type ReceiptsConfig struct {
	// Self is gateway@org, whose org key signs the receipts.
	Self *identity.Agent
	// KeyOf is the org key the gateway trusts for org: its own, or an
	// imported peer's.
	KeyOf func(org string) (keys.Ed25519Public, bool)
	// Trail keeps the receipts in the ledger.
	Trail *Trail
	// Verifier checks the signatures, keeping the peers' org keys
	// expanded. Optional: without it each check expands its key anew.
	Verifier *keys.Verifier
	// Go runs f in the background, tracked so that shutdown waits for it.
	Go func(f func())
	// Base is the context of the receipts sent back, cancelled at
	// shutdown.
	Base context.Context
	Log  *slog.Logger
	Now  func() time.Time
	// Rand is the source of the ids of the messages that return
	// receipts.
	Rand io.Reader
}

// Receipts are both halves of the receipt exchange. A nil *Receipts
// ([audit] receipts off) signs, countersigns and takes nothing.
type Receipts struct {
	cfg  ReceiptsConfig
	mu   sync.Mutex
	prev string // Hash of the last receipt this gateway signed as callee
	// awaited are the receipts this gateway signed, by reply id, until
	// their callers countersign them.
	awaited *lru.Cache[string, *receipt.Receipt]

	retMu   sync.Mutex
	returns map[string]*returnBatch // countersignatures to send, by peer org
}

// returnBatch is the countersignatures waiting to go back to one peer.
type returnBatch struct {
	ps   *peers.Remote
	sess *handshake.Session // the session the last reply came in, or nil
	re   string             // the first reply's id
	sigs []wire.Value
}

// NewReceipts starts the exchange where the ledger's chain of receipts
// this gateway signed as callee ends, so that it goes on across restarts.
func NewReceipts(ctx context.Context, cfg ReceiptsConfig) *Receipts {
	c, _ := lru.New[string, *receipt.Receipt](receiptsAwaited)
	return &Receipts{cfg: cfg, prev: lastReceipt(ctx, cfg.Trail.l, cfg.Self.Ref.Org), awaited: c, returns: map[string]*returnBatch{}}
}

// Awaited is the number of receipts signed whose countersignatures have
// not come back.
func (s *Receipts) Awaited() int { return s.awaited.Len() }

// lastReceipt is the hash of the last receipt this gateway signed as
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

// Sign signs the receipt of the exchange of in.M and its final reply r,
// before r is signed, and puts it in r's ext. r's digest is taken before
// the receipt goes in: it is of r without ext moltgate.receipt, and
// without sig, which covers the receipt too.
func (s *Receipts) Sign(in *pipeline.Inbound, r *wire.Message) error {
	if s == nil || !in.FromPeer || (r.Op != wire.OpRespond && r.Op != wire.OpError) {
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
	rc := &receipt.Receipt{Caller: in.M.From.Ref().String(), Callee: in.M.To.String(), RequestID: in.M.ID, ReplyID: r.ID,
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
	err = rc.Sign(s.cfg.Self.Signing)
	if err == nil {
		s.prev, err = rc.Hash()
	}
	s.mu.Unlock()
	if err != nil {
		return err
	}
	v, err := receiptValue(rc)
	if err != nil {
		return err
	}
	if r.Ext.IsAbsent() {
		r.Ext = wire.ObjectValue()
	}
	r.Ext = r.Ext.With(ExtReceipt, v)
	s.awaited.Add(r.ID, rc)
	return nil
}

func receiptValue(rc *receipt.Receipt) (wire.Value, error) {
	b, err := rc.Marshal()
	if err != nil {
		return wire.Value{}, err
	}
	return wire.Parse(b, 0)
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

// Countersign checks the receipt of the exchange of req and its final
// reply r, as the caller: signed by the callee's organisation, naming what
// was sent and received. It countersigns it, keeps it in the ledger and
// queues the countersignature to go back to the callee's gateway with
// others (see ExtCountersigned). A reply without a receipt, or
// with one that does not hold, is still the reply: the receipt is proof of
// the exchange, not a condition of it; a bad one is logged.
func (s *Receipts) Countersign(ps *peers.Remote, req, r *wire.Message, sess *handshake.Session) {
	if s == nil || (r.Op != wire.OpRespond && r.Op != wire.OpError) {
		return
	}
	v := r.Ext.Get(ExtReceipt)
	if v.IsAbsent() {
		return
	}
	rc, err := receipt.Parse(wire.AppendCanonical(nil, v))
	if err == nil {
		err = rc.VerifyCalleeUsing(s.cfg.Verifier, s.cfg.KeyOf)
	}
	if err == nil {
		err = matches(rc, req, r)
	}
	if err == nil {
		err = rc.Countersign(s.cfg.Self.Signing)
	}
	if err != nil {
		s.cfg.Log.Error("receipt refused", "peer", ps.Peer().Org, "message_id", r.ID, "err", err.Error())
		return
	}
	s.keep(rc)
	s.queueReturn(ps, r, rc, sess)
}

// queueReturn adds rc's countersignature to the batch going back to the
// peer, and sends the batch once it is full; the first of a batch starts
// its timer.
func (s *Receipts) queueReturn(ps *peers.Remote, r *wire.Message, rc *receipt.Receipt, sess *handshake.Session) {
	sig, _ := rc.CallerSig.AppendText(nil)
	item := wire.ObjectValue(wire.Member{Key: "caller_sig", Value: wire.StringValue(string(sig))},
		wire.Member{Key: "reply_id", Value: wire.StringValue(r.ID)})
	org := ps.Peer().Org
	s.retMu.Lock()
	b := s.returns[org]
	if b == nil || b.ps != ps {
		if b != nil {
			// The peer was imported again: what was queued goes to the
			// one it was for.
			full := b
			s.cfg.Go(func() { s.send(full) })
		}
		b = &returnBatch{ps: ps, re: r.ID}
		s.returns[org] = b
		s.cfg.Go(func() {
			t := time.NewTimer(returnLinger)
			defer t.Stop()
			select {
			case <-t.C:
			case <-s.cfg.Base.Done():
			}
			s.flush(org, b)
		})
	}
	if sess != nil {
		b.sess = sess
	}
	b.sigs = append(b.sigs, item)
	full := len(b.sigs) >= returnMax
	if full {
		delete(s.returns, org)
	}
	s.retMu.Unlock()
	if full {
		s.cfg.Go(func() { s.send(b) })
	}
}

// flush sends b if it is still the batch waiting for org.
func (s *Receipts) flush(org string, b *returnBatch) {
	s.retMu.Lock()
	cur := s.returns[org] == b
	if cur {
		delete(s.returns, org)
	}
	s.retMu.Unlock()
	if cur {
		s.send(b)
	}
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

// send returns a batch of countersignatures to the callee's gateway: a
// respond from this gateway to its gateway, re the first reply's id,
// sealed in the session the last reply came in (or, if that one has
// ended, in a session with the peer) and posted, as a late reply is.
func (s *Receipts) send(b *returnBatch) {
	ps := b.ps
	ctx, cancel := context.WithTimeout(s.cfg.Base, 10*time.Second)
	defer cancel()
	m := &wire.Message{V: wire.Version, ID: pipeline.NewMessageID(s.cfg.Rand), TS: s.cfg.Now().UnixMilli(), Op: wire.OpRespond, Re: b.re,
		From: s.cfg.Self.Sender(), To: wire.Ref{Agent: pipeline.GatewayAgent, Org: ps.Peer().Org}, Cls: wire.Pub,
		Payload: &wire.RespondPayload{Status: "success", Data: wire.ObjectValue()},
		Ext: wire.ObjectValue(wire.Member{Key: ExtCountersigned,
			Value: wire.ObjectValue(wire.Member{Key: "receipts", Value: wire.ArrayValue(b.sigs...)})})}
	var (
		body []byte
		err  error
	)
	if b.sess != nil {
		body, err = b.sess.SignAndSeal(m, s.cfg.Self.Signing)
	}
	if b.sess == nil || err != nil {
		var sess *handshake.Session
		if sess, err = ps.Session(ctx); err == nil {
			body, err = sess.SignAndSeal(m, s.cfg.Self.Signing)
		}
	}
	if err == nil {
		resp, perr := ps.Post(ctx, body)
		if err = perr; err == nil {
			resp.Body.Close()
			return
		}
	}
	s.cfg.Log.Warn("countersigned receipts not returned", "peer", ps.Peer().Org, "receipts", len(b.sigs), "err", err.Error())
}

// Take is the callee's half: a respond from a peer's gateway to one of
// this gateway's replies, carrying the receipt it signed countersigned.
// It reports whether m was that.
func (s *Receipts) Take(m *wire.Message) bool {
	if s == nil || m.Op != wire.OpRespond || m.From.Agent != pipeline.GatewayAgent {
		return false
	}
	if v := m.Ext.Get(ExtCountersigned); !v.IsAbsent() {
		s.takeBatch(m, v)
		return true
	}
	v := m.Ext.Get(ExtReceipt)
	if v.IsAbsent() {
		return false
	}
	mine, ok := s.awaited.Peek(m.Re)
	if !ok {
		return false
	}
	got, err := receipt.Parse(wire.AppendCanonical(nil, v))
	if err == nil && orgOf(got.Caller) != m.From.Org {
		err = &receipt.Error{Field: "caller", Reason: "is not of the organisation that countersigned"}
	}
	if err == nil {
		// Only the countersignature is the caller's: everything else
		// is what this gateway signed, so only it needs checking.
		c := *mine
		c.CallerSig = got.CallerSig
		if err = c.VerifyCallerUsing(s.cfg.Verifier, s.cfg.KeyOf); err == nil {
			s.awaited.Remove(m.Re)
			s.keep(&c)
			return true
		}
	}
	s.cfg.Log.Warn("countersigned receipt refused", "peer", m.From.Org, "message_id", m.Re, "err", err.Error())
	return true
}

// countersigned is one countersignature of ExtCountersigned.
type countersigned struct {
	ReplyID   string         `json:"reply_id"`
	CallerSig keys.Signature `json:"caller_sig"`
}

// takeBatch keeps each receipt of m's list whose countersignature, by m's
// organisation, holds over the receipt this gateway signed; the others
// are logged, once for the list.
func (s *Receipts) takeBatch(m *wire.Message, v wire.Value) {
	var list []countersigned
	err := wire.Bind(v.Get("receipts"), &list, ExtCountersigned+".receipts")
	if err == nil && len(list) > receiptsAwaited {
		err = wire.Errorf(wire.ErrInvalidParam, ExtCountersigned, "%d countersignatures; at most %d", len(list), receiptsAwaited)
	}
	if err != nil {
		s.cfg.Log.Warn("countersigned receipts refused", "peer", m.From.Org, "message_id", m.ID, "err", err.Error())
		return
	}
	bad, unknown := 0, 0
	var last error
	for _, c := range list {
		mine, ok := s.awaited.Peek(c.ReplyID)
		if !ok {
			unknown++
			continue
		}
		rc := *mine
		rc.CallerSig = c.CallerSig
		err := error(&receipt.Error{Field: "caller", Reason: "is not of the organisation that countersigned"})
		if orgOf(rc.Caller) == m.From.Org {
			err = rc.VerifyCallerUsing(s.cfg.Verifier, s.cfg.KeyOf)
		}
		if err != nil {
			bad, last = bad+1, err
			continue
		}
		s.awaited.Remove(c.ReplyID)
		s.keep(&rc)
	}
	if bad > 0 {
		s.cfg.Log.Warn("countersigned receipts refused", "peer", m.From.Org, "message_id", m.ID, "refused", bad, "err", last.Error())
	}
	if unknown > 0 {
		s.cfg.Log.Debug("countersignatures for receipts not awaited", "peer", m.From.Org, "message_id", m.ID, "count", unknown)
	}
}

// keep appends a doubly signed receipt to the ledger.
func (s *Receipts) keep(rc *receipt.Receipt) {
	a := s.cfg.Trail
	if a == nil {
		return
	}
	b, err := rc.Marshal()
	if err != nil {
		return
	}
	ev, err := a.ev.NewEvent(audit.TypeReceipt, rc.RequestID, json.RawMessage(b))
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

// Replies takes the countersigned receipts that come back among the
// replies to this gateway's own calls, and hands the rest to Next.
type Replies struct {
	Receipts *Receipts
	Next     pipeline.Replies
}

// Deliver implements pipeline.Replies.
func (r Replies) Deliver(m *wire.Message, sess *handshake.Session, sealed bool) bool {
	return r.Receipts.Take(m) || r.Next.Deliver(m, sess, sealed)
}
