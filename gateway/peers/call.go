package peers

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/moltgate/moltgate/gateway/face/frames"
	"github.com/moltgate/moltgate/gateway/pipeline"
	"github.com/moltgate/moltgate/handshake"
	"github.com/moltgate/moltgate/keys"
	"github.com/moltgate/moltgate/wire"
)

// Send passes m, signed with sk, through the gate outbound and sends it to
// the gateway of its organisation, passing each message of the reply to
// onMsg, stream chunks first, until onMsg says it is done or the final one
// (respond, pong or error) came.
func (t *Table) Send(ctx context.Context, m *wire.Message, sk keys.Ed25519Private, onMsg func(*wire.Message) (done bool, err error)) error {
	ps, err := t.For(m.To.Org)
	if err != nil {
		return err
	}
	return t.SendVia(ctx, ps, m, sk, onMsg)
}

// For is the peer of org, for a message a local caller sends there: an
// org that is not a peer is E_AGENT_NOT_FOUND, naming the way out.
func (t *Table) For(org string) (*Remote, error) {
	ps := t.Get(org)
	if ps == nil {
		return nil, wire.Errorf(wire.ErrAgentNotFound, "to.org", "%s is not a peer of this gateway (import it with moltgate peer import)", org)
	}
	return ps, nil
}

// SendVia is Send to ps: every message for a peer goes this way, whoever
// it speaks for.
func (t *Table) SendVia(ctx context.Context, ps *Remote, m *wire.Message, sk keys.Ed25519Private, onMsg func(*wire.Message) (done bool, err error)) (err error) {
	if t.cfg.Trace != nil {
		var end func(error)
		ctx, end = t.cfg.Trace(ctx, m)
		defer func() { end(err) }()
	}
	tree, err := t.prepareOutbound(ctx, m)
	if err != nil {
		return err
	}
	sess, _ := t.cfg.Sessions.Peer(ps.ref)
	if err := t.cfg.Gate.Outbound(ctx, m, tree, m.To.Org, sess); err != nil {
		return err
	}
	err = ps.call(ctx, t.cfg.Transport(), m, sk, onMsg)
	// A peer imported again meanwhile (its key rotated under a handover,
	// a new pin, an operator's peer import) has a new Remote: the call
	// goes on under what is trusted now, never under what was, and a
	// peer removed fails it. Twice at most, since each import has ended
	// the sessions the call was on.
	for tries := 0; tries < 2; tries++ {
		var re *replacedError
		if err == nil || !errors.As(err, &re) {
			return err
		}
		next := t.Get(ps.p.Org)
		if next == nil || next == ps {
			return err
		}
		ps = next
		m.Sig = keys.Signature{}
		err = ps.call(ctx, t.cfg.Transport(), m, sk, onMsg)
	}
	return err
}

// CallAsGateway is SendVia for a message the gateway sends in its own
// name, from and signed by Config.Self as it is now, under RequestTimeout
// if ctx has no deadline.
func (t *Table) CallAsGateway(ctx context.Context, ps *Remote, m *wire.Message, onMsg func(*wire.Message) (done bool, err error)) error {
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, t.cfg.RequestTimeout())
		defer cancel()
	}
	// What the gateway sends in its own name may still carry a local
	// caller's text (a discovery query's requirements): the same gate.
	self := t.cfg.Self.Current()
	m.From = self.Sender()
	return t.SendVia(ctx, ps, m, self.Signing, onMsg)
}

// prepareOutbound gives a message for a peer the caller's deadline as its
// exp, then checks it and returns its tree. The deadline goes in first, so
// that the message checked, gated and signed is one and the same: signing
// finds it checked.
func (t *Table) prepareOutbound(ctx context.Context, m *wire.Message) (wire.Value, error) {
	if d, ok := ctx.Deadline(); ok && m.Exp == 0 {
		// A call whose deadline passed before it could be sent is the
		// caller's timeout, not a message the peer would refuse for
		// expiring before it was sent.
		left := time.Until(d)
		if left <= 0 {
			return wire.Value{}, wire.Errorf(wire.ErrTimeout, "", "the call's deadline passed before it could be sent to %s", m.To.Org)
		}
		// exp is on the gateway's clock, as ts is; the deadline on the
		// process's.
		m.Exp = t.now().Add(left).UnixMilli()
	}
	return t.cfg.Codec.CheckTree(m)
}

// call sends m, signed with sk, to the peer and passes each message of the
// reply to onMsg, stream chunks first, until the final one (respond, pong
// or error). A failed attempt is sent again as the peer's Policy says for
// its OSSA class: any operation when the peer cannot have acted on it (a
// rate limit, a session it no longer knows), otherwise only idempotent
// ones, and never past ctx's deadline. m has been through prepareOutbound.
func (ps *Remote) call(ctx context.Context, transport string, m *wire.Message, sk keys.Ed25519Private, onMsg func(*wire.Message) (done bool, err error)) error {
	s := ps.t
	idem := idempotent(m)
	var retried map[wire.OSSACode]int
	var last error
	for {
		if !ps.current() {
			// Not retried: another attempt would go to what was trusted
			// when the call began.
			return ps.notCurrent()
		}
		if err := ps.pinError(); err != nil {
			return err
		}
		if ok, wait := ps.br.allow(); !ok {
			// CIRCUIT_OPEN: fall back at once, with the time to wait.
			return pipeline.WithRetry(wire.Errorf(wire.ErrPeerUnavailable, "", "peer %s is failing; calls paused", ps.p.Org), wait)
		}
		err := ps.callOnce(ctx, transport, m, sk, onMsg)
		if perr := ps.pinError(); err != nil && perr != nil {
			// Not a passing fault: nothing is retried until the peer is
			// imported again.
			ps.br.record(false)
			return perr
		}
		f, known := classify(err)
		rule := ps.pol.Rules[f.class]
		if errors.As(err, new(lossCounted)) {
			ps.br.unrecorded()
		} else {
			ps.br.record(err == nil || !known || !rule.Breaker)
		}
		if err == nil {
			return nil
		}
		last = err
		if !known || (!f.safe && !idem) || retried[f.class] >= rule.Retries || ctx.Err() != nil {
			break
		}
		wait, ok := rule.wait(retried[f.class], f.retryAfter)
		if d, has := ctx.Deadline(); !ok || (has && time.Until(d) <= wait) {
			break // the wait is the caller's, or would outlast its deadline
		}
		if retried == nil {
			retried = make(map[wire.OSSACode]int, 2)
		}
		retried[f.class]++
		// A failure to renew for has ended the session it was sent in
		// (spent), and the same message goes again in a new one: the
		// peer did not open it, so it did not note its id.
		if !f.renew {
			// A retry is a new message: the peer remembers ids.
			m.ID = pipeline.NewMessageID(s.cfg.Rand)
		}
		m.Sig = keys.Signature{}
		if wait > 0 {
			t := time.NewTimer(wait)
			select {
			case <-t.C:
			case <-ctx.Done():
				t.Stop()
				return pipeline.AsWire(ctx.Err())
			}
		}
	}
	if errors.Is(last, errTransport) {
		return wire.Errorf(wire.ErrPeerUnavailable, "", "peer %s: %v", ps.p.Org, last)
	}
	return last
}

var errTransport = errors.New("transport failure")

func idempotent(m *wire.Message) bool {
	switch m.Op {
	case wire.OpPing, wire.OpDiscover, wire.OpQuery:
		return true
	case wire.OpTask:
		p, _ := m.Payload.(*wire.TaskPayload)
		return p != nil && p.Action == "status"
	}
	return false
}

// spent ends what an attempt was sent in when the peer answered that it no
// longer knows it (a failure to renew for, see classify): the session
// sess, and conn, the stream connection it was made on, if any. The call
// then goes again in a new session (the peer did not open it, so it
// cannot have acted on it). Only these: the peer's newest session with
// this gateway may be another, made meanwhile by another call or by the
// peer dialling this gateway, and the stream slot may hold a new
// connection another call resent on; the calls in those go on. A failure
// to renew for that comes before any session was used (a handshake the
// peer refused) has nothing to end.
func (ps *Remote) spent(err error, sess *handshake.Session, conn *pooled) error {
	if f, _ := classify(err); !f.renew || errors.As(err, new(sessionGone)) {
		return err
	}
	ps.t.cfg.Sessions.Remove(sess.ID())
	if conn != nil {
		conn.close()
	}
	return sessionGone{err}
}

func (ps *Remote) callOnce(ctx context.Context, transport string, m *wire.Message, sk keys.Ed25519Private, onMsg func(*wire.Message) (bool, error)) error {
	switch transport {
	case TransportWebSocket:
		return ps.callWS(ctx, m, sk, onMsg)
	case TransportGRPC:
		return ps.callGRPC(ctx, m, sk, onMsg)
	}
	return ps.callHTTP(ctx, m, sk, onMsg)
}

// callHTTP posts the message sealed in the session and reads the reply as
// newline-separated envelopes. A 202 means the reply will be delivered to
// this gateway later; it is then awaited among the pending calls.
func (ps *Remote) callHTTP(ctx context.Context, m *wire.Message, sk keys.Ed25519Private, onMsg func(*wire.Message) (bool, error)) error {
	sess, err := ps.session(ctx)
	if err != nil {
		return err
	}
	return ps.spent(ps.postIn(ctx, sess, m, sk, onMsg), sess, nil)
}

// postIn is callHTTP in sess.
func (ps *Remote) postIn(ctx context.Context, sess *handshake.Session, m *wire.Message, sk keys.Ed25519Private, onMsg func(*wire.Message) (bool, error)) error {
	m.Sig = keys.Signature{}
	body, err := sess.SignAndSeal(m, sk)
	if err != nil {
		return notSent(err)
	}
	deadline, _ := ctx.Deadline()
	pc, done := ps.t.pending.wait(m.ID, deadline)
	defer done()
	resp, err := ps.post(ctx, body, frames.ContentNDJSON)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusAccepted {
		return ps.t.awaitStream(ctx, ps, m, pc, nil, onMsg)
	}
	br := bufio.NewReaderSize(resp.Body, 64<<10)
	limit := ps.t.cfg.EnvelopeLimit()
	for {
		line, err := readLine(br, limit)
		if err == io.EOF {
			return wire.Errorf(wire.ErrPeerUnavailable, "", "peer %s ended its reply early", ps.p.Org)
		}
		if err != nil {
			return fmt.Errorf("%w: %v", errTransport, err)
		}
		if len(line) == 0 {
			continue
		}
		d, err := ps.t.openFrame(ps, line)
		if err != nil {
			return err
		}
		if d.m.Re == "" && d.m.Op == wire.OpError {
			// The peer could not open the request (it no longer knows
			// the session, say), so its error names no message; on this
			// exchange it can only be about this one.
			if p, ok := d.m.Payload.(*wire.ErrorPayload); ok {
				err := p.Err()
				if pipeline.Code(err) == wire.ErrSessionExpired {
					// This session goes, and the call is sent again in a
					// new one. Only this one: another call may have made
					// a new session meanwhile.
					ps.t.cfg.Sessions.Remove(sess.ID())
					return sessionGone{err}
				}
				return answered{err}
			}
		}
		if d.m.Re != m.ID {
			continue
		}
		if !ps.t.addressedTo(ps, m, d) {
			continue
		}
		r, err := ps.t.checkReply(ctx, ps, m, d)
		if err != nil {
			return err
		}
		if fin, err := onMsg(r); err != nil || fin {
			return err
		}
	}
}

// readLine reads one line of at most limit bytes.
func readLine(br *bufio.Reader, limit int) ([]byte, error) {
	var out []byte
	for {
		chunk, err := br.ReadSlice('\n')
		out = append(out, chunk...)
		if len(out) > limit {
			return nil, errors.New("reply line too long")
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if err != nil {
			if err == io.EOF && len(out) > 0 {
				return bytes.TrimSpace(out), nil
			}
			return nil, err
		}
		return bytes.TrimSpace(out), nil
	}
}

// awaitStream waits for the replies of a call: they arrive among the
// pending calls from a stream connection's reader, or from the pipeline
// when the peer delivers them later. dead, if not nil, closes when the
