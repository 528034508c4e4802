package trail

import (
	"context"
	"sync"
	"time"

	"github.com/moltgate/moltgate/gateway/peers"
	"github.com/moltgate/moltgate/gateway/pipeline"
	"github.com/moltgate/moltgate/handshake"
	"github.com/moltgate/moltgate/identity"
	"github.com/moltgate/moltgate/wire"
)

// How a signed batch reaches the other side's gateway: on a message
// already going there (a reply to its agent's call, a call to one of its
// agents) when one leaves within a window of the signature, and otherwise
// in a message of its own. A busy exchange then sends no message for its
// receipts at all.

// outbox holds the signed batches waiting for a message to a peer's
// gateway, by organisation, oldest first.
type outbox struct {
	mu      sync.Mutex
	waiting map[string][]*signed
}

// signed is one side's signed batch, as ext member ExtReceipts, and what
// sends it alone.
type signed struct {
	b *batch
	v wire.Value
}

// put queues sb for org's next message, and has it sent alone if none has
// taken it a window later.
func (s *Receipts) put(org string, sb *signed) {
	s.out.mu.Lock()
	s.out.waiting[org] = append(s.out.waiting[org], sb)
	s.out.mu.Unlock()
	s.cfg.Go(func() {
		t := time.NewTimer(s.cfg.Window)
		defer t.Stop()
		select {
		case <-t.C:
		case <-s.cfg.Base.Done():
		}
		if s.unput(org, sb) {
			s.send(sb)
		}
	})
}

// unput takes sb out of org's queue, and reports whether it was there.
func (s *Receipts) unput(org string, sb *signed) bool {
	s.out.mu.Lock()
	defer s.out.mu.Unlock()
	q := s.out.waiting[org]
	for i, x := range q {
		if x == sb {
			q = append(q[:i], q[i+1:]...)
			if len(q) == 0 {
				delete(s.out.waiting, org)
			} else {
				s.out.waiting[org] = q
			}
			return true
		}
	}
	return false
}

// carry puts the oldest batch waiting for org's gateway in m's ext, and
// returns it (nil if none was waiting). m is not signed yet.
func (s *Receipts) carry(org string, m *wire.Message) *signed {
	s.out.mu.Lock()
	q := s.out.waiting[org]
	if len(q) == 0 {
		s.out.mu.Unlock()
		return nil
	}
	sb := q[0]
	if len(q) == 1 {
		delete(s.out.waiting, org)
	} else {
		s.out.waiting[org] = q[1:]
	}
	s.out.mu.Unlock()
	if m.Ext.IsAbsent() {
		m.Ext = wire.ObjectValue()
	}
	m.Ext = m.Ext.With(ExtReceipts, sb.v)
	return sb
}

// Outgoing is told of each message for a peer's gateway before it is
// checked and signed: a signed batch waiting for that gateway rides on it,
// and the digest of its signed bytes is kept for the receipt of its reply
// (wire.Message.SignedDigest). The func it returns is told how the call
// ended: a batch whose carrier may not have arrived goes again alone (the
// other side takes a batch twice as once). A nil *Receipts does nothing.
func (s *Receipts) Outgoing(m *wire.Message) func(error) {
	if s == nil {
		return func(error) {}
	}
	if m.Op != wire.OpRespond && m.Op != wire.OpError {
		m.SignedDigest = new([32]byte)
	} else if m.From.Agent == pipeline.GatewayAgent {
		// A respond from gateway to gateway is what carries a batch
		// alone: it would be taken for one.
		return func(error) {}
	}
	sb := s.carry(m.To.Org, m)
	if sb == nil {
		return func(error) {}
	}
	return func(err error) {
		if err != nil {
			s.cfg.Go(func() { s.send(sb) })
		}
	}
}

// PeerCalls is what the table of peers is told of each message for a peer
// (peers.Config.Trace): its span and counts (Spans.PeerCall), and the
// receipts' part (Receipts.Outgoing).
func PeerCalls(sp *Spans, rs *Receipts) func(ctx context.Context, m *wire.Message) (context.Context, func(error)) {
	if rs == nil {
		return sp.PeerCall
	}
	return func(ctx context.Context, m *wire.Message) (context.Context, func(error)) {
		carried := rs.Outgoing(m)
		ctx, end := sp.PeerCall(ctx, m)
		return ctx, func(err error) {
			carried(err)
			end(err)
		}
	}
}

// send carries a signed batch alone to the peer of its receipts: a
// respond from this gateway to its gateway, re the batch's first reply, in
// the session of the last exchange, as a late reply is.
func (s *Receipts) send(sb *signed) {
	b := sb.b
	ctx, cancel := context.WithTimeout(s.cfg.Base, 10*time.Second)
	defer cancel()
	m := &wire.Message{V: wire.Version, ID: pipeline.NewMessageID(s.cfg.Rand), TS: s.cfg.Now().UnixMilli(), Op: wire.OpRespond,
		Re: b.items[0].rc.ReplyID, From: s.cfg.Self.Current().Sender(), To: wire.Ref{Agent: pipeline.GatewayAgent, Org: b.ps.Org()}, Cls: wire.Pub,
		Payload: &wire.RespondPayload{Status: "success", Data: wire.ObjectValue()},
		Ext:     wire.ObjectValue(wire.Member{Key: ExtReceipts, Value: sb.v})}
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
