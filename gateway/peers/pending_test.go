package peers

import (
	"strconv"
	"testing"
	"time"

	"github.com/moltgate/moltgate/wire"
)

// fakeTimers are the timers of deliveries' waits, which fire when a test
// says so: what is asked of them and when they fire does not depend on a
// machine's speed.
type fakeTimers struct {
	asked chan time.Duration
	fire  chan time.Time
}

// pendingWithFakeTimers is calls on connections whose write timeout is
// writeTimeout, on a clock stopped at now.
func pendingWithFakeTimers(writeTimeout time.Duration, now time.Time) (*pendingCalls, *fakeTimers) {
	ft := &fakeTimers{asked: make(chan time.Duration, 8), fire: make(chan time.Time)}
	p := newPendingCalls(func() time.Duration { return writeTimeout }, nil)
	p.now = func() time.Time { return now }
	p.after = func(d time.Duration) (<-chan time.Time, func() bool) {
		ft.asked <- d
		return ft.fire, func() bool { return true }
	}
	return p, ft
}

func reply(re string, n int) delivered {
	return delivered{m: &wire.Message{ID: "r" + strconv.Itoa(n), Re: re}}
}

// Replies reach their call in order; one for no waiting call, or for a call
// that has ended, is refused.
func TestPendingCallsOrder(t *testing.T) {
	p := newPendingCalls(func() time.Duration { return time.Minute }, nil)
	pc, done := p.wait("q1", time.Time{})
	if _, ok := pc.next(); ok {
		t.Fatal("a reply before any was delivered")
	}
	for i := range 3 {
		if !p.deliverTo(reply("q1", i)) {
			t.Fatalf("reply %d not delivered", i)
		}
	}
	if p.deliverTo(reply("q2", 0)) {
		t.Fatal("a reply for no call was delivered")
	}
	select {
	case <-pc.ready:
	default:
		t.Fatal("delivery did not signal the call")
	}
	for i := range 3 {
		d, ok := pc.next()
		if !ok || d.m.ID != "r"+strconv.Itoa(i) {
			t.Fatalf("reply %d: got %v, %v", i, d.m, ok)
		}
	}
	if _, ok := pc.next(); ok {
		t.Fatal("more replies than were delivered")
	}
	done()
	if p.deliverTo(reply("q1", 3)) {
		t.Fatal("a reply for an ended call was delivered")
	}
}

// A call with ReplyBuffer replies untaken holds up the next delivery until it
// takes one; nothing is dropped.
func TestPendingCallsBackpressure(t *testing.T) {
	p, ft := pendingWithFakeTimers(time.Minute, time.Now())
	pc, done := p.wait("q1", time.Time{})
	defer done()
	for i := range ReplyBuffer {
		if !p.deliverTo(reply("q1", i)) {
			t.Fatalf("reply %d not delivered", i)
		}
	}
	delivered := make(chan bool, 1)
	go func() { delivered <- p.deliverTo(reply("q1", ReplyBuffer)) }()
	<-ft.asked // the delivery past ReplyBuffer waits
	select {
	case <-delivered:
		t.Fatal("a delivery past ReplyBuffer did not wait")
	default:
	}
	if d, ok := pc.next(); !ok || d.m.ID != "r0" {
		t.Fatalf("first reply: %v, %v", d.m, ok)
	}
	if !<-delivered {
		t.Fatal("the waiting delivery failed once there was room")
	}
	for i := 1; i <= ReplyBuffer; i++ {
		if d, ok := pc.next(); !ok || d.m.ID != "r"+strconv.Itoa(i) {
			t.Fatalf("reply %d: %v, %v", i, d.m, ok)
		}
	}
}

// A delivery waiting for a call that has ended gives up at once, not at
// its stall limit (whose timer here never fires).
func TestPendingCallsEndWhileFull(t *testing.T) {
	p, ft := pendingWithFakeTimers(time.Minute, time.Now())
	_, done := p.wait("q1", time.Time{})
	for i := range ReplyBuffer {
		p.deliverTo(reply("q1", i))
	}
	delivered := make(chan bool, 1)
	go func() { delivered <- p.deliverTo(reply("q1", ReplyBuffer)) }()
	<-ft.asked // the delivery waits
	done()
	if <-delivered {
		t.Fatal("delivered to an ended call")
	}
}

// The stall limit is half the write timeout, or what the call has left
// before its deadline if that is less (nothing once it has passed); once
// it runs out without the call taking a reply, the call is abandoned and
// told after how long. A reply taken restarts it.
func TestPendingCallsStallLimit(t *testing.T) {
	now := time.Date(2026, 11, 27, 8, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name     string
		deadline time.Time
		want     time.Duration
	}{
		{"no deadline", time.Time{}, 5 * time.Second},
		{"a deadline beyond it", now.Add(time.Minute), 5 * time.Second},
		{"a deadline sooner", now.Add(time.Second), time.Second},
		{"a deadline passed", now.Add(-time.Second), 0},
	} {
		p, ft := pendingWithFakeTimers(10*time.Second, now)
		pc, done := p.wait("q1", tc.deadline)
		for i := range ReplyBuffer {
			p.deliverTo(reply("q1", i))
		}
		// Taking a reply lets the waiting delivery through: the limit
		// counts from the last reply taken.
		delivered := make(chan bool, 1)
		go func() { delivered <- p.deliverTo(reply("q1", ReplyBuffer)) }()
		if d := <-ft.asked; d != tc.want {
			t.Fatalf("%s: the delivery waits %v, want %v", tc.name, d, tc.want)
		}
		pc.next()
		if !<-delivered {
			t.Fatalf("%s: the delivery failed once the call took a reply", tc.name)
		}
		go func() { delivered <- p.deliverTo(reply("q1", ReplyBuffer+1)) }()
		<-ft.asked
		ft.fire <- now
		if <-delivered {
			t.Fatalf("%s: delivered past the stall limit", tc.name)
		}
		select {
		case <-pc.overrun:
		default:
			t.Fatalf("%s: the call was not told it was abandoned", tc.name)
		}
		if pc.stalled != tc.want {
			t.Fatalf("%s: abandoned after %v, want %v", tc.name, pc.stalled, tc.want)
		}
		done()
	}
}
