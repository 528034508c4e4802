package peers

import (
	"testing"
	"time"
)

type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time          { return c.t }
func (c *fakeClock) advance(d time.Duration) { c.t = c.t.Add(d) }

func TestBreaker(t *testing.T) {
	clk := &fakeClock{time.Unix(1800000000, 0)}
	var states []BreakerState
	b := newBreaker(3, time.Second, 32*time.Second, clk.now, func(s BreakerState) { states = append(states, s) })
	for i := 0; i < 3; i++ {
		if ok, _ := b.allow(); !ok {
			t.Fatal("closed breaker refused")
		}
		b.record(false)
	}
	if ok, wait := b.allow(); ok || wait != time.Second {
		t.Fatalf("open breaker: %v %v", ok, wait)
	}
	clk.advance(time.Second)
	if ok, _ := b.allow(); !ok {
		t.Fatal("no trial after the cool-down")
	}
	if ok, _ := b.allow(); ok {
		t.Fatal("two trials at once")
	}
	b.record(false) // trial failed: open for twice as long
	clk.advance(time.Second)
	if ok, _ := b.allow(); ok {
		t.Fatal("cool-down did not double")
	}
	clk.advance(time.Second)
	if ok, _ := b.allow(); !ok {
		t.Fatal("no trial after the doubled cool-down")
	}
	b.record(true)
	if b.current() != BreakerClosed {
		t.Fatal("successful trial did not close")
	}
	want := []BreakerState{BreakerOpen, BreakerHalfOpen, BreakerOpen, BreakerHalfOpen, BreakerClosed}
	if len(states) != len(want) {
		t.Fatalf("transitions %v, want %v", states, want)
	}
	for i := range want {
		if states[i] != want[i] {
			t.Fatalf("transitions %v, want %v", states, want)
		}
	}
}

// TestBreakerTrialWithoutOutcome: a half-open trial that ends with no
// outcome of its own (its connection's loss was counted by another call)
// lets the next call be the trial, rather than leaving the breaker waiting
// for ever.
func TestBreakerTrialWithoutOutcome(t *testing.T) {
	clk := &fakeClock{time.Unix(1800000000, 0)}
	b := newBreaker(1, time.Second, 32*time.Second, clk.now, nil)
	b.allow()
	b.record(false)
	clk.advance(time.Second)
	if ok, _ := b.allow(); !ok {
		t.Fatal("no trial after the cool-down")
	}
	b.unrecorded()
	if ok, _ := b.allow(); !ok {
		t.Fatal("no new trial after a trial without an outcome")
	}
	if ok, _ := b.allow(); ok {
		t.Fatal("two trials at once")
	}
	b.record(true)
	if b.current() != BreakerClosed {
		t.Fatal("successful trial did not close")
	}
	// Closed, an unrecorded call changes nothing.
	b.unrecorded()
	if ok, _ := b.allow(); !ok || b.current() != BreakerClosed {
		t.Fatal("closed breaker changed")
	}
}

// TestBreakerPeerUp: a peer that shows it is up ends an open breaker's
// cool-down, however long it had grown: the next call is the trial, and
// if it fails the cool-down doubles as for any trial. A closed or
// half-open breaker is left as it is.
func TestBreakerPeerUp(t *testing.T) {
	clk := &fakeClock{time.Unix(1800000000, 0)}
	b := newBreaker(1, time.Second, 32*time.Second, clk.now, func(BreakerState) {})
	b.peerUp()
	if b.current() != BreakerClosed {
		t.Fatal("peerUp changed a closed breaker")
	}
	b.allow()
	b.record(false)
	for range 3 { // the cool-down grows to 8 s
		clk.advance(time.Minute)
		b.allow()
		b.record(false)
	}
	if ok, wait := b.allow(); ok || wait != 8*time.Second {
		t.Fatalf("open breaker: %v %v, want a wait of 8s", ok, wait)
	}
	b.peerUp()
	if ok, _ := b.allow(); !ok {
		t.Fatal("no trial once the peer is up")
	}
	b.peerUp() // half-open, its trial under way: nothing changes
	if ok, _ := b.allow(); ok {
		t.Fatal("two trials at once")
	}
	b.record(false)
	if ok, wait := b.allow(); ok || wait != 16*time.Second {
		t.Fatalf("after a failed trial: %v %v, want a wait of 16s", ok, wait)
	}
}
