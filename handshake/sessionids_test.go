package handshake

import (
	"testing"
	"time"

	"github.com/moltgate/moltgate/crypto"
	"github.com/moltgate/moltgate/wire"
)

// TestResealedMessageRefused seals one signed message twice, under two
// counters, as a peer retrying after a lost reply would: the session
// accepts it once.
func TestResealedMessageRefused(t *testing.T) {
	c := newCast(t)
	clk := newClock(t0)
	si, sr := sessions(t, c, clk, nil)
	m := query(c.alice, c.gw, uuid(7), t0, wire.Int)
	if _, err := crypto.Sign(wire.NewCodec(wire.Limits{}), m, c.alice.agent.Signing); err != nil {
		t.Fatal(err)
	}
	first, err := si.Seal(m)
	if err != nil {
		t.Fatal(err)
	}
	again, err := si.Seal(m)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sr.Open(mustEnv(t, first)); err != nil {
		t.Fatal(err)
	}
	_, err = sr.Open(mustEnv(t, again))
	wantCode(t, err, wire.ErrReplay)
	// The refused copy spent no counter: the next message opens.
	next, _ := si.SignAndSeal(query(c.alice, c.gw, uuid(8), t0, wire.Int), c.alice.agent.Signing)
	if _, err := sr.Open(mustEnv(t, next)); err != nil {
		t.Fatal(err)
	}
}

// TestSessionIDsBounded fills a session's id memory: its size stays at
// the bound, the oldest ids leave it, and a copy of one of them is still
// refused, by its age.
func TestSessionIDsBounded(t *testing.T) {
	var w idWindow
	now := t0.UnixMilli()
	skew := (5 * time.Minute).Milliseconds()
	for i := range idWindowSize + 100 {
		id := uuid(i)
		ts := now + int64(i/10) // ten messages a millisecond
		if r, old := w.seen(id, ts, now, skew); r || old {
			t.Fatalf("message %d refused (replay %v, too old %v)", i, r, old)
		}
		w.add(id, ts)
	}
	if len(w.ids) != idWindowSize || len(w.heap) != idWindowSize {
		t.Fatalf("%d ids held; want the bound %d", len(w.ids), idWindowSize)
	}
	if r, old := w.seen(uuid(0), now, now, skew); !r && !old {
		t.Fatal("a forgotten message's copy was accepted")
	}
	if r, old := w.seen(uuid(idWindowSize+99), now+int64((idWindowSize+99)/10), now, skew); !r || old {
		t.Fatal("a remembered message's copy is not a replay")
	}
	// Past the time window everything is forgotten, and nothing is refused
	// for its age that the time check would let through.
	later := now + skew + int64(idWindowSize)
	if r, old := w.seen(uuid(1), later, later, skew); r || old {
		t.Fatalf("after the window: replay %v, too old %v", r, old)
	}
	if len(w.ids) != 0 {
		t.Fatalf("%d ids held after the window", len(w.ids))
	}
}
