package localbridge

import (
	"context"
	"testing"
	"time"
)

// The rate gate lets a second's worth of requests through at once, then one per 1/rate of
// time, on a clock of the test's: it waits exactly as long as the bucket is short.
func TestRateGate(t *testing.T) {
	now := time.Unix(1000, 0)
	var slept []time.Duration
	g := newRateGate(100, func() time.Time { return now })
	g.sleep = func(_ context.Context, d time.Duration) error {
		slept = append(slept, d)
		now = now.Add(d)
		return nil
	}
	ctx := context.Background()
	for range 100 {
		g.take(ctx, 1)
	}
	if len(slept) != 0 {
		t.Fatalf("a burst of 100 waited %v", slept)
	}
	g.take(ctx, 1)
	if len(slept) != 1 || slept[0] != 10*time.Millisecond {
		t.Fatalf("the 101st request waited %v, want 10ms", slept)
	}
	// A batch larger than the bucket waits for a full bucket, and leaves it in debt.
	slept = nil
	g.take(ctx, 250)
	if len(slept) != 1 || slept[0] != time.Second {
		t.Fatalf("a batch of 250 waited %v, want 1s", slept)
	}
	slept = nil
	g.take(ctx, 1)
	if len(slept) != 1 || slept[0] != 1510*time.Millisecond {
		t.Fatalf("after the batch: waited %v, want 1.51s", slept)
	}
	// No limit: no wait.
	g = newRateGate(-1, func() time.Time { return now })
	g.sleep = func(context.Context, time.Duration) error { t.Fatal("waited without a limit"); return nil }
	for range 1000 {
		g.take(ctx, 1)
	}
	// An ended context ends the wait.
	g = newRateGate(1, func() time.Time { return now })
	g.take(ctx, 1)
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if err := g.take(cctx, 1); err == nil {
		t.Fatal("take on an ended context succeeded")
	}
}
