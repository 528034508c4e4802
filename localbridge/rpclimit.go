package localbridge

import (
	"context"
	"time"
)

// rateGate holds a connection to a number of requests a second: a token bucket that holds a
// second's worth of requests, so that a burst up to the rate goes at once and a client that
// keeps above it is read more slowly. Reading waiting, rather than a refusal, loses no request:
// the client's writes wait as they do when the gateway is busy.
type rateGate struct {
	rate   float64 // requests a second; <= 0: no limit
	tokens float64
	last   time.Time
	now    func() time.Time
	sleep  func(ctx context.Context, d time.Duration) error
}

func newRateGate(perSecond int, now func() time.Time) *rateGate {
	return &rateGate{rate: float64(perSecond), tokens: float64(perSecond), last: now(), now: now, sleep: sleepCtx}
}

// take waits until n requests may go, or ctx ends. A batch larger than the bucket goes once the
// bucket is full, and leaves it in debt.
func (g *rateGate) take(ctx context.Context, n int) error {
	if g.rate <= 0 {
		return nil
	}
	for {
		now := g.now()
		g.tokens = min(g.rate, g.tokens+now.Sub(g.last).Seconds()*g.rate)
		g.last = now
		need := min(float64(n), g.rate)
		if g.tokens >= need {
			g.tokens -= float64(n)
			return nil
		}
		wait := time.Duration((need - g.tokens) / g.rate * float64(time.Second))
		if err := g.sleep(ctx, max(wait, time.Millisecond)); err != nil {
			return err
		}
	}
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
