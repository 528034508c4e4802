package peers

import (
	"strconv"
	"testing"
	"time"

	"github.com/moltgate/moltgate/wire"
)

func reply(re string, n int) delivered {
	return delivered{m: &wire.Message{ID: "r" + strconv.Itoa(n), Re: re}}
}

// Replies reach their call in order; one for no waiting call, or for a call
// that has ended, is refused.
func TestPendingCallsOrder(t *testing.T) {
	p := newPendingCalls()
	pc, done := p.wait("q1")
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
	p := newPendingCalls()
	pc, done := p.wait("q1")
	defer done()
	for i := range ReplyBuffer {
		if !p.deliverTo(reply("q1", i)) {
			t.Fatalf("reply %d not delivered", i)
		}
	}
	delivered := make(chan bool, 1)
	go func() { delivered <- p.deliverTo(reply("q1", ReplyBuffer)) }()
	select {
	case <-delivered:
		t.Fatal("a delivery past ReplyBuffer did not wait")
	case <-time.After(50 * time.Millisecond):
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

// A delivery waiting for a call that has ended gives up at once.
func TestPendingCallsEndWhileFull(t *testing.T) {
	p := newPendingCalls()
	_, done := p.wait("q1")
	for i := range ReplyBuffer {
		p.deliverTo(reply("q1", i))
	}
	delivered := make(chan bool, 1)
	go func() { delivered <- p.deliverTo(reply("q1", ReplyBuffer)) }()
	time.Sleep(20 * time.Millisecond)
	done()
	select {
	case ok := <-delivered:
		if ok {
			t.Fatal("delivered to an ended call")
		}
	case <-time.After(stallLimit / 2):
		t.Fatal("the delivery still waits for an ended call")
	}
}
