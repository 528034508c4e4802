package peers

import (
	"errors"
	"testing"

	"github.com/moltgate/moltgate/gateway/pipeline"
	"github.com/moltgate/moltgate/wire"
)

func TestPooledRetireWaitsForCalls(t *testing.T) {
	shut := 0
	p := newPooled(nil, func() { shut++ })
	p.acquire()
	p.acquire()
	p.retire()
	if p.isDead() || shut != 0 {
		t.Fatal("closed with calls on it")
	}
	p.release()
	if p.isDead() {
		t.Fatal("closed with a call on it")
	}
	p.release()
	if !p.isDead() || shut != 1 {
		t.Fatalf("dead %v, closed %d times after the last call", p.isDead(), shut)
	}
	p.retire()
	p.close()
	if shut != 1 {
		t.Fatalf("closed %d times", shut)
	}

	idle := newPooled(nil, func() { shut++ })
	idle.retire()
	if !idle.isDead() {
		t.Fatal("an idle connection stays open once retired")
	}
}

// TestPooledLossCountedOnce: when a connection carrying many calls ends,
// the breaker hears of it from one call only, so one lost connection does
// not open the circuit.
func TestPooledLossCountedOnce(t *testing.T) {
	p := newPooled(nil, func() {})
	lostErr := wire.Errorf(wire.ErrPeerUnavailable, "", "connection to peer lost before the reply")
	if err := p.lost(lostErr); err != lostErr {
		t.Fatal("a failure on a live connection is marked")
	}
	p.close()
	br := newBreaker(5, 1e9, 32e9, nil, nil)
	for i := range 16 {
		err := p.lost(lostErr)
		if pipeline.Code(err) != wire.ErrPeerUnavailable || err.Error() != lostErr.Error() {
			t.Fatalf("call %d: got %v", i, err)
		}
		marked := errors.As(err, new(lossCounted))
		if marked != (i > 0) {
			t.Fatalf("call %d: marked %v", i, marked)
		}
		if !marked {
			br.record(false)
		}
	}
	if br.current() != BreakerClosed {
		t.Fatal("one lost connection opened the circuit")
	}
	other := wire.Errorf(wire.ErrTimeout, "", "late")
	if err := p.lost(other); err != other {
		t.Fatal("a failure other than the connection's loss is marked")
	}
}
