package handshake

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/moltgate/moltgate/crypto"
	"github.com/moltgate/moltgate/identity"
	"github.com/moltgate/moltgate/keys"
	"github.com/moltgate/moltgate/wire"
)

func TestWrongOrUnknownKey(t *testing.T) {
	c := newCast(t)
	clk := newClock(t0)
	t.Run("initiator expects another key", func(t *testing.T) {
		peer := peerOf(c.gw)
		peer.Key = c.carol.agent.Signing.Public()
		_, _, errI, _ := pair(t, c.config(c.alice, clk, nil), c.config(c.gw, clk, nil), peer)
		wantCode(t, errI, wire.ErrAuthFailed)
	})
	t.Run("initiator expects the right key", func(t *testing.T) {
		peer := peerOf(c.gw)
		peer.Key = c.gw.agent.Signing.Public()
		_, _, errI, errR := pair(t, c.config(c.alice, clk, nil), c.config(c.gw, clk, nil), peer)
		if errI != nil || errR != nil {
			t.Fatal(errI, errR)
		}
	})
	t.Run("pinned key differs", func(t *testing.T) {
		pins, err := keys.OpenPinStore(t.TempDir()+"/pins.json", clk.Now)
		if err != nil {
			t.Fatal(err)
		}
		if err := pins.Pin("alice@acme", c.mallory.agent.Signing.Public(), keys.X25519Public{}); err != nil {
			t.Fatal(err)
		}
		cr := c.config(c.gw, clk, nil)
		cr.Pins = pins
		_, _, _, errR := pair(t, c.config(c.alice, clk, nil), cr, peerOf(c.gw))
		wantCode(t, errR, wire.ErrAuthFailed)
		var mm *keys.MismatchError
		if !errors.As(errR, &mm) {
			t.Fatal("mismatch not wrapped")
		}
		// An unpinned peer passes.
		ci := c.config(c.carol, clk, nil)
		if _, _, errI, errR := pair(t, ci, cr, peerOf(c.gw)); errI != nil || errR != nil {
			t.Fatal(errI, errR)
		}
	})
	t.Run("trusted org without certificate", func(t *testing.T) {
		ci := c.config(c.alice, clk, nil)
		ci.Cert = nil
		_, _, _, errR := pair(t, ci, c.config(c.gw, clk, nil), peerOf(c.gw))
		wantCode(t, errR, wire.ErrAuthFailed)
	})
	t.Run("certificate of another key", func(t *testing.T) {
		// mallory claims to be alice, showing alice's certificate.
		impostor := &identity.Agent{Ref: c.alice.agent.Ref, Signing: c.mallory.agent.Signing, Encryption: c.mallory.agent.Encryption}
		ci := c.config(party{agent: impostor}, clk, nil)
		ci.Cert = c.alice.cert // refused by the config check: the cert is not hers
		a, _ := Pipe()
		if _, err := NewInitiator(ci, peerOf(c.gw)).Run(context.Background(), a); err == nil {
			t.Fatal("config with another's certificate ran")
		}
		// So she sends it by hand.
		ci.Cert = nil
		cr := c.config(c.gw, clk, nil)
		_, _, _, err := steps(ci, cr, peerOf(c.gw), func(i int, b []byte) []byte {
			if i != 0 {
				return b
			}
			m := mustDecode(t, b)
			hp := *m.Payload.(*wire.HelloPayload)
			hp.IdentityCert = c.alice.cert.Value()
			forged := &wire.Message{V: m.V, ID: m.ID, TS: m.TS, Op: m.Op, To: m.To, Cls: m.Cls, From: m.From, Payload: &hp}
			out, err := crypto.Sign(wire.NewCodec(wire.Limits{}), forged, impostor.Signing)
			if err != nil {
				t.Fatal(err)
			}
			return out
		})
		wantCode(t, err, wire.ErrAuthFailed)
	})
	t.Run("certificate from an untrusted key of a trusted org", func(t *testing.T) {
		rogue := newOrg(t, "acme", 99)
		p := newParty(t, rogue, "alice", 10) // alice's own keys, rogue issuer
		ci := c.config(p, clk, nil)
		_, _, _, errR := pair(t, ci, c.config(c.gw, clk, nil), peerOf(c.gw))
		wantCode(t, errR, wire.ErrAuthFailed)
	})
	t.Run("unknown org stays at level 1", func(t *testing.T) {
		umbrella := newOrg(t, "umbrella", 20)
		p := newParty(t, umbrella, "ada", 21)
		for _, withCert := range []bool{true, false} {
			ci := c.config(p, clk, nil)
			if !withCert {
				ci.Cert = nil
			}
			si, sr, errI, errR := pair(t, ci, c.config(c.gw, clk, nil), peerOf(c.gw))
			if errI != nil || errR != nil {
				t.Fatal(errI, errR)
			}
			if sr.Level() != identity.Identified {
				t.Fatalf("unverified peer at %v", sr.Level())
			}
			if si.Level() != identity.Authenticated {
				t.Fatalf("verified gateway at %v", si.Level())
			}
			// Level 1 allows public operations only.
			if identity.Required(wire.OpQuery, wire.Int, nil).Level <= sr.Level() {
				t.Fatal("level 1 session would pass for internal data")
			}
		}
	})
}

func TestExpiredIdentityCert(t *testing.T) {
	c := newCast(t)
	clk := newClock(t0)
	old, err := c.alice.org.IssueIdentity(c.alice.agent.Public(), t0.Add(-48*time.Hour), t0.Add(-time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	ci := c.config(c.alice, clk, nil)
	ci.Cert = old
	_, _, _, errR := pair(t, ci, c.config(c.gw, clk, nil), peerOf(c.gw))
	wantCode(t, errR, wire.ErrAuthFailed)

	// A certificate that ends before the session would bounds it.
	soon, _ := c.alice.org.IssueIdentity(c.alice.agent.Public(), t0.Add(-time.Hour), t0.Add(10*time.Minute))
	ci = c.config(c.alice, clk, nil)
	ci.Cert = soon
	si, sr, errI, errR := pair(t, ci, c.config(c.gw, clk, nil), peerOf(c.gw))
	if errI != nil || errR != nil {
		t.Fatal(errI, errR)
	}
	if !si.Expires().Equal(t0.Add(10*time.Minute)) || !sr.Expires().Equal(si.Expires()) {
		t.Fatalf("expiry %v, want the certificate's", si.Expires().Sub(t0))
	}
}

// TestGetCertRenews: with GetCert, each handshake presents the certificate
// it returns at that moment, so a long-running side renews its certificate
// without a new Config; one that does not certify Identity fails the
// handshake on this side.
func TestGetCertRenews(t *testing.T) {
	c := newCast(t)
	clk := newClock(t0)
	current, err := c.alice.org.IssueIdentity(c.alice.agent.Public(), t0.Add(-time.Hour), t0.Add(10*time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	ci := c.config(c.alice, clk, nil)
	ci.Cert = nil
	ci.GetCert = func() *identity.Cert { return current }
	cr := c.config(c.gw, clk, nil)
	si, _, errI, errR := pair(t, ci, cr, peerOf(c.gw))
	if errI != nil || errR != nil {
		t.Fatal(errI, errR)
	}
	if !si.Expires().Equal(t0.Add(10 * time.Minute)) {
		t.Fatalf("expiry %v, want the first certificate's", si.Expires().Sub(t0))
	}

	// Renewed: the next handshake carries the new certificate, and its
	// session is no longer cut short by the old one's end.
	clk.Add(5 * time.Minute)
	current, _ = c.alice.org.IssueIdentity(c.alice.agent.Public(), clk.Now().Add(-time.Minute), clk.Now().Add(720*time.Hour))
	si, sr, errI, errR := pair(t, ci, cr, peerOf(c.gw))
	if errI != nil || errR != nil {
		t.Fatal(errI, errR)
	}
	if !si.Expires().After(t0.Add(10*time.Minute)) || sr.Level() < 2 {
		t.Fatalf("expiry %v, level %d: the renewed certificate was not used", si.Expires().Sub(t0), sr.Level())
	}

	// Another agent's certificate is refused before anything is sent.
	current = c.carol.cert
	a, _ := Pipe()
	if _, err := NewInitiator(ci, peerOf(c.gw)).Run(context.Background(), a); err == nil || !strings.Contains(err.Error(), "config") {
		t.Fatalf("got %v", err)
	}
}
