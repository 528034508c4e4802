package trail

import (
	"context"
	"sync"
	"time"

	"github.com/moltgate/moltgate/audit"
	"github.com/moltgate/moltgate/gateway/pipeline"
	"github.com/moltgate/moltgate/wire"
)

// The decisions of an exchange held for its receipt. A gateway that
// records every decision and keeps receipts would write three events per
// exchange with a peer: its decision on the request, its decision on the
// reply, and the receipt, which names the same parties, ids and outcome.
// It writes one instead (audit.TypeExchange): the decisions that let the
// messages pass wait, by the request's id, for the receipt, which
// completes a few receipt windows after the reply. Decisions whose receipt
// has not come within the hold are written alone, as they would be
// without receipts; so are those of a gateway that is closing.

// DefaultExchangeHold is how long the decisions of an exchange wait for
// its receipt before they are written alone: some ten times what a
// receipt takes with the default window, so that a loaded gateway still
// writes one event per exchange, and short enough that what a process
// that dies loses of the decisions nothing waited for stays small (their
// receipts, not complete, are lost with them).
const DefaultExchangeHold = 2 * time.Second

// exchangesHeld bounds the exchanges whose decisions wait; past it, the
// oldest are written alone at once.
const exchangesHeld = 16384

// exchanges holds the allowed decisions of exchanges with peers until
// their receipts come.
type exchanges struct {
	hold time.Duration
	now  func() time.Time
	// peer reports whether the gateway exchanges receipts with org.
	peer func(org string) bool
	// alone writes a decision whose receipt did not come.
	alone func(held *heldExchange)

	mu     sync.Mutex
	byReq  map[string]*heldExchange
	queue  []*heldExchange // by the time each was first held
	timer  *time.Timer
	closed bool
	// sweeps counts the writes of decisions alone under way, which Close
	// waits for.
	sweeps sync.WaitGroup
}

// heldExchange is the decisions held for one exchange.
type heldExchange struct {
	req string
	at  time.Time
	// ds are the decisions, each with the trace context of its call.
	ds     []audit.Decision
	traces []string
	taken  bool
}

func newExchanges(hold time.Duration, now func() time.Time, peer func(string) bool, alone func(*heldExchange)) *exchanges {
	if hold <= 0 {
		hold = DefaultExchangeHold
	}
	return &exchanges{hold: hold, now: now, peer: peer, alone: alone, byReq: map[string]*heldExchange{}}
}

// exchangeKey is the id of the request of the exchange m belongs to, and
// whether m is one whose decision waits for a receipt: a request to or
// from a peer's agent, or its final reply. Pings, streams and what the
// gateways send each other have no receipt.
func exchangeKey(m *wire.Message) (string, bool) {
	if m.From.Agent == pipeline.GatewayAgent || m.To.Agent == pipeline.GatewayAgent {
		return "", false
	}
	switch m.Op {
	case wire.OpRespond, wire.OpError:
		return m.Re, m.Re != ""
	case wire.OpPing, wire.OpPong, wire.OpStream:
		return "", false
	}
	if pipeline.IsReply(m) {
		return "", false
	}
	return m.ID, m.ID != ""
}

// put holds d, the decision to let m pass, for its exchange's receipt. It
// reports false when d must be written now: m has no receipt to come, the
// exchange holds two decisions already, or the trail is closing.
func (x *exchanges) put(m *wire.Message, d audit.Decision, trace string) bool {
	key, ok := exchangeKey(m)
	if !ok || d.Peer == "" || !x.peer(d.Peer) {
		return false
	}
	var over []*heldExchange
	x.mu.Lock()
	if x.closed {
		x.mu.Unlock()
		return false
	}
	e := x.byReq[key]
	if e == nil {
		if len(x.byReq) >= exchangesHeld {
			over = x.expireLocked(time.Time{}, 1+len(x.byReq)-exchangesHeld)
		}
		e = &heldExchange{req: key, at: x.now(), ds: make([]audit.Decision, 0, 2), traces: make([]string, 0, 2)}
		x.byReq[key] = e
		x.queue = append(x.queue, e)
		if x.timer == nil {
			x.timer = time.AfterFunc(x.hold, x.sweep)
		}
	} else if len(e.ds) >= 2 {
		x.mu.Unlock()
		return false
	}
	e.ds, e.traces = append(e.ds, d), append(e.traces, trace)
	if len(e.ds) == 2 && key == m.ID {
		// The request's decision comes first, whichever was made first
		// (a callee records the request's once it is answered).
		e.ds[0], e.ds[1] = e.ds[1], e.ds[0]
		e.traces[0], e.traces[1] = e.traces[1], e.traces[0]
	}
	x.mu.Unlock()
	x.writeAlone(over)
	return true
}

// take is the exchange held for the request req, which its receipt now
// completes; nil if none is held.
func (x *exchanges) take(req string) *heldExchange {
	x.mu.Lock()
	defer x.mu.Unlock()
	e := x.byReq[req]
	if e != nil {
		delete(x.byReq, req)
		e.taken = true
	}
	return e
}

// sweep writes alone the decisions held longer than the hold, and sets
// the timer for the next to expire.
func (x *exchanges) sweep() {
	x.mu.Lock()
	x.timer = nil
	if x.closed {
		x.mu.Unlock()
		return
	}
	over := x.expireLocked(x.now().Add(-x.hold), 0)
	if len(x.queue) > 0 {
		next := x.queue[0].at.Add(x.hold).Sub(x.now())
		x.timer = time.AfterFunc(max(next, time.Millisecond), x.sweep)
	}
	x.sweeps.Add(1)
	x.mu.Unlock()
	defer x.sweeps.Done()
	x.writeAlone(over)
}

// expireLocked takes out of the queue the exchanges first held at or
// before cutoff, and at least n more, oldest first, and returns those not
// taken by their receipts already.
func (x *exchanges) expireLocked(cutoff time.Time, n int) []*heldExchange {
	var over []*heldExchange
	i := 0
	for ; i < len(x.queue); i++ {
		e := x.queue[i]
		if e.taken {
			continue
		}
		if n <= 0 && e.at.After(cutoff) {
			break
		}
		n--
		delete(x.byReq, e.req)
		over = append(over, e)
	}
	// The queue's array is reused; what was taken out is cleared for the
	// collector.
	rest := copy(x.queue, x.queue[i:])
	clear(x.queue[rest:])
	x.queue = x.queue[:rest]
	return over
}

// writeAlone writes the decisions of exchanges that waited too long.
func (x *exchanges) writeAlone(over []*heldExchange) {
	for _, e := range over {
		x.alone(e)
	}
}

// close writes alone every decision still held, and holds no more: the
// gateway is stopping, and what would complete them will not come.
func (x *exchanges) close() {
	x.mu.Lock()
	x.closed = true
	if x.timer != nil {
		x.timer.Stop()
		x.timer = nil
	}
	over := x.expireLocked(time.Time{}, len(x.queue))
	x.mu.Unlock()
	x.sweeps.Wait()
	x.writeAlone(over)
}

// holdExchanges has the trail hold the allowed decisions of exchanges with
// the peers that receipts are exchanged with (peer), for hold (default
// DefaultExchangeHold), and write each exchange as one event with its
// receipt. It does nothing unless the trail records every decision.
func (a *Trail) holdExchanges(hold time.Duration, peer func(org string) bool) {
	if !a.all {
		return
	}
	now := a.ev.Now
	if now == nil {
		now = time.Now
	}
	a.held = newExchanges(hold, now, peer, func(e *heldExchange) {
		for i := range e.ds {
			a.append(context.Background(), audit.TypeAllowed, e.ds[i].MessageID, e.traces[i], e.ds[i], false)
		}
	})
}
