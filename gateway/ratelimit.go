package gateway

import (
	"context"
	"math"
	"sync"
	"time"

	lru "github.com/hashicorp/golang-lru/v2"
	"golang.org/x/time/rate"

	"github.com/moltgate/moltgate/internal/pgshared"
)

// rateLimiter takes a token for a key, or says how long until one is free.
type rateLimiter interface {
	Allow(key string) (ok bool, retryAfter time.Duration)
}

// limiters holds one token bucket per key (a peer org, a sending agent, a
// discovery caller). Keys come from the network, so the set is bounded: the
// least recently used buckets are forgotten, which can only make a quiet
// sender's bucket full again.
type limiters struct {
	limit rate.Limit
	burst int
	now   func() time.Time
	cache *lru.Cache[string, *rate.Limiter]
	mu    sync.Mutex
}

func newLimiters(perSecond float64, burst, size int, now func() time.Time) *limiters {
	c, _ := lru.New[string, *rate.Limiter](size)
	return &limiters{limit: rate.Limit(perSecond), burst: burst, now: now, cache: c}
}

// Allow takes one token for key. If none is left it reports how long until
// one is.
func (l *limiters) Allow(key string) (ok bool, retryAfter time.Duration) {
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

// retryAfterSeconds rounds a delay up to whole seconds, as Retry-After
// carries.
func retryAfterSeconds(d time.Duration) int {
	return int(math.Ceil(max(d, time.Second).Seconds()))
}

// gates bounds the calls in flight per key (per peer org).
type gates struct {
	n  int
	mu sync.Mutex
	m  map[string]*gate
}

type gate struct {
	slots chan struct{}
	users int
}

func newGates(n int) *gates { return &gates{n: n, m: map[string]*gate{}} }

// Enter takes a slot for key without waiting; it fails if all are in use.
// The returned function gives the slot back.
func (g *gates) Enter(key string) (release func(), ok bool) {
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

func (g *gates) done(key string, gt *gate) {
	g.mu.Lock()
	gt.users--
	if gt.users == 0 && len(gt.slots) == 0 {
		delete(g.m, key)
	}
	g.mu.Unlock()
}

// inflight bounds the work being handled at once by the whole gateway, and
// lets shutdown wait for it to drain.
type inflight struct {
	slots chan struct{}

	mu   sync.Mutex
	n    int
	idle []chan struct{} // closed when n drops to zero
}

func newInflight(n int) *inflight { return &inflight{slots: make(chan struct{}, n)} }

func (f *inflight) Enter() (release func(), ok bool) {
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

func (f *inflight) Count() int { return len(f.slots) }

// drain waits until nothing is in flight or ctx ends.
func (f *inflight) drain(ctx context.Context) error {
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

// sharedLimiter is a rate limit whose buckets live in PostgreSQL, shared by
// every replica of the gateway.
type sharedLimiter struct {
	b   *pgshared.Buckets
	log func(error)
}

func (l sharedLimiter) Allow(key string) (bool, time.Duration) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	ok, wait, err := l.b.Allow(ctx, key)
	if err != nil {
		// A rate limit protects against overload; when its store fails
		// the gateway keeps serving rather than refusing everyone.
		l.log(err)
		return true, 0
	}
	return ok, wait
}
