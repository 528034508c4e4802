package peers

import (
	"context"
	"sync"
	"time"

	"github.com/moltgate/moltgate/handshake"
)

const (
	// renewRetry is how long after a failed renewal in the background the
	// next one may start; meanwhile calls stay on the worn session.
	renewRetry = time.Second
	// renewTimeout bounds a renewal in the background, dial and handshake.
	renewTimeout = 30 * time.Second
)

// pooledConn is a peer's stream connection: a WebSocket or a gRPC stream.
type pooledConn interface{ base() *pooled }

func (w *wsClient) base() *pooled   { return w.pooled }
func (g *grpcClient) base() *pooled { return g.pooled }

// slotPolicy is what a streamSlot needs of its peer.
type slotPolicy struct {
	// due tells whether a session should be renewed, and if so whether it
	// may still take calls meanwhile.
	due func(*handshake.Session) (renew, room bool)
	now func() time.Time
	// base ends renewals in the background (at shutdown).
	base context.Context
	// renewed is told of each renewal: "background", "waited" (calls
	// waited for a new connection in place of one that had been in use)
	// or "failed" (a renewal in the background, with its error).
	renewed func(way string, err error)
}

// streamSlot holds a peer's stream connection of one transport. A session
// due for renewal is replaced in the background while calls go on over it:
// it still has half its bytes, so a new connection and handshake are made
// while it carries the calls that come meanwhile. Renewing in line held
// every call to the peer for the length of a TLS and a MoltSpeak handshake
// (milliseconds on loopback under load; several round trips across a
// wide-area link), every few seconds on a busy link. Only a
// session that is nearly used up or about to expire, or a connection that
// died, makes callers wait for a new one.
type streamSlot[C pooledConn] struct {
	mu       sync.Mutex
	cur      C
	has      bool
	gen      uint64 // changes whenever cur is replaced or dropped
	renewing bool
	failed   time.Time // when the last renewal in the background failed
}

// get returns the connection with a call counted on it, dialling one with
// dial if there is none or if the one there can carry no more calls.
func (sl *streamSlot[C]) get(ctx context.Context, pol *slotPolicy, dial func(context.Context) (C, error)) (C, error) {
	sl.mu.Lock()
	defer sl.mu.Unlock()
	replacing := false
	if sl.has {
		p := sl.cur.base()
		renew, room := pol.due(p.sess)
		switch {
		case p.isDead():
		case !renew:
			p.acquire()
			return sl.cur, nil
		case room:
			if !sl.renewing && pol.now().Sub(sl.failed) >= renewRetry {
				sl.renewing = true
				go sl.renew(pol, dial, sl.gen)
			}
			p.acquire()
			return sl.cur, nil
		default:
			p.retire()
		}
		sl.drop()
		replacing = true
	}
	c, err := dial(ctx)
	if err != nil {
		var zero C
		return zero, err
	}
	c.base().acquire()
	sl.cur, sl.has = c, true
	sl.gen++
	if replacing {
		pol.renewed("waited", nil)
	}
	return c, nil
}

// renew makes a new connection for the one the slot held at generation gen
// and puts it in its place, retiring the old one: it closes when its calls
// are done.
func (sl *streamSlot[C]) renew(pol *slotPolicy, dial func(context.Context) (C, error), gen uint64) {
	ctx, cancel := context.WithTimeout(pol.base, renewTimeout)
	defer cancel()
	c, err := dial(ctx)
	sl.mu.Lock()
	defer sl.mu.Unlock()
	sl.renewing = false
	if err != nil {
		sl.failed = pol.now()
		if pol.base.Err() == nil { // not merely cut short by shutdown
			pol.renewed("failed", err)
		}
		return
	}
	if sl.gen != gen {
		// The slot was emptied or refilled meanwhile.
		c.base().close()
		return
	}
	if sl.has {
		sl.cur.base().retire()
	}
	sl.cur, sl.has = c, true
	sl.gen++
	pol.renewed("background", nil)
}

// close closes the connection, with the calls on it.
func (sl *streamSlot[C]) close() {
	sl.mu.Lock()
	defer sl.mu.Unlock()
	if sl.has {
		sl.cur.base().close()
	}
	sl.drop()
}

func (sl *streamSlot[C]) drop() {
	var zero C
	sl.cur, sl.has = zero, false
	sl.gen++
}
