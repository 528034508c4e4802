package gateway

import (
	"sync"
	"time"
)

// replyBuffer is how many replies (stream chunks, mostly) wait for a call
// that has not yet taken them before delivery waits for it.
const replyBuffer = 64

// stallLimit is how long the delivery of a reply waits for a call that
// does not take it. Replies of every call on a connection come through one
// reader, so a stuck caller holds up the others; past this it is abandoned,
// and the others go on.
const stallLimit = 2 * time.Second

// pendingCalls are this gateway's outbound calls waiting for replies, by
// the id of the request.
type pendingCalls struct {
	mu sync.Mutex
	m  map[string]*pendingCall
}

func newPendingCalls() *pendingCalls { return &pendingCalls{m: map[string]*pendingCall{}} }

// pendingCall is one call's end of the delivery: its replies, in order,
// and the signal that it fell so far behind that delivery gave up on it.
type pendingCall struct {
	replies chan delivered
	ended   chan struct{} // closed by done: nobody takes replies any more
	overrun chan struct{} // closed when a reply could not be handed over in stallLimit
	once    sync.Once
}

// wait registers a call; its replies arrive on pc.replies until done.
func (p *pendingCalls) wait(id string) (pc *pendingCall, done func()) {
	pc = &pendingCall{replies: make(chan delivered, replyBuffer), ended: make(chan struct{}), overrun: make(chan struct{})}
	p.mu.Lock()
	p.m[id] = pc
	p.mu.Unlock()
	return pc, func() {
		p.mu.Lock()
		delete(p.m, id)
		p.mu.Unlock()
		close(pc.ended)
	}
}

// deliverTo hands a reply to the call it answers, in order. When the call
// has replyBuffer replies it has not taken, delivery waits for it: the
// sender is slowed down (the connection's reader stops, and the peer's
// writes wait), and nothing is dropped. A call that takes nothing for
// stallLimit is abandoned: it fails, and its later replies are discarded.
// It reports false if no call waits for the reply or it was not delivered.
func (p *pendingCalls) deliverTo(d delivered) bool {
	p.mu.Lock()
	pc, ok := p.m[d.m.Re]
	p.mu.Unlock()
	if !ok {
		return false
	}
	select {
	case <-pc.overrun:
		return false
	case pc.replies <- d:
		return true
	default:
	}
	t := time.NewTimer(stallLimit)
	defer t.Stop()
	select {
	case pc.replies <- d:
		return true
	case <-pc.ended:
		return false
	case <-t.C:
		pc.once.Do(func() { close(pc.overrun) })
		return false
	}
}
