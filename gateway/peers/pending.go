package peers

import (
	"log/slog"
	"sync"
	"time"

	"github.com/moltgate/moltgate/handshake"
	"github.com/moltgate/moltgate/wire"
)

// delivered is one opened reply on its way to the call it answers.
type delivered struct {
	m      *wire.Message
	sess   *handshake.Session // the session it came in, if any
	sealed bool
	// refused is why a reply that opened in its session could not be
	// taken; m then holds only its re and sender's org.
	refused error
}

// ReplyBuffer is how many replies (stream chunks, mostly) wait for a call
// that has not yet taken them before delivery waits for it.
const ReplyBuffer = 64

// pendingCalls are this gateway's outbound calls waiting for replies, by
// the id of the request.
type pendingCalls struct {
	mu sync.Mutex
	m  map[string]*pendingCall

	// writeTimeout is the time after which a peer gives up a stream
	// connection whose reader does not read (Config.WriteTimeout).
	writeTimeout func() time.Duration
	// now is the process's clock, which calls' deadlines are on. Default
	// time.Now.
	now func() time.Time
	// after starts the timer of a delivery's wait: its channel, and the
	// function that stops it. Default time.NewTimer's.
	after func(time.Duration) (<-chan time.Time, func() bool)
	// log is told of each call abandoned. Default: none.
	log *slog.Logger
}

func newPendingCalls(writeTimeout func() time.Duration, log *slog.Logger) *pendingCalls {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &pendingCalls{m: map[string]*pendingCall{}, writeTimeout: writeTimeout, now: time.Now, log: log,
		after: func(d time.Duration) (<-chan time.Time, func() bool) { t := time.NewTimer(d); return t.C, t.Stop }}
}

// stallLimit is how long the delivery of a reply waits for pc to take one,
// when ReplyBuffer of its replies wait already. Replies of every call on a
// connection come through one reader, so a stuck caller holds up the
// others; past this it is abandoned, and the others go on. It is derived
// from what it protects, not from a machine's speed:
//   - half the write timeout: meanwhile the reader does not read, so the
//     peer's writes wait once its window is full, and at the write timeout
//     the peer would give up the connection with every call on it;
//   - no longer than the call has left before its deadline: past that it
//     has failed anyway (at once if it has passed).
//
// It is counted from each reply the call takes, not from its start: a
// caller that is slow but takes its replies is never abandoned.
func (p *pendingCalls) stallLimit(pc *pendingCall) time.Duration {
	d := p.writeTimeout() / 2
	if !pc.deadline.IsZero() {
		d = min(d, pc.deadline.Sub(p.now()))
	}
	return max(d, 0)
}

// pendingCall is one call's end of the delivery: its replies, in order,
// and the signal that it fell so far behind that delivery gave up on it.
// Most calls have one reply, so the queue holds what has come, not room
// for ReplyBuffer of them.
type pendingCall struct {
	mu    sync.Mutex
	queue []delivered // delivered and not yet taken, oldest first

	ready   chan struct{} // a reply was queued (capacity 1)
	room    chan struct{} // a reply was taken (capacity 1); made once a delivery waits, guarded by mu
	ended   chan struct{} // closed by done: nobody takes replies any more
	overrun chan struct{} // closed when a reply could not be handed over in its stall limit
	stalled time.Duration // that limit, set before overrun is closed
	once    sync.Once
	// deadline is the call's, zero if it has none.
	deadline time.Time
}

// wait registers a call whose deadline is deadline (zero: none); its
// replies are taken with pc.next until done.
func (p *pendingCalls) wait(id string, deadline time.Time) (pc *pendingCall, done func()) {
	pc = &pendingCall{ready: make(chan struct{}, 1), ended: make(chan struct{}), overrun: make(chan struct{}), deadline: deadline}
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

// next takes the oldest reply not yet taken, if there is one. When there is
// none, the call waits for pc.ready.
func (pc *pendingCall) next() (delivered, bool) {
	pc.mu.Lock()
	if len(pc.queue) == 0 {
		pc.mu.Unlock()
		return delivered{}, false
	}
	d := pc.queue[0]
	pc.queue[0] = delivered{}
	pc.queue = pc.queue[1:]
	if len(pc.queue) == 0 {
		pc.queue = nil // what was taken is not kept alive by the array
	}
	room := pc.room
	pc.mu.Unlock()
	if room != nil {
		wake(room)
	}
	return d, true
}

// put queues d unless ReplyBuffer replies wait already; then it returns
// the channel on which the call says it took one.
func (pc *pendingCall) put(d delivered) (bool, chan struct{}) {
	pc.mu.Lock()
	if len(pc.queue) >= ReplyBuffer {
		if pc.room == nil {
			pc.room = make(chan struct{}, 1)
		}
		room := pc.room
		pc.mu.Unlock()
		return false, room
	}
	pc.queue = append(pc.queue, d)
	pc.mu.Unlock()
	wake(pc.ready)
	return true, nil
}

// wake wakes the one waiting on c, or leaves the news for it.
func wake(c chan struct{}) {
	select {
	case c <- struct{}{}:
	default:
	}
}

// Deliver is deliverTo for a reply the pipeline opened: m, in sess if it
// came in one.
func (p *pendingCalls) Deliver(m *wire.Message, sess *handshake.Session, sealed bool) bool {
	return p.deliverTo(delivered{m: m, sess: sess, sealed: sealed})
}

// deliverTo hands a reply to the call it answers, in order. When the call
// has ReplyBuffer replies it has not taken, delivery waits for it: the
// sender is slowed down (the connection's reader stops, and the peer's
// writes wait), and nothing is dropped. A call that takes nothing for
// its stall limit is abandoned: it fails, and its later replies are discarded.
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
	case <-pc.ended:
		return false
	default:
	}
	ok, room := pc.put(d)
	if ok {
		return true
	}
	limit := p.stallLimit(pc)
	fired, stop := p.after(limit)
	defer stop()
	for {
		select {
		case <-room:
			if ok, _ = pc.put(d); ok {
				return true
			}
		case <-pc.ended:
			return false
		case <-fired:
			abandoned := false
			pc.once.Do(func() { pc.stalled, abandoned = limit, true; close(pc.overrun) })
			if abandoned {
				// The caller is local and still there; its operator sees
				// why its call failed, and that the others went on.
				p.log.Warn("reply abandoned: the caller stopped taking its stream", "peer", d.m.From.Org,
					"message_id", d.m.Re, "waited_ms", limit.Milliseconds())
			}
			return false
		}
	}
}
