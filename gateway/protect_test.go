package gateway

import (
	"context"
	"testing"
	"time"
)

type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time          { return c.t }
func (c *fakeClock) advance(d time.Duration) { c.t = c.t.Add(d) }

func TestLimiters(t *testing.T) {
	clk := &fakeClock{time.Unix(1800000000, 0)}
	l := newLimiters(2, 3, 16, clk.now)
	for i := 0; i < 3; i++ {
		if ok, _ := l.Allow("acme"); !ok {
			t.Fatalf("burst token %d refused", i)
		}
	}
	ok, retry := l.Allow("acme")
	if ok || retry <= 0 || retry > time.Second {
		t.Fatalf("over the burst: ok=%v retry=%v", ok, retry)
	}
	if ok, _ := l.Allow("globex"); !ok {
		t.Fatal("one key's limit affected another")
	}
	clk.advance(500 * time.Millisecond)
	if ok, _ := l.Allow("acme"); !ok {
		t.Fatal("token not refilled at 2/s")
	}
	if retryAfterSeconds(10*time.Millisecond) != 1 || retryAfterSeconds(1500*time.Millisecond) != 2 {
		t.Fatal("Retry-After rounding")
	}
}

func TestGates(t *testing.T) {
	g := newGates(2)
	r1, ok1 := g.Enter("acme")
	r2, ok2 := g.Enter("acme")
	_, ok3 := g.Enter("acme")
	if !ok1 || !ok2 || ok3 {
		t.Fatalf("gate admitted %v %v %v", ok1, ok2, ok3)
	}
	if _, ok := g.Enter("globex"); !ok {
		t.Fatal("one peer's gate affected another")
	}
	r1()
	r3, ok := g.Enter("acme")
	if !ok {
		t.Fatal("released slot not reusable")
	}
	r2()
	r3()
	g.mu.Lock()
	n := len(g.m)
	g.mu.Unlock()
	if n != 1 { // globex's slot is still held
		t.Fatalf("gates kept %d idle keys", n)
	}
}

func TestInflightDrain(t *testing.T) {
	f := newInflight(1)
	rel, ok := f.Enter()
	if !ok {
		t.Fatal("first call refused")
	}
	if _, ok := f.Enter(); ok {
		t.Fatal("over the ceiling")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if err := f.drain(ctx); err == nil {
		t.Fatal("drained with a call in flight")
	}
	go func() { time.Sleep(5 * time.Millisecond); rel() }()
	if err := f.drain(context.Background()); err != nil {
		t.Fatal(err)
	}
}

func TestBreaker(t *testing.T) {
	clk := &fakeClock{time.Unix(1800000000, 0)}
	var states []breakerState
	b := newBreaker(3, time.Second, clk.now, func(s breakerState) { states = append(states, s) })
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
	if b.current() != breakerClosed {
		t.Fatal("successful trial did not close")
	}
	want := []breakerState{breakerOpen, breakerHalfOpen, breakerOpen, breakerHalfOpen, breakerClosed}
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
	b := newBreaker(1, time.Second, clk.now, nil)
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
	if b.current() != breakerClosed {
		t.Fatal("successful trial did not close")
	}
	// Closed, an unrecorded call changes nothing.
	b.unrecorded()
	if ok, _ := b.allow(); !ok || b.current() != breakerClosed {
		t.Fatal("closed breaker changed")
	}
}
