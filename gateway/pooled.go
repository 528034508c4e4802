package gateway

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/moltgate/moltgate/handshake"
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

// renewDue reports whether a session should be replaced before its next
// call: it has carried half its bytes, or has less than a minute left.
func (ps *peerState) renewDue(sess *handshake.Session) bool {
	return sess.Worn() || !sess.Expires().After(ps.s.now().Add(time.Minute))
}

// reuse reports whether a pooled connection may carry another call, and
// retires it if its session is due for renewal. The caller holds the lock
// that guards the pool's slot.
func (ps *peerState) reuse(p *pooled) bool {
	if p.isDead() {
		return false
	}
	if ps.renewDue(p.sess) {
		p.retire()
		return false
	}
	return true
}

// lossCounted marks a call's failure on a connection whose loss the breaker
// has already been told of by another call on it: one lost connection is
// one failure of the peer, however many calls it carried.
type lossCounted struct{ error }

func (e lossCounted) Unwrap() error { return e.error }

// lost returns err, marked as lossCounted unless this is the first call to
// report the end of the connection.
func (p *pooled) lost(err error) error {
	if err == nil || !p.isDead() || code(err) != wire.ErrPeerUnavailable {
		return err
	}
	if p.lossCounted.CompareAndSwap(false, true) {
		return err
	}
	return lossCounted{err}
}
