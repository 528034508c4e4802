// Package limit holds the gateway's limits on how much work it takes:
// token buckets per key (a peer organisation, a sending agent, a discovery
// caller), in memory or shared by replicas in PostgreSQL; a bound on the
// calls in flight per key; and the ceiling on the calls in flight in the
// whole gateway, which shutdown waits to drain.
package limit

import (
	"context"
	"sync"
	"time"

	lru "github.com/hashicorp/golang-lru/v2"
	"golang.org/x/time/rate"
)

// Buckets holds one token bucket per key (a peer org, a sending agent, a
// discovery caller). Keys come from the network, so the set is bounded: the
// least recently used buckets are forgotten, which can only make a quiet
// sender's bucket full again.
type Buckets struct {
	limit rate.Limit
	burst int
	now   func() time.Time
	cache *lru.Cache[string, *rate.Limiter]
	mu    sync.Mutex
}

// NewBuckets makes buckets of perSecond tokens a second, burst at most,
// for at most size keys at once, on the clock now.
func NewBuckets(perSecond float64, burst, size int, now func() time.Time) *Buckets {
	c, _ := lru.New[string, *rate.Limiter](size)
	return &Buckets{limit: rate.Limit(perSecond), burst: burst, now: now, cache: c}
}

// Allow takes one token for key. If none is left it reports how long until
// one is.
func (l *Buckets) Allow(key string) (ok bool, retryAfter time.Duration) {
	l.mu.Lock()
	lim, found := l.cache.Get(key)
	if !found {
		lim = rate.NewLimiter(l.limit, l.burst)
		l.cache.Add(key, lim)
	}
	l.mu.Unlock()
	now := l.now()
	r := lim.ReserveN(now, 1)
	if !r.OK() {
		return false, time.Second
	}
	if d := r.DelayFrom(now); d > 0 {
		r.CancelAt(now)
		return false, d
	}
	return true, 0
}

// Gates bound the calls in flight per key (per peer org).
type Gates struct {
	n  int
	mu sync.Mutex
	m  map[string]*gate
}

type gate struct {
	slots chan struct{}
	users int
}

// NewGates makes gates of n slots per key.
func NewGates(n int) *Gates { return &Gates{n: n, m: map[string]*gate{}} }

// Enter takes a slot for key without waiting; it fails if all are in use.
// The returned function gives the slot back.
func (g *Gates) Enter(key string) (release func(), ok bool) {
	g.mu.Lock()
	gt := g.m[key]
	if gt == nil {
		gt = &gate{slots: make(chan struct{}, g.n)}
		g.m[key] = gt
	}
	gt.users++
	g.mu.Unlock()
	select {
	case gt.slots <- struct{}{}:
		return func() {
			<-gt.slots
			g.done(key, gt)
		}, true
	default:
		g.done(key, gt)
		return nil, false
	}
}

func (g *Gates) done(key string, gt *gate) {
	g.mu.Lock()
	gt.users--
	if gt.users == 0 && len(gt.slots) == 0 {
		delete(g.m, key)
	}
	g.mu.Unlock()
}

// Ceiling bounds the work being handled at once by the whole gateway, and
// lets shutdown wait for it to drain.
type Ceiling struct {
	slots chan struct{}

	mu   sync.Mutex
	n    int
	idle []chan struct{} // closed when n drops to zero
}

// NewCeiling makes a ceiling of n calls.
func NewCeiling(n int) *Ceiling { return &Ceiling{slots: make(chan struct{}, n)} }

// Enter takes a slot without waiting; it fails at the ceiling. The
// returned function gives the slot back.
func (f *Ceiling) Enter() (release func(), ok bool) {
	select {
	case f.slots <- struct{}{}:
	default:
		return nil, false
	}
	f.mu.Lock()
	f.n++
	f.mu.Unlock()
	return func() {
		<-f.slots
		f.mu.Lock()
		f.n--
		if f.n == 0 {
			for _, ch := range f.idle {
				close(ch)
			}
			f.idle = nil
		}
		f.mu.Unlock()
	}, true
}

// Count is the calls in flight.
func (f *Ceiling) Count() int { return len(f.slots) }

// Drain waits until nothing is in flight or ctx ends.
func (f *Ceiling) Drain(ctx context.Context) error {
	f.mu.Lock()
	if f.n == 0 {
		f.mu.Unlock()
		return nil
	}
	ch := make(chan struct{})
	f.idle = append(f.idle, ch)
	f.mu.Unlock()
	select {
	case <-ch:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
