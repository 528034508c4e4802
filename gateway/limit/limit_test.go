package limit

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
	l := NewBuckets(2, 3, 16, clk.now)
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
}

func TestGates(t *testing.T) {
	g := NewGates(2)
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
	f := NewCeiling(1)
	rel, ok := f.Enter()
	if !ok {
		t.Fatal("first call refused")
	}
	if _, ok := f.Enter(); ok {
		t.Fatal("over the ceiling")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if err := f.Drain(ctx); err == nil {
		t.Fatal("drained with a call in flight")
	}
	go func() { time.Sleep(5 * time.Millisecond); rel() }()
	if err := f.Drain(context.Background()); err != nil {
		t.Fatal(err)
	}
}
