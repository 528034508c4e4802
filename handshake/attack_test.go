package handshake

import (
	"bytes"
	"context"
	"errors"
	"hash"
	"strings"
	"testing"
	"time"

	"github.com/moltgate/moltgate/crypto"
	"github.com/moltgate/moltgate/handshake/replay"
	"github.com/moltgate/moltgate/identity"
	"github.com/moltgate/moltgate/keys"
	"github.com/moltgate/moltgate/wire"
)

var msgNames = []string{"hello", "hello_ack", "verify", "verify_response", "session_established"}

// fixedPair makes the two configs of a deterministic handshake: the same
// seeds and clock give the same bytes every time.
func fixedPair(c *cast) (ci, cr *Config) {
	clk := newClock(t0)
	return c.config(c.alice, clk, det(1)), c.config(c.gw, clk, det(2))
}

// TestTamperEveryByte changes each byte of each handshake message in
// transit, one at a time, and checks that its receiver refuses it. Each
// altered copy goes to a copy of the receiver as it stood before the
// message, so the whole handshake need not be rerun for every byte.
func TestTamperEveryByte(t *testing.T) {
	c := newCast(t)
	for k := range msgNames {
		t.Run(msgNames[k], func(t *testing.T) {
			t.Parallel()
			msg, deliver := receiverBefore(t, c, k)
			for j := range len(msg) {
				b := append([]byte(nil), msg...)
				b[j] ^= 0x01
				if err := deliver(b); err == nil {
					t.Fatalf("%s with byte %d (%q) changed was accepted", msgNames[k], j, msg[j])
				}
			}
			// Last, so that its id and challenge, once used, cannot mask a
			// change the signature missed.
			if err := deliver(msg); err != nil {
				t.Fatalf("the message as sent is refused: %v", err)
			}
		})
	}
}

// receiverBefore runs a deterministic handshake up to message k (0 hello …
// 4 session_established) and returns that message and a function that
// delivers bytes to the side receiving it, each time from the state it was
// in before. The replay window is shared by the copies; only a message
// whose signature verifies can change it, and then the test fails anyway.
func receiverBefore(t *testing.T, c *cast, k int) ([]byte, func([]byte) error) {
	t.Helper()
	ctx := context.Background()
	ci, cr := fixedPair(c)
	in, re := NewInitiator(ci, peerOf(c.gw)), NewResponder(cr)
	var msgs [][]byte
	b, err := in.writeHello()
	msgs = append(msgs, b)
	if err == nil && k > 0 {
		b, err = re.readHello(ctx, mustEnv(t, b))
		msgs = append(msgs, b)
	}
	if err == nil && k > 1 {
		b, err = in.readHelloAck(ctx, b)
		msgs = append(msgs, b)
	}
	if err == nil && k > 2 {
		b, err = re.readVerify(ctx, mustEnv(t, b))
		msgs = append(msgs, b)
	}
	if err == nil && k > 3 {
		b, _, err = in.readVerifyResponse(ctx, b)
		msgs = append(msgs, b)
	}
	if err != nil {
		t.Fatal(err)
	}
	toResponder := func(b []byte) (*wire.Envelope, error) { return cr.codec().DecodeEnvelope(b) }
	return msgs[k], func(b []byte) error {
		switch k {
		case 0:
			env, err := toResponder(b)
			if err != nil {
				return err
			}
			_, err = NewResponder(cr).readHello(ctx, env)
			return err
		case 1:
			_, err := in.clone().readHelloAck(ctx, b)
			return err
		case 2:
			env, err := toResponder(b)
			if err != nil {
				return err
			}
			_, err = re.clone().readVerify(ctx, env)
			return err
		case 3:
			_, _, err := in.clone().readVerifyResponse(ctx, b)
			return err
		default:
			env, err := toResponder(b)
			if err != nil {
				return err
			}
			_, err = re.clone().readEstablished(ctx, env)
			return err
		}
	}
}

func (h *Initiator) clone() *Initiator {
	c := *h
	c.th = h.th.clone()
	return &c
}

func (r *Responder) clone() *Responder {
	c := *r
	c.th = r.th.clone()
	if r.sess != nil {
		s := &Session{id: r.sess.id, role: r.sess.role, peer: r.sess.peer, level: r.sess.level, version: r.sess.version,
			caps: r.sess.caps, exts: r.sess.exts, classes: r.sess.classes, maxMsg: r.sess.maxMsg,
			created: r.sess.created, expires: r.sess.expires, env: r.sess.env, seal: r.sess.seal, open: r.sess.open,
			received: r.sess.received}
		s.bytes.Store(r.sess.bytes.Load())
		s.sent.Store(r.sess.sent.Load())
		c.sess = s
	}
	return &c
}

func (t transcript) clone() transcript {
	h, err := t.h.(hash.Cloner).Clone()
	if err != nil {
		panic(err)
	}
	return transcript{h}
}

// TestReflection sends the initiator's own messages back to it.
func TestReflection(t *testing.T) {
	c := newCast(t)
	ctx := context.Background()
	t.Run("verify reflected", func(t *testing.T) {
		ci, cr := fixedPair(c)
		in, re := NewInitiator(ci, peerOf(c.gw)), NewResponder(cr)
		hello, err := in.writeHello()
		if err != nil {
			t.Fatal(err)
		}
		ack, err := re.readHello(ctx, mustEnv(t, hello))
		if err != nil {
			t.Fatal(err)
		}
		verify, err := in.readHelloAck(ctx, ack)
		if err != nil {
			t.Fatal(err)
		}
		_, _, err = in.readVerifyResponse(ctx, verify)
		wantCode(t, err, wire.ErrAuthFailed)
	})
	t.Run("hello reflected", func(t *testing.T) {
		ci, _ := fixedPair(c)
		in := NewInitiator(ci, peerOf(c.gw))
		hello, err := in.writeHello()
		if err != nil {
			t.Fatal(err)
		}
		_, err = in.readHelloAck(ctx, hello)
		wantCode(t, err, wire.ErrAuthFailed)
	})
	t.Run("proof reflected", func(t *testing.T) {
		// Even with op and addressing set aside, an initiator's proof is
		// never a responder's: the role label differs.
		th := [32]byte{1}
		ch := wire.Bytes32{2}
		a, b := c.alice.agent.Sender(), c.gw.agent.Sender()
		sig := prove(c.alice.agent.Signing, initiatorProof, th, ch, a, b)
		if !checkProof(sig, initiatorProof, th, ch, a, b) {
			t.Fatal("proof does not verify in its own role")
		}
		if checkProof(sig, responderProof, th, ch, a, b) {
			t.Fatal("initiator's proof verifies as a responder's")
		}
	})
}

// TestReplayIntoNewHandshake records a whole handshake, then plays each
// recorded message into a fresh handshake between the same parties.
func TestReplayIntoNewHandshake(t *testing.T) {
	c := newCast(t)
	ctx := context.Background()
	clk := newClock(t0)
	ci, cr := c.config(c.alice, clk, nil), c.config(c.gw, clk, nil)
	old, _, _, err := steps(ci, cr, peerOf(c.gw), nil)
	if err != nil {
		t.Fatal(err)
	}
	clk.Add(time.Second)

	t.Run("hello, same gateway", func(t *testing.T) {
		// The gateway's replay window has seen the hello's id.
		_, err := NewResponder(cr).readHello(ctx, mustEnv(t, old[0]))
		wantCode(t, err, wire.ErrReplay)
	})
	t.Run("hello, fresh window", func(t *testing.T) {
		// A replica that never saw it answers, but the attacker cannot go
		// on: its verify is bound to the old transcript and challenge.
		cr2 := c.config(c.gw, clk, nil)
		re := NewResponder(cr2)
		if _, err := re.readHello(ctx, mustEnv(t, old[0])); err != nil {
			t.Fatal(err)
		}
		_, err := re.readVerify(ctx, mustEnv(t, old[2]))
		wantCode(t, err, wire.ErrAuthFailed)
	})
	t.Run("verify", func(t *testing.T) {
		for _, fresh := range []bool{false, true} {
			cr2 := cr
			if fresh {
				cr2 = c.config(c.gw, clk, nil)
			}
			in, re := NewInitiator(c.config(c.alice, clk, nil), peerOf(c.gw)), NewResponder(cr2)
			hello, _ := in.writeHello()
			if _, err := re.readHello(ctx, mustEnv(t, hello)); err != nil {
				t.Fatal(err)
			}
			_, err := re.readVerify(ctx, mustEnv(t, old[2]))
			if !fresh {
				wantCode(t, err, wire.ErrAuthFailed) // answers another hello_ack
			}
			wantFail(t, err)
		}
	})
	t.Run("verify_response", func(t *testing.T) {
		in, re := NewInitiator(c.config(c.alice, clk, nil), peerOf(c.gw)), NewResponder(c.config(c.gw, clk, nil))
		hello, _ := in.writeHello()
		ack, err := re.readHello(ctx, mustEnv(t, hello))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := in.readHelloAck(ctx, ack); err != nil {
			t.Fatal(err)
		}
		_, _, err = in.readVerifyResponse(ctx, old[3])
		wantCode(t, err, wire.ErrAuthFailed)
	})
	t.Run("verify_response with a matching re", func(t *testing.T) {
		// Even re-addressed to the new verify and re-signed by the real
		// responder (an insider replaying its own old proof), the old proof
		// is over another transcript and challenge.
		in, re := NewInitiator(c.config(c.alice, clk, nil), peerOf(c.gw)), NewResponder(c.config(c.gw, clk, nil))
		hello, _ := in.writeHello()
		ack, _ := re.readHello(ctx, mustEnv(t, hello))
		verify, err := in.readHelloAck(ctx, ack)
		if err != nil {
			t.Fatal(err)
		}
		vm, _ := wire.NewCodec(wire.Limits{}).Decode(verify)
		oldVR, _ := wire.NewCodec(wire.Limits{}).Decode(old[3])
		forged := &wire.Message{V: wire.Version, ID: uuid(77), TS: clk.Now().UnixMilli(), Op: wire.OpVerifyResponse,
			From: c.gw.agent.Sender(), To: c.alice.agent.Ref, Re: vm.ID, Cls: wire.Pub, Payload: oldVR.Payload}
		b, err := crypto.Sign(wire.NewCodec(wire.Limits{}), forged, c.gw.agent.Signing)
		if err != nil {
			t.Fatal(err)
		}
		_, _, err = in.readVerifyResponse(ctx, b)
		wantCode(t, err, wire.ErrAuthFailed)
	})
	t.Run("session_established", func(t *testing.T) {
		in, re := NewInitiator(c.config(c.alice, clk, nil), peerOf(c.gw)), NewResponder(c.config(c.gw, clk, nil))
		hello, _ := in.writeHello()
		ack, _ := re.readHello(ctx, mustEnv(t, hello))
		verify, _ := in.readHelloAck(ctx, ack)
		if _, err := re.readVerify(ctx, mustEnv(t, verify)); err != nil {
			t.Fatal(err)
		}
		_, err := re.readEstablished(ctx, mustEnv(t, old[4]))
		wantCode(t, err, wire.ErrAuthFailed)
	})
}

// stripVersion removes version v from a hello's protocol_versions, keeping
// the signature, as a man in the middle would.
func stripVersion(t testing.TB, b []byte, v string) []byte {
	t.Helper()
	tree, err := wire.Parse(b, 0)
	if err != nil {
		t.Fatal(err)
	}
	p := tree.Get("p")
	var kept []wire.Value
	for _, e := range p.Get("protocol_versions").Elems() {
		if s, _ := e.Value.Str(); s != v {
			kept = append(kept, e.Value)
		}
	}
	out := wire.AppendCanonical(nil, tree.With("p", p.With("protocol_versions", wire.ArrayValue(kept...))))
	if bytes.Equal(out, b) {
		t.Fatal("nothing stripped")
	}
	return out
}

func TestDowngradeDetected(t *testing.T) {
	c := newCast(t)
	clk := newClock(t0)
	configs := func() (*Config, *Config) {
		ci, cr := c.config(c.alice, clk, nil), c.config(c.gw, clk, nil)
		ci.Versions = []string{"0.1", "0.2"}
		cr.Versions = []string{"0.1", "0.2"}
		return ci, cr
	}
	ci, cr := configs()
	_, si, sr, err := steps(ci, cr, peerOf(c.gw), nil)
	if err != nil || si.Version() != "0.2" || sr.Version() != "0.2" {
		t.Fatalf("without an attacker: %v", err)
	}
	for k, name := range map[int]string{0: "hello", 1: "hello_ack"} {
		t.Run(name, func(t *testing.T) {
			ci, cr := configs()
			msgs, _, _, err := steps(ci, cr, peerOf(c.gw), func(i int, b []byte) []byte {
				if i == k {
					return stripVersion(t, b, "0.2")
				}
				return b
			})
			wantCode(t, err, wire.ErrSignature)
			if len(msgs) != k+1 {
				t.Fatal("handshake went on")
			}
		})
	}
	t.Run("hello re-signed by the attacker", func(t *testing.T) {
		// The attacker strips the version and signs the hello as itself,
		// under alice's name. acme is trusted, so the hello needs alice's
		// certificate, which names another key.
		ci, cr := configs()
		mallory := c.mallory.agent.Signing
		_, _, _, err := steps(ci, cr, peerOf(c.gw), func(i int, b []byte) []byte {
			if i != 0 {
				return b
			}
			m, err := wire.NewCodec(wire.Limits{}).Decode(stripVersion(t, b, "0.2"))
			if err != nil {
				t.Fatal(err)
			}
			hp := *m.Payload.(*wire.HelloPayload)
			forged := &wire.Message{V: m.V, ID: m.ID, TS: m.TS, Op: m.Op, To: m.To, Cls: m.Cls, Payload: &hp,
				From: wire.Sender{Agent: "alice", Org: "acme", Key: mallory.Public(), EncKey: m.From.EncKey}}
			out, err := crypto.Sign(wire.NewCodec(wire.Limits{}), forged, mallory)
			if err != nil {
				t.Fatal(err)
			}
			return out
		})
		wantCode(t, err, wire.ErrAuthFailed)
	})
}

// TestIdentityMisbinding checks that a proof made by the gateway for alice
// cannot authenticate the gateway to carol, even in the hands of alice.
func TestIdentityMisbinding(t *testing.T) {
	c := newCast(t)
	ctx := context.Background()
	clk := newClock(t0)
	t.Run("statement names the peer", func(t *testing.T) {
		th, ch := [32]byte{9}, wire.Bytes32{8}
		gw, alice, carol := c.gw.agent.Sender(), c.alice.agent.Sender(), c.carol.agent.Sender()
		forAlice := prove(c.gw.agent.Signing, responderProof, th, ch, gw, alice)
		if checkProof(forAlice, responderProof, th, ch, gw, carol) {
			t.Fatal("proof for alice verifies for carol")
		}
		// Same names, another key: still not carol's.
		carolAsAlice := alice
		carolAsAlice.Key = carol.Key
		if checkProof(forAlice, responderProof, th, ch, gw, carolAsAlice) {
			t.Fatal("proof binds the name but not the key")
		}
	})
	t.Run("proof passed on by its recipient", func(t *testing.T) {
		// carol dials the gateway through mallory, who relays faithfully
		// until the gateway's proof is due, then hands carol the proof the
		// gateway made for mallory in a handshake of her own.
		carol := NewInitiator(c.config(c.carol, clk, nil), peerOf(c.gw))
		gw1 := NewResponder(c.config(c.gw, clk, nil))
		h, _ := carol.writeHello()
		ack, err := gw1.readHello(ctx, mustEnv(t, h))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := carol.readHelloAck(ctx, ack); err != nil {
			t.Fatal(err)
		}

		mall := NewInitiator(c.config(c.mallory, clk, nil), peerOf(c.gw))
		gw2 := NewResponder(c.config(c.gw, clk, nil))
		mh, _ := mall.writeHello()
		mack, err := gw2.readHello(ctx, mustEnv(t, mh))
		if err != nil {
			t.Fatal(err)
		}
		mverify, err := mall.readHelloAck(ctx, mack)
		if err != nil {
			t.Fatal(err)
		}
		forMallory, err := gw2.readVerify(ctx, mustEnv(t, mverify))
		if err != nil {
			t.Fatal(err)
		}
		_, _, err = carol.readVerifyResponse(ctx, forMallory)
		wantCode(t, err, wire.ErrAuthFailed)
	})
}

func mustDecode(t testing.TB, b []byte) *wire.Message {
	t.Helper()
	m, err := wire.NewCodec(wire.Limits{}).Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

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

func TestHandshakeDeadline(t *testing.T) {
	c := newCast(t)
	ctx := context.Background()
	clk := newClock(t0)
	ci, cr := c.config(c.alice, clk, nil), c.config(c.gw, clk, nil)
	in, re := NewInitiator(ci, peerOf(c.gw)), NewResponder(cr)
	hello, _ := in.writeHello()
	ack, err := re.readHello(ctx, mustEnv(t, hello))
	if err != nil {
		t.Fatal(err)
	}
	clk.Add(DefaultTimeout + time.Millisecond)
	_, err = in.readHelloAck(ctx, ack)
	wantCode(t, err, wire.ErrTimeout)

	// Over a transport that never answers, Run gives up at the deadline.
	ci.Timeout = 50 * time.Millisecond
	a, _ := Pipe()
	_, err = NewInitiator(ci, peerOf(c.gw)).Run(ctx, a)
	wantCode(t, err, wire.ErrTimeout)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatal("cause not kept")
	}
}

func TestOutOfOrderFailsClosed(t *testing.T) {
	c := newCast(t)
	ctx := context.Background()
	ci, cr := fixedPair(c)
	msgs, _, _, err := steps(ci, cr, peerOf(c.gw), nil)
	if err != nil {
		t.Fatal(err)
	}
	// Every message but hello offered to a fresh responder as its first.
	for _, k := range []int{1, 2, 3} {
		_, cr := fixedPair(c)
		_, err := NewResponder(cr).readHello(ctx, mustEnv(t, msgs[k]))
		wantCode(t, err, wire.ErrAuthFailed)
	}
	// A sealed message where hello belongs.
	_, cr = fixedPair(c)
	_, err = NewResponder(cr).readHello(ctx, mustEnv(t, msgs[4]))
	wantCode(t, err, wire.ErrAuthFailed)
	// hello_ack where verify_response belongs, and the reverse.
	ci, cr = fixedPair(c)
	in, re := NewInitiator(ci, peerOf(c.gw)), NewResponder(cr)
	h, _ := in.writeHello()
	ack, _ := re.readHello(ctx, mustEnv(t, h))
	if _, err := in.readHelloAck(ctx, ack); err != nil {
		t.Fatal(err)
	}
	_, _, err = in.readVerifyResponse(ctx, ack)
	wantCode(t, err, wire.ErrAuthFailed)
	// A failed side cannot be used again.
	func() {
		defer func() {
			if recover() == nil {
				t.Fatal("reuse after failure did not panic")
			}
		}()
		in.readVerifyResponse(ctx, ack)
	}()
}

func TestReusePanics(t *testing.T) {
	c := newCast(t)
	clk := newClock(t0)
	ci, cr := c.config(c.alice, clk, nil), c.config(c.gw, clk, nil)
	ctx := context.Background()
	a, b := Pipe()
	in, re := NewInitiator(ci, peerOf(c.gw)), NewResponder(cr)
	done := make(chan error, 1)
	go func() { _, err := re.Run(ctx, b); done <- err }()
	if _, err := in.Run(ctx, a); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	for name, f := range map[string]func(){
		"initiator": func() { in.Run(ctx, a) },
		"responder": func() { re.Run(ctx, b) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Fatalf("%s reused without panic", name)
				}
			}()
			f()
		}()
	}
}

// TestSharedReplayWindow checks that one window serves both handshakes and
// other traffic: the hello's id, once seen, is refused elsewhere.
func TestSharedReplayWindow(t *testing.T) {
	c := newCast(t)
	clk := newClock(t0)
	w := replay.New(replay.Config{Now: clk.Now})
	ci, cr := c.config(c.alice, clk, nil), c.config(c.gw, clk, nil)
	cr.Replay = w
	msgs, _, _, err := steps(ci, cr, peerOf(c.gw), nil)
	if err != nil {
		t.Fatal(err)
	}
	wantCode(t, w.Check(context.Background(), mustDecode(t, msgs[0])), wire.ErrReplay)
}
