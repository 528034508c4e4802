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
// the receipt it signed in its reply, and the caller's gateway sends it
// back countersigned, in a respond whose re is the reply's id.
const ExtReceipt = "moltgate.receipt"

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
}

// NewReceipts starts the exchange where the ledger's chain of receipts
// this gateway signed as callee ends, so that it goes on across restarts.
func NewReceipts(ctx context.Context, cfg ReceiptsConfig) *Receipts {
	c, _ := lru.New[string, *receipt.Receipt](receiptsAwaited)
	return &Receipts{cfg: cfg, prev: lastReceipt(ctx, cfg.Trail.l, cfg.Self.Ref.Org), awaited: c}
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
// sends it back to the callee's gateway. A reply without a receipt, or
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
		err = rc.VerifyCallee(s.cfg.KeyOf)
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
	s.cfg.Go(func() { s.send(ps, r, rc, sess) })
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

// send returns the countersigned receipt to the callee's gateway: a
// respond to the reply, from this gateway, sealed in the session the reply
// came in (or, for a reply outside one, in a session with the peer) and
// posted, as a late reply is.
func (s *Receipts) send(ps *peers.Remote, r *wire.Message, rc *receipt.Receipt, sess *handshake.Session) {
	v, err := receiptValue(rc)
	if err != nil {
		return
	}
	ctx, cancel := context.WithTimeout(s.cfg.Base, 10*time.Second)
	defer cancel()
	m := &wire.Message{V: wire.Version, ID: pipeline.NewMessageID(s.cfg.Rand), TS: s.cfg.Now().UnixMilli(), Op: wire.OpRespond, Re: r.ID,
		From: s.cfg.Self.Sender(), To: r.From.Ref(), Cls: wire.Pub, Payload: &wire.RespondPayload{Status: "success", Data: wire.ObjectValue()},
		Ext: wire.ObjectValue(wire.Member{Key: ExtReceipt, Value: v})}
	if sess == nil {
		sess, err = ps.Session(ctx)
	}
	if err == nil {
		var body []byte
		if body, err = sess.SignAndSeal(m, s.cfg.Self.Signing); err == nil {
			resp, perr := ps.Post(ctx, body)
			if err = perr; err == nil {
				resp.Body.Close()
				return
			}
		}
	}
	s.cfg.Log.Warn("countersigned receipt not returned", "peer", ps.Peer().Org, "message_id", r.ID, "err", err.Error())
}

// Take is the callee's half: a respond from a peer's gateway to one of
// this gateway's replies, carrying the receipt it signed countersigned.
// It reports whether m was that.
func (s *Receipts) Take(m *wire.Message) bool {
	if s == nil || m.Op != wire.OpRespond || m.From.Agent != pipeline.GatewayAgent {
		return false
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
		if err = c.VerifyCaller(s.cfg.KeyOf); err == nil {
			s.awaited.Remove(m.Re)
			s.keep(&c)
			return true
		}
	}
	s.cfg.Log.Warn("countersigned receipt refused", "peer", m.From.Org, "message_id", m.Re, "err", err.Error())
	return true
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
