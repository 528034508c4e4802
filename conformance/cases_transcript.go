package conformance

import (
	"context"
	"encoding/hex"
	"fmt"

	"github.com/moltgate/moltgate/keys"
	"github.com/moltgate/moltgate/wire"
)

// transcriptCases: the gateway's hello_ack and verify_response altered on
// their way to the initiator, the initiator's verify and
// session_established altered or forged, and messages of the handshake
// reflected back to the gateway. Every alteration the initiator takes in
// changes the transcript both proofs and the session keys depend on, so
// the gateway must refuse the next message.
func transcriptCases() []testCase {
	var out []testCase
	for _, f := range helloAckFields() {
		out = append(out, testCase{"handshake.hello_ack.tampered." + f.name, func(ctx context.Context, s *suite) (string, error) {
			h := s.newHandshake(s.httpChannel(), s.org, s.orgCert)
			r, err := h.sendHello(ctx, nil, nil)
			if err != nil {
				return "", err
			}
			if err := h.takeAck(r); err != nil {
				return "", err
			}
			if get(h.ackT, f.alt.path).IsAbsent() {
				return "", fmt.Errorf("the hello_ack has no %s to alter", f.alt.path)
			}
			h.ackSeen = set(h.ackT, f.alt.path, f.alt.to(s, h.ackT))
			if r, err = h.sendVerify(ctx, h.verifyTree(h.proof()), nil); err != nil {
				return "", err
			}
			d, err := refused(r, f.want...)
			return withControl(ctx, "verify over the altered hello_ack "+d, err, s.genuineHandshake)
		}})
	}
	for _, f := range verifyFields() {
		out = append(out, testCase{"handshake.verify.tampered." + f.name, func(ctx context.Context, s *suite) (string, error) {
			h, err := s.toVerify(ctx)
			if err != nil {
				return "", err
			}
			r, err := h.sendVerify(ctx, h.verifyTree(h.proof()), s.inTransit(f.alt))
			if err != nil {
				return "", err
			}
			d, err := refused(r, f.want...)
			return withControl(ctx, d, err, s.genuineHandshake)
		}})
	}
	for _, c := range verifyForged() {
		out = append(out, testCase{"handshake.verify." + c.name, func(ctx context.Context, s *suite) (string, error) {
			h, err := s.toVerify(ctx)
			if err != nil {
				return "", err
			}
			r, err := c.send(ctx, s, h)
			if err != nil {
				return "", err
			}
			d, err := refused(r, c.want...)
			return withControl(ctx, d, err, s.genuineHandshake)
		}})
	}
	for _, f := range verifyResponseFields() {
		out = append(out, testCase{"handshake.verify_response.tampered." + f.name, func(ctx context.Context, s *suite) (string, error) {
			h := s.newHandshake(s.httpChannel(), s.org, s.orgCert)
			if _, err := h.toKeys(ctx, nil); err != nil {
				return "", err
			}
			h.vrSeen = set(h.vrSeen, f.alt.path, f.alt.to(s, h.vrSeen))
			if err := h.keys(); err != nil {
				return "", err
			}
			r, err := h.sendEstablished(ctx, h.sess.sealNext(signTree(h.establishedTree(), h.me.Signing)))
			if err != nil {
				return "", err
			}
			d, err := refused(r, f.want...)
			return withControl(ctx, "session_established after the altered verify_response "+d, err, s.genuineHandshake)
		}})
	}
	for _, c := range establishedForged() {
		out = append(out, testCase{"handshake.session_established." + c.name, func(ctx context.Context, s *suite) (string, error) {
			h := s.newHandshake(s.httpChannel(), s.org, s.orgCert)
			if _, err := h.toKeys(ctx, nil); err != nil {
				return "", err
			}
			r, err := c.send(ctx, s, h)
			if err != nil {
				return "", err
			}
			d, err := refused(r, c.want...)
			return withControl(ctx, d, err, s.genuineHandshake)
		}})
	}
	out = append(out, reflectionCases()...)
	return out
}

func helloAckFields() []field {
	return []field{
		{"id", otherID("id"), authOnly},
		{"ts", plusOne("ts"), authOnly},
		{"from.key", otherEd25519("from.key"), authOnly},
		{"from.enc_key", otherX25519("from.enc_key"), authOnly},
		{"to.agent", newString("to.agent", "conformance-other"), authOnly},
		{"p.protocol_versions", appendString("p.protocol_versions", "0.9"), authOnly},
		{"p.capabilities", appendString("p.capabilities", "code.execute"), authOnly},
		{"p.extensions", appendString("p.extensions", "grease-0badc0de"), authOnly},
		{"p.max_message_size", plusOne("p.max_message_size"), authOnly},
		{"p.supported_cls", dropLast("p.supported_cls"), authOnly},
		{"p.nonce", flipBit("p.nonce"), authOnly},
		{"p.ephemeral_key", otherX25519("p.ephemeral_key"), authOnly},
		{"p.challenge", flipBit("p.challenge"), authOnly},
		{"p.identity_cert", certExpiresPlusOne("p.identity_cert"), authOnly},
		{"sig", flipBit("sig"), authOnly},
	}
}

func verifyFields() []field {
	return []field{
		{"v", newString("v", "0.2"), versionOnly},
		{"id", otherID("id"), sigOnly},
		{"ts", plusOne("ts"), sigOnly},
		{"re", otherID("re"), sigOrAuth},
		{"from.agent", newString("from.agent", "conformance-other"), sigOrAuth},
		{"from.key", otherEd25519("from.key"), sigOrAuth},
		{"to.org", newString("to.org", "conformance-other"), sigOrAuth},
		{"cls", newString("cls", "int"), sigOrAuth},
		{"p.challenge", flipBit("p.challenge"), sigOnly},
		{"p.proof", flipBit("p.proof"), sigOrAuth},
		{"sig", flipBit("sig"), sigOnly},
		{"added_member", addMember("x-conformance"), sigOnly},
	}
}

func verifyResponseFields() []field {
	return []field{
		{"id", otherID("id"), authOnly},
		{"ts", plusOne("ts"), authOnly},
		{"p.proof", flipBit("p.proof"), authOnly},
		{"p.session_id", alteration{"p.session_id", func(s *suite, _ wire.Value) wire.Value {
			b := s.random32()
			return wire.StringValue(hex.EncodeToString(b[:16]))
		}}, authOnly},
		{"p.expires", alteration{"p.expires", func(_ *suite, t wire.Value) wire.Value {
			n, _ := get(t, "p.expires").Int()
			return wire.IntValue(n - 1000)
		}}, authOnly},
		{"sig", flipBit("sig"), authOnly},
	}
}

// forged is a case that sends its own message in place of a genuine step.
type forged struct {
	name string
	send func(ctx context.Context, s *suite, h *handshake) (reply, error)
	want []wire.Code
}

func verifyForged() []forged {
	withProof := func(proof func(s *suite, h *handshake) keys.Signature) func(context.Context, *suite, *handshake) (reply, error) {
		return func(ctx context.Context, s *suite, h *handshake) (reply, error) {
			return h.sendVerify(ctx, h.verifyTree(proof(s, h)), nil)
		}
	}
	return []forged{
		{"proof_flipped", withProof(func(_ *suite, h *handshake) keys.Signature {
			p := h.proof()
			p[7] ^= 0x01
			return p
		}), authOnly},
		{"proof_over_another_challenge", withProof(func(s *suite, h *handshake) keys.Signature {
			return h.me.Signing.Sign(statement(initiatorLabel, h.th1(), s.random32(), h.me.Sender(), h.ack.From))
		}), authOnly},
		{"proof_over_another_transcript", withProof(func(s *suite, h *handshake) keys.Signature {
			return h.me.Signing.Sign(statement(initiatorLabel, s.random32(), bytes32(h.ackT, "p.challenge"), h.me.Sender(), h.ack.From))
		}), authOnly},
		{"proof_with_responder_label", withProof(func(_ *suite, h *handshake) keys.Signature {
			return h.me.Signing.Sign(statement(responderLabel, h.th1(), bytes32(h.ackT, "p.challenge"), h.me.Sender(), h.ack.From))
		}), authOnly},
		{"proof_with_identities_swapped", withProof(func(_ *suite, h *handshake) keys.Signature {
			return h.me.Signing.Sign(statement(initiatorLabel, h.th1(), bytes32(h.ackT, "p.challenge"), h.ack.From, h.me.Sender()))
		}), authOnly},
		{"proof_by_another_key", withProof(func(s *suite, h *handshake) keys.Signature {
			k, _ := keys.GenerateEd25519(s.cfg.Rand)
			return k.Sign(statement(initiatorLabel, h.th1(), bytes32(h.ackT, "p.challenge"), h.me.Sender(), h.ack.From))
		}), authOnly},
		{"re_unknown", func(ctx context.Context, s *suite, h *handshake) (reply, error) {
			t := h.verifyTree(h.proof()).With("re", wire.StringValue(s.newID()))
			return h.sendVerify(ctx, t, nil)
		}, []wire.Code{wire.ErrAuthFailed, wire.ErrSessionExpired}},
		{"ts_stale", func(ctx context.Context, s *suite, h *handshake) (reply, error) {
			t := h.verifyTree(h.proof()).With("ts", wire.IntValue(s.cfg.Now().UnixMilli()-10*60*1000))
			return h.sendVerify(ctx, t, nil)
		}, replayOnly},
		{"from_another_agent", func(ctx context.Context, s *suite, h *handshake) (reply, error) {
			// The prober, a certified agent of the same organisation,
			// proves and signs in the gateway's place.
			proof := s.prober.Signing.Sign(statement(initiatorLabel, h.th1(), bytes32(h.ackT, "p.challenge"), s.prober.Sender(), h.ack.From))
			t := h.verifyTree(proof).With("from", s.senderValue(s.prober))
			h.verifyM = t
			return s.exchange(ctx, h.ch, signTree(t, s.prober.Signing), opener{as: h.me})
		}, authOnly},
	}
}

func establishedForged() []forged {
	signed := func(h *handshake) []byte { return signTree(h.establishedTree(), h.me.Signing) }
	return []forged{
		{"counter_not_zero", func(ctx context.Context, s *suite, h *handshake) (reply, error) {
			return h.sendEstablished(ctx, sealWith(h.sess.seal, h.sess.id, 1, signed(h)))
		}, authOnly},
		{"sealed_with_the_responders_key", func(ctx context.Context, s *suite, h *handshake) (reply, error) {
			return h.sendEstablished(ctx, sealWith(h.sess.opn, h.sess.id, 0, signed(h)))
		}, authOnly},
		{"in_the_clear", func(ctx context.Context, s *suite, h *handshake) (reply, error) {
			return h.sendEstablished(ctx, signed(h))
		}, authOnly},
		{"expires_beyond_offer", func(ctx context.Context, s *suite, h *handshake) (reply, error) {
			t := set(h.establishedTree(), "p.expires", wire.IntValue(h.sess.expires+60_000))
			return h.sendEstablished(ctx, h.sess.sealNext(signTree(t, h.me.Signing)))
		}, authOnly},
		{"expires_past", func(ctx context.Context, s *suite, h *handshake) (reply, error) {
			t := set(h.establishedTree(), "p.expires", wire.IntValue(s.cfg.Now().UnixMilli()-1000))
			return h.sendEstablished(ctx, h.sess.sealNext(signTree(t, h.me.Signing)))
		}, authOnly},
		{"names_another_session", func(ctx context.Context, s *suite, h *handshake) (reply, error) {
			b := s.random32()
			t := set(h.establishedTree(), "p.session_id", wire.StringValue(hex.EncodeToString(b[:16])))
			return h.sendEstablished(ctx, h.sess.sealNext(signTree(t, h.me.Signing)))
		}, authOnly},
		{"re_not_the_verify_response", func(ctx context.Context, s *suite, h *handshake) (reply, error) {
			t := h.establishedTree().With("re", wire.StringValue(s.newID()))
			return h.sendEstablished(ctx, h.sess.sealNext(signTree(t, h.me.Signing)))
		}, authOnly},
		{"signed_by_another_key", func(ctx context.Context, s *suite, h *handshake) (reply, error) {
			k, _ := keys.GenerateEd25519(s.cfg.Rand)
			t := set(h.establishedTree(), "from.key", wire.StringValue(k.Public().String()))
			return h.sendEstablished(ctx, h.sess.sealNext(signTree(t, k)))
		}, authOnly},
	}
}

// genuineHandshake is the control of handshake cases: a genuine handshake
// over HTTP makes a session.
func (s *suite) genuineHandshake(ctx context.Context) error {
	_, err := s.newHandshake(s.httpChannel(), s.org, s.orgCert).run(ctx)
	return err
}

// toVerify runs a genuine hello and takes the gateway's hello_ack.
func (s *suite) toVerify(ctx context.Context) (*handshake, error) {
	h := s.newHandshake(s.httpChannel(), s.org, s.orgCert)
	r, err := h.sendHello(ctx, nil, nil)
	if err != nil {
		return nil, err
	}
	return h, h.takeAck(r)
}

// senderValue is the "from" object of a.
func (s *suite) senderValue(a interface{ Sender() wire.Sender }) wire.Value {
	snd := a.Sender()
	return wire.ObjectValue(
		wire.Member{Key: "agent", Value: wire.StringValue(snd.Agent)},
		wire.Member{Key: "enc_key", Value: wire.StringValue(snd.EncKey.String())},
		wire.Member{Key: "key", Value: wire.StringValue(snd.Key.String())},
		wire.Member{Key: "org", Value: wire.StringValue(snd.Org)},
	)
}

// reflectionCases send the gateway its own messages back.
func reflectionCases() []testCase {
	return []testCase{
		{"handshake.reflect.hello_ack_as_hello", func(ctx context.Context, s *suite) (string, error) {
			h, err := s.toVerify(ctx)
			if err != nil {
				return "", err
			}
			ack := wire.AppendCanonical(nil, h.ackT)
			r, _, err := s.retry(ctx, once(ack), func(b []byte) (reply, error) { return s.postMessage(ctx, b, opener{as: s.org}) })
			if err != nil {
				return "", err
			}
			d, err := refused(r, authOnly...)
			return withControl(ctx, d, err, s.genuineHandshake)
		}},
		{"handshake.reflect.hello_ack_as_verify", func(ctx context.Context, s *suite) (string, error) {
			h, err := s.toVerify(ctx)
			if err != nil {
				return "", err
			}
			r, err := s.postMessage(ctx, wire.AppendCanonical(nil, h.ackT), opener{as: s.org})
			if err != nil {
				return "", err
			}
			d, err := refused(r, authOnly...)
			return withControl(ctx, d, err, s.genuineHandshake)
		}},
		{"handshake.reflect.verify_response_as_session_established", func(ctx context.Context, s *suite) (string, error) {
			h := s.newHandshake(s.httpChannel(), s.org, s.orgCert)
			if _, err := h.toKeys(ctx, nil); err != nil {
				return "", err
			}
			r, err := s.postMessage(ctx, wire.AppendCanonical(nil, h.vrSeen), opener{as: s.org})
			if err != nil {
				return "", err
			}
			d, err := refused(r, authOnly...)
			return withControl(ctx, d, err, s.genuineHandshake)
		}},
		{"handshake.reflect.session_reply", func(ctx context.Context, s *suite) (string, error) {
			// The gateway's own sealed answers, sent back into the session:
			// they are sealed with the other direction's key. Our counters
			// start past the gateway's so that only the key can refuse them.
			ch := s.httpChannel()
			sess, err := s.session(ctx, ch)
			if err != nil {
				return "", err
			}
			sess.next = 100
			var answers [][]byte
			for range 3 {
				b := sess.sealNext(signTree(s.tree(s.sessionPing()), s.prober.Signing))
				a, err := s.net.post(ctx, messagePath, b)
				if err != nil {
					return "", err
				}
				m, err := s.open(a.body, opener{sess: sess})
				if err != nil || m == nil || m.Op != wire.OpPong {
					return "", fmt.Errorf("a genuine ping in the session was not answered with pong: HTTP %d %v", a.status, err)
				}
				answers = append(answers, a.body)
			}
			r, err := s.postMessage(ctx, answers[1], opener{sess: sess})
			if err != nil {
				return "", err
			}
			d, err := refused(r, authOnly...)
			return d + "; three genuine pings in the session served", err
		}},
	}
}
