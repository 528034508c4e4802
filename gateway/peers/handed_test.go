package peers

import (
	"crypto/rand"
	"testing"
	"time"

	"github.com/moltgate/moltgate/crypto"
	"github.com/moltgate/moltgate/gateway/pipeline"
	"github.com/moltgate/moltgate/keys"
	"github.com/moltgate/moltgate/wire"
)

// TestErrorReplyUnderHandedKeys: an error reply outside a session is
// taken under any org key the pin accepts for the peer now, the one its
// peer file names or the one it handed over to, and under no other. A
// peer that switched to its new key before this side's peer file moved
// to it answers under the new key, and its answer is its answer.
func TestErrorReplyUnderHandedKeys(t *testing.T) {
	tab, ps, _, globex := pair(t)
	old := globex.org.Signing
	next, err := keys.GenerateEd25519(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	stranger, err := keys.GenerateEd25519(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	bare := func(sk keys.Ed25519Private) []byte {
		m := &wire.Message{V: wire.Version, ID: pipeline.NewMessageID(rand.Reader), TS: time.Now().UnixMilli(), Op: wire.OpError,
			From: wire.Sender{Agent: pipeline.GatewayAgent, Org: "globex", Key: sk.Public()}, To: wire.Ref{Agent: "client", Org: "acme"},
			Cls: wire.Pub, Re: pipeline.NewMessageID(rand.Reader), Payload: wire.Errorf(wire.ErrSessionExpired, "", "session unknown").Payload()}
		b, err := crypto.Sign(tab.cfg.Codec, m, sk)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	var accepted []keys.Ed25519Public
	tab.cfg.PeerKeys = func(org string) (keys.Ed25519Public, []keys.Ed25519Public) {
		if org != "globex" || len(accepted) == 0 {
			return keys.Ed25519Public{}, nil
		}
		return accepted[len(accepted)-1], accepted
	}
	for _, c := range []struct {
		name     string
		accepted []keys.Ed25519Public
		signer   keys.Ed25519Private
		ok       bool
	}{
		{"no pin: the peer file's key", nil, old, true},
		{"no pin: another key", nil, next, false},
		{"before the handover: the new key", []keys.Ed25519Public{old.Public()}, next, false},
		{"during the overlap: the old key", []keys.Ed25519Public{old.Public(), next.Public()}, old, true},
		{"during the overlap: the new key", []keys.Ed25519Public{old.Public(), next.Public()}, next, true},
		{"during the overlap: a stranger", []keys.Ed25519Public{old.Public(), next.Public()}, stranger, false},
		{"after the overlap: the old key", []keys.Ed25519Public{next.Public()}, old, false},
		{"after the overlap: the new key", []keys.Ed25519Public{next.Public()}, next, true},
	} {
		accepted = c.accepted
		d, err := tab.openFrame(ps, bare(c.signer))
		if got := err == nil; got != c.ok {
			t.Errorf("%s: taken %v (%v), want %v", c.name, got, err, c.ok)
			continue
		}
		if c.ok && (d.m == nil || d.m.Op != wire.OpError) {
			t.Errorf("%s: took %+v, want the error reply", c.name, d.m)
		}
	}
}

// TestSessionUnderHandedFromKeyRenewed: a session made under the peer's
// org key from before a handover is renewed once the key handed over to
// is in effect, at most every handedRenewEvery, and never while the
// session's key is the newest.
func TestSessionUnderHandedFromKeyRenewed(t *testing.T) {
	tab, ps, acme, globex := pair(t)
	sess, err := acme.sessions.Peer(globex.gw.Ref)
	if err != nil {
		t.Fatal(err)
	}
	next, err := keys.GenerateEd25519(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	newest := sess.Peer().Key
	tab.cfg.PeerKeys = func(string) (keys.Ed25519Public, []keys.Ed25519Public) {
		return newest, []keys.Ed25519Public{sess.Peer().Key, next.Public()}
	}
	now := time.Now()
	if ps.handedFrom(sess, now) {
		t.Fatal("a session under the newest key renewed")
	}
	newest = next.Public()
	if !ps.handedFrom(sess, now) {
		t.Fatal("a session under the key handed over from not renewed")
	}
	if ps.handedFrom(sess, now.Add(handedRenewEvery/2)) {
		t.Fatal("renewed again before handedRenewEvery")
	}
	if !ps.handedFrom(sess, now.Add(handedRenewEvery)) {
		t.Fatal("not renewed again after handedRenewEvery")
	}
}
