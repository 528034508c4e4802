package handshake

import (
	"bytes"
	"context"
	"hash"
	"testing"
	"time"

	"github.com/moltgate/moltgate/crypto"
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
