package pgshared

import (
	"context"
	"database/sql"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/moltgate/moltgate/internal/pgtest"
)

func testDB(t *testing.T) *sql.DB { return pgtest.DB(t) }

type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time          { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) advance(d time.Duration) { c.mu.Lock(); c.t = c.t.Add(d); c.mu.Unlock() }

func TestReplayShared(t *testing.T) {
	db := testDB(t)
	clk := &clock{t: time.Unix(1800000000, 0)}
	ctx := context.Background()
	a, err := Open(ctx, db, clk.now)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Open(ctx, db, clk.now) // a second replica
	if err != nil {
		t.Fatal(err)
	}
	exp := clk.now().Add(time.Minute)
	if ok, err := a.Replay().Insert(ctx, "alice@acme", "id-1", exp); !ok || err != nil {
		t.Fatalf("first insert: %v %v", ok, err)
	}
	if ok, _ := b.Replay().Insert(ctx, "alice@acme", "id-1", exp); ok {
		t.Fatal("the other replica accepted a replay")
	}
	if ok, _ := b.Replay().Insert(ctx, "bob@acme", "id-1", exp); !ok {
		t.Fatal("namespaces are not separate")
	}
	clk.advance(2 * time.Minute)
	if ok, _ := b.Replay().Insert(ctx, "alice@acme", "id-1", clk.now().Add(time.Minute)); !ok {
		t.Fatal("an expired record still refused the key")
	}
	// Challenges are single use across replicas.
	a.Replay().Insert(ctx, "challenge", "c1\xff\x00\xbb", clk.now().Add(time.Minute))
	if ok, _ := b.Replay().Take(ctx, "challenge", "c1\xff\x00\xbb"); !ok {
		t.Fatal("challenge not redeemable on the other replica")
	}
	if ok, _ := a.Replay().Take(ctx, "challenge", "c1\xff\x00\xbb"); ok {
		t.Fatal("challenge redeemed twice")
	}
	if err := a.Prune(ctx); err != nil {
		t.Fatal(err)
	}
}

func TestRevocationsShared(t *testing.T) {
	db := testDB(t)
	ctx := context.Background()
	a, _ := Open(ctx, db, nil)
	b, _ := Open(ctx, db, nil)
	if r, err := b.Revoked(ctx, "c-1"); r || err != nil {
		t.Fatalf("unrevoked: %v %v", r, err)
	}
	if err := a.Revoke(ctx, "c-1", time.Now().Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if r, _ := b.Revoked(ctx, "c-1"); !r {
		t.Fatal("revocation not seen by the other replica")
	}
}

func TestBucketsShared(t *testing.T) {
	db := testDB(t)
	clk := &clock{t: time.Unix(1800000000, 0)}
	ctx := context.Background()
	s, _ := Open(ctx, db, clk.now)
	// Two replicas share a bucket of 50 tokens at 10/s.
	r1, r2 := s.Buckets(10, 50), s.Buckets(10, 50)
	var allowed atomic.Int64
	var wg sync.WaitGroup
	for _, b := range []*Buckets{r1, r2} {
		for w := 0; w < 4; w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := 0; i < 40; i++ {
					ok, _, err := b.Allow(ctx, "org:globex")
					if err != nil {
						t.Error(err)
						return
					}
					if ok {
						allowed.Add(1)
					}
				}
			}()
		}
	}
	wg.Wait()
	if n := allowed.Load(); n != 50 {
		t.Fatalf("replicas together allowed %d of a burst of 50", n)
	}
	ok, wait, _ := r1.Allow(ctx, "org:globex")
	if ok || wait <= 0 {
		t.Fatalf("empty bucket: %v %v", ok, wait)
	}
	clk.advance(time.Second) // 10 tokens come back
	n := 0
	for i := 0; i < 20; i++ {
		if ok, _, _ := r2.Allow(ctx, "org:globex"); ok {
			n++
		}
	}
	if n != 10 {
		t.Fatalf("after 1s at 10/s, %d tokens", n)
	}
	if ok, _, _ := r1.Allow(ctx, "org:initech"); !ok {
		t.Fatal("keys are not separate")
	}
}

// TestSpendShared spends one consent from two replicas at once: exactly one
// use is the first.
func TestSpendShared(t *testing.T) {
	db := testDB(t)
	ctx := context.Background()
	a, _ := Open(ctx, db, nil)
	b, _ := Open(ctx, db, nil)
	var first atomic.Int32
	var wg sync.WaitGroup
	for i := range 12 {
		s := a
		if i%2 == 1 {
			s = b
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			ok, err := s.Spend(ctx, "c-9", time.Now().Add(time.Hour))
			if err != nil {
				t.Error(err)
			}
			if ok {
				first.Add(1)
			}
		}()
	}
	wg.Wait()
	if first.Load() != 1 {
		t.Fatalf("%d first uses of one consent across two replicas; want 1", first.Load())
	}
	if ok, err := b.Spend(ctx, "c-10", time.Now().Add(time.Hour)); !ok || err != nil {
		t.Fatalf("another consent: %v %v", ok, err)
	}
	if err := a.Prune(ctx); err != nil {
		t.Fatal(err)
	}
}
