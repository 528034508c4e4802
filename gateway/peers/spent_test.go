package peers

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/moltgate/moltgate/gateway/pipeline"
	"github.com/moltgate/moltgate/handshake"
	"github.com/moltgate/moltgate/wire"
)

// A call the peer answers E_SESSION_EXPIRED ends the session it was sent
// in and goes again in a new one: not whichever session with the peer is
// the newest by then. Here globex dials acme while acme's call is under
// way, so the newest session with globex in acme's store is the one globex
// made, which globex's own calls go in. It stays, and acme's call is sent
// again in it (the peer knows it: no handshake); the session the call was
// refused in goes.
func TestSessionExpiredEndsTheCallsOwnSession(t *testing.T) {
	var (
		fp     *failingPeer
		acme   *side
		theirs *handshake.Session
	)
	tab, ps, acme, fp := policyRig(t, nil, func(n int) *wire.Error {
		if n > 0 {
			return wire.Errorf(wire.ErrCapability, "", "no capability")
		}
		theirs = dial(t, fp.globex, acme)
		return wire.Errorf(wire.ErrSessionExpired, "", "the session ran out")
	})
	ours, err := acme.sessions.Peer(ps.ref)
	if err != nil {
		t.Fatal(err)
	}
	if err := send(t, tab, acme, wire.OpTool); pipeline.Code(err) != wire.ErrCapability {
		t.Fatalf("the call ended with %v, want the answer to its second attempt", err)
	}
	if calls, hellos := fp.counts(); calls != 2 || hellos != 0 {
		t.Fatalf("the peer saw %d messages and %d handshakes, want 2 and 0", calls, hellos)
	}
	if _, err := acme.sessions.Get(theirs.ID()); err != nil {
		t.Fatalf("the session globex dialled was ended: %v", err)
	}
	if _, err := acme.sessions.Get(ours.ID()); err == nil {
		t.Fatal("the session the call was refused in is still held")
	}
}

// dial makes a session as from's gateway dialling to's, held on both
// sides, and returns to's end of it.
func dial(t *testing.T, from, to *side) *handshake.Session {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	a, b := handshake.Pipe()
	done := make(chan *handshake.Session, 1)
	go func() {
		sess, err := handshake.NewResponder(to.cfg).Run(ctx, b)
		if err != nil {
			t.Error(err)
		}
		done <- sess
	}()
	sess, err := handshake.NewInitiator(from.cfg, handshake.Peer{Ref: to.gw.Ref}).Run(ctx, a)
	if err != nil {
		t.Fatal(err)
	}
	theirs := <-done
	if theirs == nil {
		t.FailNow()
	}
	from.sessions.Add(sess)
	to.sessions.Add(theirs)
	return theirs
}

// On a stream connection the same: the attempt's connection closes, with
// its session, not the one the slot holds by then (another call's, made
// meanwhile), whose calls go on. A failure that is not the session's
// ends nothing.
func TestSessionExpiredEndsTheCallsOwnConnection(t *testing.T) {
	_, ps, acme, globex := pair(t)
	ours, err := acme.sessions.Peer(ps.ref)
	if err != nil {
		t.Fatal(err)
	}
	dial(t, acme, globex)
	newer, err := acme.sessions.Peer(ps.ref)
	if err != nil || newer == ours {
		t.Fatalf("no newer session: %v", err)
	}
	attempt, current := newPooled(ours, func() {}), newPooled(newer, func() {})
	ps.ws.cur, ps.ws.has = &wsClient{pooled: current}, true

	if err := ps.spent(answered{wire.Errorf(wire.ErrCapability, "", "no capability")}, ours, attempt); pipeline.Code(err) != wire.ErrCapability || attempt.isDead() {
		t.Fatalf("a refusal that is not the session's: %v, the connection closed: %v", err, attempt.isDead())
	}
	err = ps.spent(answered{wire.Errorf(wire.ErrSessionExpired, "", "the session ran out")}, ours, attempt)
	if !errors.As(err, new(sessionGone)) {
		t.Fatalf("the call's %v is not sent again in a new session", err)
	}
	if !attempt.isDead() || current.isDead() {
		t.Fatalf("the attempt's connection closed: %v; the slot's: %v", attempt.isDead(), current.isDead())
	}
	if _, err := acme.sessions.Get(ours.ID()); err == nil {
		t.Fatal("the session the call was refused in is still held")
	}
	if _, err := acme.sessions.Get(newer.ID()); err != nil {
		t.Fatalf("the slot's session was ended: %v", err)
	}
}
