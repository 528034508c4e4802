package handshake

import (
	"testing"
	"time"

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
