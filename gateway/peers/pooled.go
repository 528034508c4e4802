package peers

import (
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"github.com/moltgate/moltgate/gateway/pipeline"
	"github.com/moltgate/moltgate/handshake"
	"github.com/moltgate/moltgate/keys"
	"github.com/moltgate/moltgate/wire"
)

// retireGrace bounds how long a retired stream connection stays open for
// the calls still on it.
const retireGrace = time.Minute

// pooled is what a peer's stream connection (WebSocket or gRPC) keeps
// besides its socket: the session its handshake made, a channel closed when
// it ends, and the calls on it. A connection whose session is worn or
// running out is retired: new calls go to a new connection with a new
// session, and the old one closes when its last call is done (at the
// latest after retireGrace), so renewing a session fails no call.
type pooled struct {
	sess *handshake.Session
	dead chan struct{}
	shut func() // closes the socket; called once
	once sync.Once

	mu      sync.Mutex
	calls   int
	retired bool

	lossCounted atomic.Bool // a call has told the breaker of this connection's end
	// expired: the peer ended the connection's session (it answered
	// E_SESSION_EXPIRED to something sent on it, naming no message), so
	// what was in flight on it was not acted on and may be sent again.
	expired atomic.Bool
}

func newPooled(sess *handshake.Session, shut func()) *pooled {
	return &pooled{sess: sess, dead: make(chan struct{}), shut: shut}
}

func (p *pooled) close() {
	p.once.Do(func() {
		close(p.dead)
		p.shut()
	})
}

func (p *pooled) isDead() bool {
	select {
	case <-p.dead:
		return true
	default:
		return false
	}
}

// acquire counts a call on the connection; release ends it.
func (p *pooled) acquire() {
	p.mu.Lock()
	p.calls++
	p.mu.Unlock()
}

func (p *pooled) release() {
	p.mu.Lock()
	p.calls--
	last := p.retired && p.calls == 0
	p.mu.Unlock()
	if last {
		p.close()
	}
}

// retire takes the connection out of use: it closes now if no call is on
// it, else when the last one is released or after retireGrace.
func (p *pooled) retire() {
	p.mu.Lock()
	if p.retired {
		p.mu.Unlock()
		return
	}
	p.retired = true
	idle := p.calls == 0
	p.mu.Unlock()
	if idle {
		p.close()
		return
	}
	time.AfterFunc(retireGrace, p.close)
}

// sessionDue tells a stream slot whether a session should be replaced
// before its next call (it has carried half its bytes, has less than a
// minute left, or was made under an org key this gateway has since
// rotated away from), and if so whether it may still take calls while a
// new one is made (less than three quarters of its bytes carried, and more
// than ten seconds left).
func (ps *Remote) sessionDue(sess *handshake.Session) (renew, room bool) {
	now := ps.t.now()
	renew = sess.Worn() || !sess.Expires().After(now.Add(time.Minute)) || ps.t.rotatedFrom(sess) || ps.handedFrom(sess, now)
	room = sess.Wear() < 0.75 && sess.Expires().After(now.Add(10*time.Second))
	return renew, room
}

// lossCounted marks a call's failure on a connection whose loss the breaker
// has already been told of by another call on it: one lost connection is
// one failure of the peer, however many calls it carried.
type lossCounted struct{ error }

func (e lossCounted) Unwrap() error { return e.error }

// sessionGone is E_SESSION_EXPIRED for a call on a connection whose
// session the peer ended: the connection is closed already, and took its
// session with it, so the call only needs sending again.
type sessionGone struct{ error }

func (e sessionGone) Unwrap() error { return e.error }

func errSessionGone() error {
	return sessionGone{wire.Errorf(wire.ErrSessionExpired, "", "the peer no longer knows the connection's session")}
}

// notSent is the error of a call that could not be sealed in the session
// it took. A session that ended meanwhile (its connection died, or another
// call found the peer had forgotten it) makes the call one to send again in
// a new session, as nothing was sent: not a reason to drop the session the
// peer has now, which another call may just have made.
func notSent(err error) error {
	if pipeline.Code(err) == wire.ErrSessionExpired {
		return sessionGone{err}
	}
	return err
}

// lost returns err, marked as lossCounted unless this is the first call to
// report the end of the connection.
func (p *pooled) lost(err error) error {
	if err == nil || !p.isDead() || pipeline.Code(err) != wire.ErrPeerUnavailable {
		return err
	}
	if p.expired.Load() {
		// Not a loss of the peer: it could not open the call, so did not
		// act on it, and the call goes again in a new session.
		return errSessionGone()
	}
	if p.lossCounted.CompareAndSwap(false, true) {
		return err
	}
	return lossCounted{err}
}

// writeFailed closes the connection a call could not be written on and
// returns the call's error: a transport failure, unless the connection
// was closed because the peer ended its session, when the call was never
// sent and only needs sending again.
func (p *pooled) writeFailed(err error) error {
	p.close()
	if p.expired.Load() {
		return errSessionGone()
	}
	return errors.Join(errTransport, err)
}

// handedRenewEvery bounds how often a session under a key the peer handed
// over from is renewed: the peer presents its new key once it has had the
// handover pushed (within a minute), and until then a renewal makes a
// session under the old key again.
const handedRenewEvery = 5 * time.Second

// handedFrom reports whether sess was made under an org key of the peer
// older than the newest it handed over to, and it is time to try a new
// session: the calls on sess go on while one is made, and none is left
// on it when the overlap ends and the old key is refused.
func (ps *Remote) handedFrom(sess *handshake.Session, now time.Time) bool {
	if ps.t.cfg.PeerKeys == nil {
		return false
	}
	newest, _ := ps.t.cfg.PeerKeys(ps.p.Org)
	if newest.IsZero() || sess.Peer().Key.Equal(newest) {
		return false
	}
	last := ps.handedAt.Load()
	if now.UnixNano()-last < int64(handedRenewEvery) {
		return false
	}
	return ps.handedAt.CompareAndSwap(last, now.UnixNano())
}

// accepts reports whether key is an org key accepted for the peer now.
func (ps *Remote) accepts(key keys.Ed25519Public) bool {
	if ps.t.cfg.PeerKeys == nil {
		return key.Equal(ps.p.OrgKey)
	}
	_, accepted := ps.t.cfg.PeerKeys(ps.p.Org)
	if accepted == nil {
		return key.Equal(ps.p.OrgKey)
	}
	for _, k := range accepted {
		if k.Equal(key) {
			return true
		}
	}
	return false
}

// rotatedFrom reports whether sess was made under another org key than the
// one this gateway signs with now: its calls go on in it, under the old key
// the overlap keeps good, while new ones move to a session under the new.
func (t *Table) rotatedFrom(sess *handshake.Session) bool {
	me := sess.Self()
	return me != nil && !me.Signing.Public().Equal(t.cfg.Self.Current().Signing.Public())
}
