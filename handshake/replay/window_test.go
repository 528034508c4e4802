package replay

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/moltgate/moltgate/keys"
	"github.com/moltgate/moltgate/wire"
)

var t0 = time.UnixMilli(1_800_000_000_000)

// clock is a settable test clock.
type clock struct{ ns atomic.Int64 }

func newClock(t time.Time) *clock { c := new(clock); c.ns.Store(t.UnixNano()); return c }
func (c *clock) Now() time.Time   { return time.Unix(0, c.ns.Load()) }
func (c *clock) Add(d time.Duration) {
	c.ns.Add(int64(d))
}

func wantCode(t *testing.T, err error, code wire.Code) {
	t.Helper()
	var we *wire.Error
	if !errors.As(err, &we) || we.Code != code {
		t.Fatalf("got %v, want %s", err, code)
	}
}

func sender(b byte) wire.Sender {
	var k keys.Ed25519Public
	k[0] = b
	return wire.Sender{Agent: "a", Org: "o", Key: k}
}

func msg(from wire.Sender, n int, ts time.Time) *wire.Message {
	return &wire.Message{
		ID:   fmt.Sprintf("00000000-0000-4000-8000-%012x", n),
		TS:   ts.UnixMilli(),
		From: from,
	}
}

func TestTimestampWindow(t *testing.T) {
	clk := newClock(t0)
	w := New(Config{Now: clk.Now})
	ctx := context.Background()
	s := sender(1)
	for i, d := range []time.Duration{0, DefaultSkew, -DefaultSkew, time.Second, -time.Second} {
		if err := w.Check(ctx, msg(s, i, t0.Add(d))); err != nil {
			t.Fatalf("ts %v off: %v", d, err)
		}
	}
	for i, d := range []time.Duration{DefaultSkew + time.Millisecond, -DefaultSkew - time.Millisecond, time.Hour} {
		wantCode(t, w.Check(ctx, msg(s, 100+i, t0.Add(d))), wire.ErrReplay)
	}
	// A custom skew applies.
	w = New(Config{Now: clk.Now, Skew: 10 * time.Second})
	wantCode(t, w.Check(ctx, msg(s, 200, t0.Add(11*time.Second))), wire.ErrReplay)
	if err := w.Check(ctx, msg(s, 201, t0.Add(10*time.Second))); err != nil {
		t.Fatal(err)
	}
}

func TestExpiryHonoured(t *testing.T) {
	clk := newClock(t0)
	w := New(Config{Now: clk.Now})
	ctx := context.Background()
	m := msg(sender(1), 1, t0.Add(-time.Minute))
	m.Exp = t0.Add(-time.Millisecond).UnixMilli()
	wantCode(t, w.Check(ctx, m), wire.ErrExpired)
	m = msg(sender(1), 2, t0)
	m.Exp = t0.UnixMilli() // expires at the end of this millisecond
	if err := w.Check(ctx, m); err != nil {
		t.Fatal(err)
	}
	wantCode(t, w.CheckTime(t0.UnixMilli(), t0.Add(-time.Second).UnixMilli()), wire.ErrExpired)
}

func TestDuplicateIDRefused(t *testing.T) {
	clk := newClock(t0)
	w := New(Config{Now: clk.Now})
	ctx := context.Background()
	a, b := sender(1), sender(2)
	if err := w.Check(ctx, msg(a, 1, t0)); err != nil {
		t.Fatal(err)
	}
	wantCode(t, w.Check(ctx, msg(a, 1, t0)), wire.ErrReplay)
	// A different ts does not make the same id new.
	wantCode(t, w.Check(ctx, msg(a, 1, t0.Add(time.Second))), wire.ErrReplay)
	// Ids are per sender: another sender may use the same id.
	if err := w.Check(ctx, msg(b, 1, t0)); err != nil {
		t.Fatal(err)
	}
	// A sender without a key is named by agent@org.
	anon := wire.Sender{Agent: "x", Org: "y"}
	if err := w.Check(ctx, msg(anon, 1, t0)); err != nil {
		t.Fatal(err)
	}
	wantCode(t, w.Check(ctx, msg(anon, 1, t0)), wire.ErrReplay)
}

// TestIDRememberedForWholeWindow replays a message at every moment it is
// still timely, then after: it is never accepted twice, and once its time
// has passed the store forgets it.
func TestIDRememberedForWholeWindow(t *testing.T) {
	clk := newClock(t0)
	mem := NewMemory(MemoryConfig{Now: clk.Now})
	w := New(Config{Now: clk.Now, Storage: mem})
	ctx := context.Background()
	// Sent 4 minutes in the future (clock skew): timely for 9 more minutes.
	m := msg(sender(1), 1, t0.Add(4*time.Minute))
	if err := w.Check(ctx, m); err != nil {
		t.Fatal(err)
	}
	for clk.Now().Before(t0.Add(9 * time.Minute)) {
		clk.Add(30 * time.Second)
		wantCode(t, w.Check(ctx, m), wire.ErrReplay)
		if clk.Now().UnixMilli() <= m.TS+DefaultSkew.Milliseconds() && mem.Len() == 0 {
			t.Fatalf("id forgotten at %v while still timely", clk.Now().Sub(t0))
		}
	}
	clk.Add(time.Minute)
	wantCode(t, w.Check(ctx, m), wire.ErrReplay)                       // by the time rule
	if err := w.Check(ctx, msg(sender(2), 2, clk.Now())); err != nil { // drives the purge
		t.Fatal(err)
	}
	if mem.Len() != 1 {
		t.Fatalf("%d ids kept after the window; want only the newest", mem.Len())
	}
}

func TestExpForgetsEarly(t *testing.T) {
	clk := newClock(t0)
	mem := NewMemory(MemoryConfig{Now: clk.Now})
	w := New(Config{Now: clk.Now, Storage: mem})
	m := msg(sender(1), 1, t0)
	m.Exp = t0.Add(10 * time.Second).UnixMilli()
	if err := w.Check(context.Background(), m); err != nil {
		t.Fatal(err)
	}
	clk.Add(11 * time.Second)
	wantCode(t, w.Check(context.Background(), m), wire.ErrExpired)
	_ = w.Check(context.Background(), msg(sender(2), 2, clk.Now())) // drives the purge
	if mem.Len() != 1 {
		t.Fatalf("%d ids kept; want only the newest", mem.Len())
	}
}

func TestFullStoreFailsClosed(t *testing.T) {
	clk := newClock(t0)
	mem := NewMemory(MemoryConfig{Now: clk.Now, MaxEntries: 8, MaxPerNamespace: 4})
	w := New(Config{Now: clk.Now, Storage: mem})
	ctx := context.Background()
	a := sender(1)
	for i := range 4 {
		if err := w.Check(ctx, msg(a, i, t0)); err != nil {
			t.Fatal(err)
		}
	}
	// The sender's share is full: new ids are refused, old ones stay
	// remembered (nothing is evicted to make room).
	wantCode(t, w.Check(ctx, msg(a, 4, t0)), wire.ErrRateLimit)
	for i := range 4 {
		wantCode(t, w.Check(ctx, msg(a, i, t0)), wire.ErrReplay)
	}
	// Other senders fill the rest, then the whole store refuses.
	for i := range 4 {
		if err := w.Check(ctx, msg(sender(byte(2+i)), 0, t0)); err != nil {
			t.Fatal(err)
		}
	}
	err := w.Check(ctx, msg(sender(9), 0, t0))
	wantCode(t, err, wire.ErrRateLimit)
	if !errors.Is(err, ErrFull) {
		t.Fatal("ErrFull not wrapped")
	}
	var we *wire.Error
	errors.As(err, &we)
	if !we.Code.Recoverable() || we.Suggestion == nil || we.Suggestion.Action != wire.ActionRetryAfter {
		t.Fatalf("suggestion %+v", we.Suggestion)
	}
	// Once the window passes, room is made again.
	clk.Add(DefaultSkew + time.Second)
	if err := w.Check(ctx, msg(a, 99, clk.Now())); err != nil {
		t.Fatal(err)
	}
}

func TestChallengeSingleUse(t *testing.T) {
	clk := newClock(t0)
	w := New(Config{Now: clk.Now})
	ctx := context.Background()
	c, err := w.Challenge(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if c.IsZero() {
		t.Fatal("zero challenge")
	}
	if err := w.Redeem(ctx, c); err != nil {
		t.Fatal(err)
	}
	wantCode(t, w.Redeem(ctx, c), wire.ErrAuthFailed)
	var never wire.Bytes32
	never[0] = 1
	wantCode(t, w.Redeem(ctx, never), wire.ErrAuthFailed)
	// Expired challenges are refused.
	c, _ = w.Challenge(ctx)
	clk.Add(DefaultChallengeTTL + time.Millisecond)
	wantCode(t, w.Redeem(ctx, c), wire.ErrAuthFailed)
	// Challenges are distinct.
	seen := map[wire.Bytes32]bool{}
	for range 100 {
		c, err := w.Challenge(ctx)
		if err != nil || seen[c] {
			t.Fatalf("challenge repeated or failed: %v", err)
		}
		seen[c] = true
	}
}

func TestConcurrentChecksAcceptOnce(t *testing.T) {
	w := New(Config{})
	ctx := context.Background()
	now := time.Now()
	var accepted atomic.Int64
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 200 {
				// Every goroutine sends the same 200 ids of one sender, and
				// 200 of its own.
				if w.Check(ctx, msg(sender(0), i, now)) == nil {
					accepted.Add(1)
				}
				if err := w.Check(ctx, msg(sender(byte(1+g)), i, now)); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	wg.Wait()
	if accepted.Load() != 200 {
		t.Fatalf("%d of 200 shared ids accepted", accepted.Load())
	}
}

func TestParseUUID(t *testing.T) {
	got, ok := parseUUID("0123abcd-ef01-4234-9567-89abcdef0123")
	want := [16]byte{0x01, 0x23, 0xab, 0xcd, 0xef, 0x01, 0x42, 0x34, 0x95, 0x67, 0x89, 0xab, 0xcd, 0xef, 0x01, 0x23}
	if !ok || got != want {
		t.Fatalf("got %x", got)
	}
	if _, ok := parseUUID("0123ABCD-ef01-4234-9567-89abcdef0123"); ok {
		t.Fatal("upper case accepted")
	}
}

// TestMemoryPerEntry measures what one remembered id costs, to keep the
// documented bound of MemoryConfig honest.
func TestMemoryPerEntry(t *testing.T) {
	if testing.Short() {
		t.Skip("allocates")
	}
	const n = 100_000
	now := time.Now()
	mem := NewMemory(MemoryConfig{MaxEntries: n, MaxPerNamespace: n})
	w := New(Config{Storage: mem})
	ctx := context.Background()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for i := range n {
		if err := w.Check(ctx, msg(sender(byte(i%64)), i, now)); err != nil {
			t.Fatal(err)
		}
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	per := float64(after.HeapAlloc-before.HeapAlloc) / n
	t.Logf("%.0f bytes per remembered id", per)
	if per > 150 {
		t.Fatalf("%.0f bytes per id; MemoryConfig documents about 150", per)
	}
	runtime.KeepAlive(mem)
}
