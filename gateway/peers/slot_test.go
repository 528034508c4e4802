package peers

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/moltgate/moltgate/handshake"
)

// fakeConn is a stream connection with no socket.
type fakeConn struct {
	*pooled
	n      int
	closed atomic.Bool
}

func (f *fakeConn) base() *pooled { return f.pooled }

// slotRig dials fakeConns, each dial waiting for a go-ahead if hold is set.
type slotRig struct {
	mu    sync.Mutex
	dials int
	hold  chan struct{}
	fail  error
	renew bool // what due answers
	room  bool
	ways  []string // what renewed was told, in order
	pol   slotPolicy
}

func newSlotRig() *slotRig {
	r := &slotRig{}
	r.pol = slotPolicy{
		due: func(*handshake.Session) (bool, bool) {
			r.mu.Lock()
			defer r.mu.Unlock()
			return r.renew, r.room
		},
		now:  time.Now,
		base: context.Background(),
		renewed: func(way string, err error) {
			if (way == "failed") != (err != nil) {
				panic("a failure without its error, or an error on success")
			}
			r.mu.Lock()
			r.ways = append(r.ways, way)
			r.mu.Unlock()
		},
	}
	return r
}

func (r *slotRig) set(renew, room bool) {
	r.mu.Lock()
	r.renew, r.room = renew, room
	r.mu.Unlock()
}

func (r *slotRig) dial(ctx context.Context) (*fakeConn, error) {
	r.mu.Lock()
	r.dials++
	n, hold, fail := r.dials, r.hold, r.fail
	r.mu.Unlock()
	if hold != nil {
		select {
		case <-hold:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	if fail != nil {
		return nil, fail
	}
	f := &fakeConn{n: n}
	f.pooled = newPooled(nil, func() { f.closed.Store(true) })
	return f, nil
}

// start returns a slot holding a first connection with no call on it.
func (r *slotRig) start(t *testing.T) (*streamSlot[*fakeConn], *fakeConn) {
	t.Helper()
	var sl streamSlot[*fakeConn]
	first, err := sl.get(context.Background(), &r.pol, r.dial)
	if err != nil || first.n != 1 {
		t.Fatalf("first get: %v, %+v", err, first)
	}
	first.release()
	return &sl, first
}

func (r *slotRig) renewals() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return fmt.Sprint(r.ways)
}

// TestSlotRenewsAhead: a connection due for renewal with room left keeps taking calls,
// without waiting, while its replacement is dialled; then new calls go to the
// replacement, and the old connection closes when its last call ends.
func TestSlotRenewsAhead(t *testing.T) {
	r := newSlotRig()
	sl, first := r.start(t)
	ctx := context.Background()
	if held, _ := sl.get(ctx, &r.pol, r.dial); held != first { // a call that stays on it
		t.Fatal("a second call went elsewhere")
	}
	r.set(true, true)
	r.hold = make(chan struct{})
	for i := range 5 {
		c, err := sl.get(ctx, &r.pol, r.dial) // returns at once: the dial is held
		if err != nil || c != first {
			t.Fatalf("call %d during the renewal went to %+v (%v)", i, c, err)
		}
		c.release()
	}
	close(r.hold)
	waitFor(t, func() bool {
		r.set(false, false)
		c, err := sl.get(ctx, &r.pol, r.dial)
		if err != nil {
			t.Fatal(err)
		}
		c.release()
		return c != first
	})
	if r.dials != 2 || r.renewals() != "[background]" {
		t.Fatalf("%d dials and renewals %v, want 2 and one in the background", r.dials, r.renewals())
	}
	if first.closed.Load() {
		t.Fatal("the old connection closed with a call still on it")
	}
	first.release()
	if !first.closed.Load() {
		t.Fatal("the old connection stayed open after its last call")
	}
}

// TestSlotWaitsWhenNoRoom: a session with no room left, or a dead connection, makes the
// caller wait for a new one.
func TestSlotWaitsWhenNoRoom(t *testing.T) {
	r := newSlotRig()
	sl, first := r.start(t)
	ctx := context.Background()
	r.set(true, false)
	second, err := sl.get(ctx, &r.pol, r.dial)
	if err != nil || second == first || !first.closed.Load() {
		t.Fatalf("no room: got %+v (%v), old closed %v", second, err, first.closed.Load())
	}
	second.release()
	r.set(false, false)
	second.close()
	third, err := sl.get(ctx, &r.pol, r.dial)
	if err != nil || third == second {
		t.Fatalf("dead connection: got %+v (%v)", third, err)
	}
	third.release()
	if r.renewals() != "[waited waited]" {
		t.Fatalf("renewals %v, want two that callers waited for", r.renewals())
	}
}

// TestSlotRenewalFailure: a renewal that fails leaves calls on the old connection, is
// reported, and is not tried again at once.
func TestSlotRenewalFailure(t *testing.T) {
	r := newSlotRig()
	sl, first := r.start(t)
	ctx := context.Background()
	r.fail = errors.New("handshake refused")
	r.set(true, true)
	c, _ := sl.get(ctx, &r.pol, r.dial)
	c.release()
	waitFor(t, func() bool { return r.renewals() == "[failed]" })
	for range 10 {
		c, err := sl.get(ctx, &r.pol, r.dial)
		if err != nil || c != first {
			t.Fatalf("after a failed renewal: %+v (%v)", c, err)
		}
		c.release()
	}
	r.mu.Lock()
	dials := r.dials
	r.mu.Unlock()
	if dials != 2 || r.renewals() != "[failed]" {
		t.Fatalf("%d dials within renewRetry of a failure and renewals %v, want 2 and one failure", dials, r.renewals())
	}
}

// TestSlotCloseDuringRenewal: a renewal that completes after the slot was closed does not
// bring a connection back.
func TestSlotCloseDuringRenewal(t *testing.T) {
	r := newSlotRig()
	sl, _ := r.start(t)
	ctx := context.Background()
	r.set(true, true)
	r.hold = make(chan struct{})
	c, _ := sl.get(ctx, &r.pol, r.dial)
	c.release()
	sl.close()
	close(r.hold)
	waitFor(t, func() bool {
		sl.mu.Lock()
		defer sl.mu.Unlock()
		return !sl.renewing
	})
	sl.mu.Lock()
	has := sl.has
	sl.mu.Unlock()
	if has {
		t.Fatal("a renewal refilled a closed slot")
	}
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("timed out")
		}
		time.Sleep(time.Millisecond)
	}
}
