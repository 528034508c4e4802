package handshake

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/moltgate/moltgate/identity"
	"github.com/moltgate/moltgate/keys"
	"github.com/moltgate/moltgate/wire"
)

// An initiator that expects a peer's old key takes the key the peer's org
// handed over to, because its pins accept it, and only then; the store
// ends the sessions made under one key of an org and not the others.
func TestInitiatorTakesHandedOverKey(t *testing.T) {
	c := newCast(t)
	clk := newClock(t0)
	old := c.carol.agent.Signing.Public() // stands for gw's key before its handover
	peer := peerOf(c.gw)
	peer.Key = old
	pins, err := keys.OpenPinStore(t.TempDir()+"/pins.json", clk.Now)
	if err != nil {
		t.Fatal(err)
	}
	name := c.gw.agent.Ref.String()
	if err := pins.Pin(name, old, keys.X25519Public{}); err != nil {
		t.Fatal(err)
	}
	ci := c.config(c.alice, clk, nil)
	ci.Pins = pins
	_, _, errI, _ := pair(t, ci, c.config(c.gw, clk, nil), peer)
	wantCode(t, errI, wire.ErrAuthFailed) // no handover yet: another key is refused

	if _, err := pins.Handover(name, old, c.gw.agent.Signing.Public(), keys.X25519Public{}, clk.Now(), clk.Now().Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	si, _, errI, errR := pair(t, ci, c.config(c.gw, clk, nil), peer)
	if errI != nil || errR != nil {
		t.Fatalf("handshake under the key handed over to: %v %v", errI, errR)
	}
	if p, _ := pins.Lookup(name); !p.Key.Equal(c.gw.agent.Signing.Public()) {
		t.Fatal("the pin did not take the key presented")
	}

	st := NewStore(StoreConfig{Now: clk.Now})
	st.Add(si)
	si2, _, errI, _ := pair(t, c.config(c.alice, clk, nil), c.config(c.carol, clk, nil), peerOf(c.carol))
	if errI != nil {
		t.Fatal(errI)
	}
	st.Add(si2)
	if n := st.RemoveKey(c.gw.agent.Ref.Org, old); n != 0 {
		t.Fatalf("removed %d sessions under a key none was made with", n)
	}
	if n := st.RemoveKey(c.gw.agent.Ref.Org, c.gw.agent.Signing.Public()); n != 1 || st.Len() != 1 {
		t.Fatalf("removed %d, %d left", n, st.Len())
	}
}

// A side whose identity comes from GetSelf makes each handshake under the
// identity of its start: a session made before its key changed goes on
// under the old key, which its messages there are signed with whatever key
// the caller hands, and the next handshake presents the new key.
func TestSelfChangedWhileSessionsLive(t *testing.T) {
	c := newCast(t)
	clk := newClock(t0)
	var cur atomic.Pointer[party]
	gw := c.gw
	cur.Store(&gw)
	cr := c.config(c.gw, clk, nil)
	cr.Identity, cr.Cert = nil, nil
	cr.GetSelf = func() (*identity.Agent, *identity.Cert) { p := cur.Load(); return p.agent, p.cert }
	si, sr, errI, errR := pair(t, c.config(c.alice, clk, nil), cr, peerOf(c.gw))
	if errI != nil || errR != nil {
		t.Fatal(errI, errR)
	}
	if !sr.Self().Signing.Public().Equal(c.gw.agent.Signing.Public()) {
		t.Fatal("the session does not keep the identity it was made under")
	}

	// The gateway's key is rotated: same name and encryption key.
	sk, err := keys.GenerateEd25519(seeded(99))
	if err != nil {
		t.Fatal(err)
	}
	next := &identity.Agent{Ref: c.gw.agent.Ref, Signing: sk, Encryption: c.gw.agent.Encryption}
	cert, err := c.gw.org.IssueIdentity(next.Public(), t0.Add(-time.Hour), t0.Add(24*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	cur.Store(&party{org: c.gw.org, agent: next, cert: cert})

	// In the session made before, the new key's message goes under the
	// old one, which the peer accepts there.
	m := query(party{agent: next}, c.alice, uuid(1), t0, wire.Int)
	env, err := sr.SignAndSeal(m, next.Signing)
	if err != nil {
		t.Fatal(err)
	}
	got, err := si.Open(mustEnv(t, env))
	if err != nil {
		t.Fatalf("a message of the old session after the rotation: %v", err)
	}
	if !got.From.Key.Equal(c.gw.agent.Signing.Public()) {
		t.Fatal("signed with another key than the session's")
	}
	// A new handshake presents the new key.
	si2, sr2, errI, errR := pair(t, c.config(c.alice, clk, nil), cr, peerOf(c.gw))
	if errI != nil || errR != nil {
		t.Fatal(errI, errR)
	}
	if !si2.Peer().Key.Equal(sk.Public()) || !sr2.Self().Signing.Public().Equal(sk.Public()) {
		t.Fatal("the handshake after the rotation is not under the new key")
	}
	env, err = sr2.SignAndSeal(query(party{agent: next}, c.alice, uuid(2), t0, wire.Int), next.Signing)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := si2.Open(mustEnv(t, env)); err != nil {
		t.Fatal(err)
	}

	// Without GetSelf, a session signs with the key it is handed: another
	// key under this side's name is the peer's to refuse.
	si3, sr3, _, _ := pair(t, c.config(c.alice, clk, nil), c.config(c.gw, clk, nil), peerOf(c.gw))
	env, err = sr3.SignAndSeal(query(party{agent: next}, c.alice, uuid(3), t0, wire.Int), next.Signing)
	if err != nil {
		t.Fatal(err)
	}
	_, err = si3.Open(mustEnv(t, env))
	wantCode(t, err, wire.ErrAuthFailed)
}
