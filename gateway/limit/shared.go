package limit

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/moltgate/moltgate/internal/pgshared"
)

// SharedConfig configures a Shared limit. The zero value is usable.
type SharedConfig struct {
	// Size bounds the keys the local fallback holds at once. Default 4096.
	Size int
	// Timeout bounds one round trip to the database; a slower one counts as
	// a failure. Default 1 second.
	Timeout time.Duration
	// Retry is how long after a failure the database is tried again;
	// meanwhile every call is limited locally, with no round trip. Default
	// 1 second.
	Retry time.Duration
	// OnDown is called once when the database fails, with the cause and the
	// number of replicas the limit is divided by. Default: nothing.
	OnDown func(err error, replicas int)
	// OnUp is called once when the database answers again. Default:
	// nothing.
	OnUp func()
	// Now is the clock. Default time.Now.
	Now func() time.Time
}

// Shared is a rate limit whose buckets live in PostgreSQL, shared by every
// replica of the gateway. While the database cannot be reached, each
// replica limits on its own at its share of the limit: the rate and burst
// divided by the replicas that were serving at the last heartbeat. It never
// falls back to no limit, since an outage of the database is no reason to
// let a peer past its rate (the replay window fails closed in the same
// outage); nor to refusing everyone, since the limit protects against
// overload and the database is not needed to serve.
type Shared struct {
	b   *pgshared.Buckets
	cfg SharedConfig

	// retryAt is when to try the database again (unix ns); 0 while it
	// answers.
	retryAt atomic.Int64
	mu      sync.Mutex
	local   *Buckets // the share, made at the first failure
	localN  int      // the replicas local was divided by
}

// NewShared makes a Shared limit on b.
func NewShared(b *pgshared.Buckets, cfg SharedConfig) *Shared {
	if cfg.Size <= 0 {
		cfg.Size = 4096
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = time.Second
	}
	if cfg.Retry <= 0 {
		cfg.Retry = time.Second
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return &Shared{b: b, cfg: cfg}
}

// Allow takes one token for key. If none is left it reports how long until
// one is.
func (l *Shared) Allow(key string) (bool, time.Duration) {
	now := l.cfg.Now()
	if at := l.retryAt.Load(); at != 0 && now.UnixNano() < at {
		return l.share().Allow(key)
	}
	ctx, cancel := context.WithTimeout(context.Background(), l.cfg.Timeout)
	ok, wait, err := l.b.Allow(ctx, key)
	cancel()
	if err != nil {
		first := l.retryAt.Swap(now.Add(l.cfg.Retry).UnixNano()) == 0
		share := l.share()
		if first && l.cfg.OnDown != nil {
			l.cfg.OnDown(err, l.b.Replicas())
		}
		return share.Allow(key)
	}
	if l.retryAt.Swap(0) != 0 && l.cfg.OnUp != nil {
		l.cfg.OnUp()
	}
	return ok, wait
}

// Down reports whether the limit is applied locally because the database
// failed.
func (l *Shared) Down() bool { return l.retryAt.Load() != 0 }

// share returns the local buckets at this replica's share of the limit,
// made again when the number of replicas changed.
func (l *Shared) share() *Buckets {
	n := l.b.Replicas()
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.local == nil || l.localN != n {
		l.local = NewBuckets(l.b.Rate()/float64(n), max(1, l.b.Burst()/n), l.cfg.Size, l.cfg.Now)
		l.localN = n
	}
	return l.local
}
