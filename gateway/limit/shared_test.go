package limit

import (
	"context"
	"database/sql"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/moltgate/moltgate/internal/pgshared"
	"github.com/moltgate/moltgate/internal/pgtest"
)

// replica is one gateway process's view of a shared limit.
type replica struct {
	shared  *pgshared.Shared
	limit   *Shared
	down    atomic.Int32
	up      atomic.Int32
	allowed atomic.Int64
}

func newReplica(t *testing.T, dsn string, rate float64, burst int) *replica {
	t.Helper()
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	sh, err := pgshared.Open(ctx, db, nil)
	if err != nil {
		t.Fatal(err)
	}
	r := &replica{shared: sh}
	r.limit = NewShared(sh.Buckets(rate, burst), SharedConfig{Retry: 100 * time.Millisecond, Timeout: 500 * time.Millisecond,
		OnDown: func(error, int) { r.down.Add(1) }, OnUp: func() { r.up.Add(1) }})
	return r
}

// hammer calls both replicas' limits for one key from several goroutines
// each, for d, and returns how many calls they let through.
func hammer(rs []*replica, key string, d time.Duration) int64 {
	var wg sync.WaitGroup
	stop := time.Now().Add(d)
	var allowed atomic.Int64
	for _, r := range rs {
		for range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for time.Now().Before(stop) {
					if ok, _ := r.limit.Allow(key); ok {
						allowed.Add(1)
						r.allowed.Add(1)
					}
					time.Sleep(time.Millisecond)
				}
			}()
		}
	}
	wg.Wait()
	return allowed.Load()
}

// Two replicas share a limit of 5 calls a second on one PostgreSQL. While
// the server is stopped, each limits at its half of it, not at none; once it
// is back they share the one limit again.
func TestSharedLimitHoldsThroughOutage(t *testing.T) {
	c := pgtest.NewCluster(t)
	const rate, burst = 5.0, 5
	rs := []*replica{newReplica(t, c.DSN, rate, burst), newReplica(t, c.DSN, rate, burst)}
	ctx := context.Background()
	for _, r := range rs {
		if n, err := r.shared.Heartbeat(ctx); err != nil || n != 2 {
			t.Fatalf("heartbeat: %d replicas, %v; want 2", n, err)
		}
	}
	// bound is what the limit may let through in d: a full bucket, its
	// rate, and a lease per replica; doubled for the scheduling of a
	// loaded machine. Without a limit the goroutines make thousands.
	bound := func(d time.Duration) int64 { return 2 * int64(burst+rate*d.Seconds()+2) }

	start := time.Now()
	if n := hammer(rs, "peer", time.Second); n > bound(time.Since(start)) || n == 0 {
		t.Fatalf("database up: %d calls let through in %v", n, time.Since(start))
	}

	c.Stop()
	start = time.Now()
	n := hammer(rs, "peer", 2*time.Second)
	if n > bound(time.Since(start)) {
		t.Fatalf("database stopped: %d calls let through in %v: the limit failed open", n, time.Since(start))
	}
	for i, r := range rs {
		if r.down.Load() != 1 {
			t.Fatalf("replica %d: told of the outage %d times, want once", i, r.down.Load())
		}
		if !r.limit.Down() {
			t.Fatalf("replica %d does not report the outage", i)
		}
		if got := r.limit.share(); got.limit != rate/2 || got.burst != burst/2 {
			t.Fatalf("replica %d's share: %v a second, burst %d; want %v and %d", i, got.limit, got.burst, rate/2, burst/2)
		}
	}
	if n == 0 {
		t.Fatal("database stopped: every call refused")
	}

	c.Start()
	deadline := time.Now().Add(30 * time.Second)
	for rs[0].up.Load() == 0 || rs[1].up.Load() == 0 {
		if time.Now().After(deadline) {
			t.Fatal("the replicas did not go back to the shared limit")
		}
		hammer(rs, "probe", 50*time.Millisecond)
	}
	start = time.Now()
	if n := hammer(rs, "after", time.Second); n > bound(time.Since(start)) || n == 0 {
		t.Fatalf("database back: %d calls let through in %v", n, time.Since(start))
	}
	if rs[0].limit.Down() || rs[1].limit.Down() {
		t.Fatal("a replica still limits locally with the database back")
	}
}
