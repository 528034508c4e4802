package handshake

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/moltgate/moltgate/wire"
)

// sessions runs a handshake between alice and the gateway on clk.
func sessions(t *testing.T, c *cast, clk *clock, tweak func(ci, cr *Config)) (si, sr *Session) {
	t.Helper()
	ci, cr := c.config(c.alice, clk, nil), c.config(c.gw, clk, nil)
	if tweak != nil {
		tweak(ci, cr)
	}
	si, sr, errI, errR := pair(t, ci, cr, peerOf(c.gw))
	if errI != nil || errR != nil {
		t.Fatal(errI, errR)
	}
	return si, sr
}

func sealN(t *testing.T, c *cast, s *Session, n int, ts time.Time) []*wire.Envelope {
	t.Helper()
	out := make([]*wire.Envelope, n)
	for i := range out {
		b, err := s.SignAndSeal(query(c.alice, c.gw, uuid(1000+i), ts, wire.Int), c.alice.agent.Signing)
		if err != nil {
			t.Fatal(err)
		}
		out[i] = mustEnv(t, b)
	}
	return out
}

func wantExpired(t *testing.T, err error) {
	t.Helper()
	wantCode(t, err, wire.ErrSessionExpired)
	var we *wire.Error
	errors.As(err, &we)
	p := we.Payload()
	if !p.Recoverable || p.Suggestion == nil || p.Suggestion.Action != wire.ActionHandshake {
		t.Fatalf("E_SESSION_EXPIRED payload %+v: want recoverable with a handshake suggestion", p)
	}
}

// TestAppendSignAndSeal checks that an envelope appended to a buffer
// leaves the buffer's bytes alone and opens on the other side, one after
// another from one reused buffer.
func TestAppendSignAndSeal(t *testing.T) {
	c := newCast(t)
	clk := newClock(t0)
	si, sr := sessions(t, c, clk, nil)
	buf := []byte("prefix")
	for i := range 3 {
		out, err := si.AppendSignAndSeal(buf, query(c.alice, c.gw, uuid(2000+i), t0, wire.Int), c.alice.agent.Signing)
		if err != nil {
			t.Fatal(err)
		}
		if string(out[:6]) != "prefix" {
			t.Fatalf("prefix overwritten: %q", out[:6])
		}
		m, err := sr.Open(mustEnv(t, out[6:]))
		if err != nil {
			t.Fatal(err)
		}
		if m.ID != uuid(2000+i) {
			t.Fatalf("opened %s, want %s", m.ID, uuid(2000+i))
		}
		buf = out[:6]
	}
}

func TestCounterReplayInSession(t *testing.T) {
	c := newCast(t)
	clk := newClock(t0)
	si, sr := sessions(t, c, clk, nil)
	envs := sealN(t, c, si, 3, t0)
	if _, err := sr.Open(envs[0]); err != nil {
		t.Fatal(err)
	}
	_, err := sr.Open(envs[0])
	wantCode(t, err, wire.ErrReplay)
	// Out of order within the window is fine, once each.
	if _, err := sr.Open(envs[2]); err != nil {
		t.Fatal(err)
	}
	if _, err := sr.Open(envs[1]); err != nil {
		t.Fatal(err)
	}
	for _, e := range envs {
		_, err := sr.Open(e)
		wantCode(t, err, wire.ErrReplay)
	}
	// session_established's counter 0 is spent too.
	forged := *envs[0]
	forged.Counter = 0
	_, err = sr.Open(&forged)
	wantCode(t, err, wire.ErrReplay)
}

func TestCounterTooFarBehind(t *testing.T) {
	c := newCast(t)
	clk := newClock(t0)
	si, sr := sessions(t, c, clk, nil)
	envs := sealN(t, c, si, windowSize+2, t0)
	// The newest arrives first; the first two are then too old.
	if _, err := sr.Open(envs[len(envs)-1]); err != nil {
		t.Fatal(err)
	}
	_, err := sr.Open(envs[0])
	wantCode(t, err, wire.ErrReplay)
	if _, err := sr.Open(envs[2]); err != nil { // exactly windowSize behind the next
		t.Fatal(err)
	}
}

func TestCounterWindow(t *testing.T) {
	var w counterWindow
	accept := func(c uint64) error {
		if err := w.check(c); err != nil {
			return err
		}
		w.mark(c)
		return nil
	}
	const b1 = windowSize + 2000
	const b2 = b1 + 3000
	for _, step := range []struct {
		c  uint64
		ok bool
	}{
		{0, true}, {0, false}, {5, true}, {3, true}, {3, false}, {1, true}, {5, false},
		// The window holds the windowSize counters below next.
		{b1, true}, {b1 + 1 - windowSize, true}, {b1 - windowSize, false}, {b1 - 1, true},
		{b2, true}, {b1 - 1, false}, {b2 - 1, true}, {b2 + 1, true}, {b2 - 1000, true},
		{b2 + 2 - windowSize, true}, {b2 + 1 - windowSize, false},
	} {
		if err := accept(step.c); (err == nil) != step.ok {
			t.Fatalf("counter %d: %v, want ok=%v", step.c, err, step.ok)
		}
	}
	// Bits from a lap ago do not linger: after a jump of exactly the window,
	// counters of the new lap that share a slot with old ones are new.
	w = counterWindow{}
	for c := range uint64(windowSize) {
		if err := accept(c); err != nil {
			t.Fatal(err)
		}
	}
	if err := accept(2*windowSize - 1); err != nil {
		t.Fatal(err)
	}
	for c := uint64(windowSize); c < 2*windowSize-1; c++ {
		if err := accept(c); err != nil {
			t.Fatalf("counter %d refused after a lap: %v", c, err)
		}
	}
}

func TestForgedEnvelopeBurnsNoCounter(t *testing.T) {
	c := newCast(t)
	clk := newClock(t0)
	si, sr := sessions(t, c, clk, nil)
	env := sealN(t, c, si, 1, t0)[0]
	forged := *env
	forged.Ciphertext = append([]byte(nil), env.Ciphertext...)
	forged.Ciphertext[0] ^= 1
	_, err := sr.Open(&forged)
	wantCode(t, err, wire.ErrAuthFailed)
	if _, err := sr.Open(env); err != nil {
		t.Fatalf("genuine envelope refused after a forgery with its counter: %v", err)
	}
}

func TestSessionHeaderAuthenticated(t *testing.T) {
	c := newCast(t)
	clk := newClock(t0)
	si, sr := sessions(t, c, clk, nil)
	env := sealN(t, c, si, 1, t0)[0]
	// Another counter with the same ciphertext: the header is associated
	// data, and the counter the nonce.
	moved := mustEnv(t, wire.AppendSessionSealed(nil, env.SessionID, env.Counter+1, env.Ciphertext))
	_, err := sr.Open(moved)
	wantCode(t, err, wire.ErrAuthFailed)
	// An extra header member.
	b := wire.AppendSessionSealed(nil, env.SessionID, env.Counter, env.Ciphertext)
	b = []byte(strings.Replace(string(b), `"encrypted":true`, `"encrypted":true,"x":1`, 1))
	_, err = sr.Open(mustEnv(t, b))
	wantCode(t, err, wire.ErrAuthFailed)
	// Another session's id.
	other := mustEnv(t, wire.AppendSessionSealed(nil, strings.Repeat("a", 32), env.Counter, env.Ciphertext))
	_, err = sr.Open(other)
	wantCode(t, err, wire.ErrAuthFailed)
	if _, err := sr.Open(env); err != nil {
		t.Fatal(err)
	}
}

func TestSessionExpired(t *testing.T) {
	c := newCast(t)
	clk := newClock(t0)
	si, sr := sessions(t, c, clk, nil)
	st := NewStore(StoreConfig{Now: clk.Now})
	st.Add(sr)
	env := sealN(t, c, si, 1, t0)[0]
	clk.Add(DefaultSessionLifetime)
	_, err := sr.Open(env)
	wantExpired(t, err)
	_, err = si.SignAndSeal(query(c.alice, c.gw, uuid(5), clk.Now(), wire.Int), c.alice.agent.Signing)
	wantExpired(t, err)
	_, _, err = st.Open(env)
	wantExpired(t, err)
	_, err = st.Peer(c.alice.agent.Ref)
	wantExpired(t, err)
	if st.Len() != 0 {
		t.Fatal("expired session kept")
	}
	// A new handshake gives a new, working session.
	si2, sr2 := sessions(t, c, clk, nil)
	if si2.ID() == si.ID() {
		t.Fatal("session id reused")
	}
	st.Add(sr2)
	env = sealN(t, c, si2, 1, clk.Now())[0]
	if _, _, err := st.Open(env); err != nil {
		t.Fatal(err)
	}
}

func TestSessionByteLimit(t *testing.T) {
	c := newCast(t)
	clk := newClock(t0)
	si, sr := sessions(t, c, clk, func(ci, cr *Config) {
		ci.MaxSessionBytes = 4000
		cr.MaxSessionBytes = 4000
	})
	var sealed []*wire.Envelope
	var err error
	for i := 0; err == nil; i++ {
		var b []byte
		b, err = si.SignAndSeal(query(c.alice, c.gw, uuid(i), t0, wire.Int), c.alice.agent.Signing)
		if err == nil {
			sealed = append(sealed, mustEnv(t, b))
		}
		if i > 100 {
			t.Fatal("no limit")
		}
	}
	wantExpired(t, err)
	if len(sealed) < 3 {
		t.Fatalf("only %d messages fit in 4000 bytes", len(sealed))
	}
	// The receiver counts the same bytes: it opens all that was sealed,
	// and then has no room for a reply.
	for _, e := range sealed {
		if _, err := sr.Open(e); err != nil {
			t.Fatal(err)
		}
	}
	reply := query(c.gw, c.alice, uuid(999), t0, wire.Int)
	reply.Payload = &wire.QueryPayload{Domain: "weather", Params: wire.ObjectValue(wire.Member{Key: "x", Value: wire.StringValue(strings.Repeat("x", 1000))})}
	_, err = sr.SignAndSeal(reply, c.gw.agent.Signing)
	wantExpired(t, err)
	_, err = sr.Open(sealed[0])
	wantExpired(t, err)
}

// TestSessionWorn checks that a session says it is worn once half its bytes
// are spent, on both sides, while it still seals and opens: its owner then
// has the other half to make a new one in.
func TestSessionWorn(t *testing.T) {
	c := newCast(t)
	clk := newClock(t0)
	si, sr := sessions(t, c, clk, func(ci, cr *Config) {
		ci.MaxSessionBytes = 8000
		cr.MaxSessionBytes = 8000
	})
	if si.Worn() || sr.Worn() {
		t.Fatal("a new session is worn")
	}
	var spent int
	for i := 0; !si.Worn(); i++ {
		b, err := si.SignAndSeal(query(c.alice, c.gw, uuid(i), t0, wire.Int), c.alice.agent.Signing)
		if err != nil {
			t.Fatalf("message %d: %v", i, err)
		}
		if _, err := sr.Open(mustEnv(t, b)); err != nil {
			t.Fatalf("open message %d: %v", i, err)
		}
		spent += len(b)
		if spent > 8000 {
			t.Fatal("never worn")
		}
	}
	if !sr.Worn() {
		t.Fatal("the receiver, which counted the same bytes, is not worn")
	}
	if w := si.Wear(); w <= 0.5 || w > 0.7 {
		t.Fatalf("worn at a wear of %.3f", w)
	}
	// Worn is a hint, not a limit: the session still carries messages.
	b, err := si.SignAndSeal(query(c.alice, c.gw, uuid(500), t0, wire.Int), c.alice.agent.Signing)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sr.Open(mustEnv(t, b)); err != nil {
		t.Fatal(err)
	}
}

func TestStoreBoundedLRU(t *testing.T) {
	c := newCast(t)
	clk := newClock(t0)
	st := NewStore(StoreConfig{MaxSessions: 3, Now: clk.Now})
	var all []*Session
	for range 5 {
		_, sr := sessions(t, c, clk, nil)
		st.Add(sr)
		all = append(all, sr)
	}
	if st.Len() != 3 {
		t.Fatalf("%d sessions held", st.Len())
	}
	for i, s := range all {
		_, err := st.Get(s.ID())
		if i < 2 {
			wantExpired(t, err)
		} else if err != nil {
			t.Fatal(err)
		}
	}
	got, err := st.Peer(c.alice.agent.Ref)
	if err != nil || got != all[4] {
		t.Fatalf("Peer gave %v, %v; want the newest", got, err)
	}
	st.Remove(all[4].ID())
	_, err = st.Peer(c.alice.agent.Ref)
	wantExpired(t, err)
	if _, err := all[4].SignAndSeal(query(c.gw, c.alice, uuid(1), t0, wire.Int), c.gw.agent.Signing); err == nil {
		t.Fatal("removed session still seals")
	}
	clk.Add(2 * time.Hour)
	if n := st.Prune(); n != 2 || st.Len() != 0 {
		t.Fatalf("pruned %d, %d left", n, st.Len())
	}
}

func TestStoreRemoveOrg(t *testing.T) {
	c := newCast(t)
	clk := newClock(t0)
	st := NewStore(StoreConfig{Now: clk.Now})
	// Both ends of one session share its id: take each from another.
	si, _ := sessions(t, c, clk, nil) // its peer is gw@globex
	_, sr := sessions(t, c, clk, nil) // alice@acme
	_, sr2 := sessions(t, c, clk, nil)
	st.Add(si)
	st.Add(sr)
	st.Add(sr2)
	if n := st.RemoveOrg("acme"); n != 2 || st.Len() != 1 {
		t.Fatalf("removed %d, %d left", n, st.Len())
	}
	if _, err := st.Peer(c.alice.agent.Ref); err == nil {
		t.Fatal("a session with acme is left")
	}
	if _, err := sr.SignAndSeal(query(c.gw, c.alice, uuid(1), t0, wire.Int), c.gw.agent.Signing); err == nil {
		t.Fatal("removed session still seals")
	}
	if got, err := st.Peer(c.gw.agent.Ref); err != nil || got != si {
		t.Fatalf("globex's session: %v %v", got, err)
	}
}

// TestRefusedNamesTheMessage: a message that opens in the session but is
// refused comes back as a *RefusedError naming it (even when it does not
// decode, if its id can be read), with the refusal's own code; an envelope
// that does not open names nothing.
func TestRefusedNamesTheMessage(t *testing.T) {
	c := newCast(t)
	clk := newClock(t0)
	si, sr := sessions(t, c, clk, nil)
	refusedAs := func(t *testing.T, err error, id, re string, code wire.Code) {
		t.Helper()
		var rf *RefusedError
		if !errors.As(err, &rf) || rf.ID != id || rf.Re != re {
			t.Fatalf("refusal %v (%#v): want a RefusedError naming %q, re %q", err, rf, id, re)
		}
		wantCode(t, err, code)
	}

	late := query(c.alice, c.gw, uuid(3001), t0.Add(-2*time.Second), wire.Int)
	late.Re = uuid(3000)
	late.Exp = t0.Add(-time.Second).UnixMilli()
	b, err := si.SignAndSeal(late, c.alice.agent.Signing)
	if err != nil {
		t.Fatal(err)
	}
	_, err = sr.Open(mustEnv(t, b))
	refusedAs(t, err, uuid(3001), uuid(3000), wire.ErrExpired)

	// Changed after it was signed.
	m := query(c.alice, c.gw, uuid(3002), t0, wire.Int)
	if _, err := si.SignAndSeal(m, c.alice.agent.Signing); err != nil {
		t.Fatal(err)
	}
	m.TS++
	forged, err := si.Seal(m)
	if err != nil {
		t.Fatal(err)
	}
	_, err = sr.Open(mustEnv(t, forged))
	refusedAs(t, err, uuid(3002), "", wire.ErrSignature)

	// A plaintext that is JSON with an id, but not a message.
	junk, err := si.sealBytes([]byte(`{"id":"` + uuid(3003) + `","re":"not an id"}`))
	if err != nil {
		t.Fatal(err)
	}
	_, err = sr.Open(mustEnv(t, junk))
	var rf *RefusedError
	if !errors.As(err, &rf) || rf.ID != uuid(3003) || rf.Re != "" {
		t.Fatalf("undecodable message: %v (%#v)", err, rf)
	}

	good, err := si.SignAndSeal(query(c.alice, c.gw, uuid(3004), t0, wire.Int), c.alice.agent.Signing)
	if err != nil {
		t.Fatal(err)
	}
	env := mustEnv(t, good)
	env.Ciphertext[0] ^= 1
	if _, err = sr.Open(env); errors.As(err, &rf) {
		t.Fatalf("an envelope that did not open was named: %#v", rf)
	}
	wantCode(t, err, wire.ErrAuthFailed)
}
