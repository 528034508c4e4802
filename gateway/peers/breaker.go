package peers

import (
	"sync"
	"time"
)

// BreakerState is the state of a peer's circuit breaker.
type BreakerState int

const (
	BreakerClosed   BreakerState = iota // calls flow
	BreakerOpen                         // calls fail fast until the cool-down ends
	BreakerHalfOpen                     // one trial call is let through
)

func (s BreakerState) String() string {
	return [...]string{"closed", "open", "half_open"}[s]
}

// breaker is a circuit breaker for one peer gateway: after threshold
// consecutive failures it opens and fails calls at once for cooldown, then
// lets one trial call through; its success closes it, its failure opens it
// again for twice as long (up to maxCooldown). Policy sets the three.
type breaker struct {
	threshold   int
	cooldown    time.Duration
	maxCooldown time.Duration
	now         func() time.Time
	onChange    func(BreakerState)

	mu       sync.Mutex
	state    BreakerState
	failures int
	openedAt time.Time
	wait     time.Duration
	trial    bool
}

func newBreaker(threshold int, cooldown, maxCooldown time.Duration, now func() time.Time, onChange func(BreakerState)) *breaker {
	return &breaker{threshold: threshold, cooldown: cooldown, maxCooldown: max(maxCooldown, cooldown), now: now, wait: cooldown, onChange: onChange}
}

// allow reports whether a call may go to the peer now, and if not, how long
// until it may.
func (b *breaker) allow() (bool, time.Duration) {
	b.mu.Lock()
	defer b.mu.Unlock()
	switch b.state {
	case BreakerOpen:
		left := b.wait - b.now().Sub(b.openedAt)
		if left > 0 {
			return false, left
		}
		b.set(BreakerHalfOpen)
		b.trial = true
		return true, 0
	case BreakerHalfOpen:
		if b.trial {
			return false, b.cooldown
		}
		b.trial = true
		return true, 0
	}
	return true, 0
}

// record notes the outcome of a call that allow let through.
func (b *breaker) record(ok bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if ok {
		b.failures = 0
		b.wait = b.cooldown
		b.trial = false
		b.set(BreakerClosed)
		return
	}
	b.failures++
	switch {
	case b.state == BreakerHalfOpen:
		b.wait = min(2*b.wait, b.maxCooldown)
		b.openedAt = b.now()
		b.trial = false
		b.set(BreakerOpen)
	case b.failures >= b.threshold:
		b.openedAt = b.now()
		b.set(BreakerOpen)
	}
}

// unrecorded notes that a call allow let through ended without an outcome
// of its own to record (its loss was counted by another call on the same
// connection). If it was the half-open trial, the next call may be the
// trial; otherwise the breaker would wait for an outcome that never comes
// and refuse every call for good.
func (b *breaker) unrecorded() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.state == BreakerHalfOpen {
		b.trial = false
	}
}

func (b *breaker) current() BreakerState {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.state
}

func (b *breaker) set(s BreakerState) {
	if b.state != s {
		b.state = s
		if b.onChange != nil {
			b.onChange(s)
		}
	}
}

// peerUp ends the cool-down of an open breaker: the peer's gateway has
// just established a session with this one, so it is up, and the next
// call is let through as the trial. A trial that fails opens it again for
// twice as long, as any does: a peer that can call here but cannot be
// called (a one-way firewall) costs one call per session it makes.
func (b *breaker) peerUp() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.state == BreakerOpen {
		b.openedAt = b.now().Add(-b.wait)
	}
}
