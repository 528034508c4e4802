package conformance

import (
	"context"
	"fmt"
	"time"

	"github.com/moltgate/moltgate/identity"
	"github.com/moltgate/moltgate/keys"
	"github.com/moltgate/moltgate/wire"
)

// handshakeCases: a genuine handshake on every face, then the hello
// altered in every member, in transit and by a sender that signs what it
// alters; the handshake replayed and downgraded.
func handshakeCases() []testCase {
	var out []testCase
	for _, face := range []string{"http", "websocket", "grpc-stream"} {
		out = append(out, testCase{"handshake.genuine." + face, func(ctx context.Context, s *suite) (string, error) {
			return s.genuineSession(ctx, face)
		}})
	}
	for _, f := range helloFields() {
		out = append(out, testCase{"handshake.hello.tampered." + f.name, func(ctx context.Context, s *suite) (string, error) {
			h := s.newHandshake(s.httpChannel(), s.org, s.orgCert)
			r, err := h.sendHello(ctx, nil, s.inTransit(f.alt))
			if err != nil {
				return "", err
			}
			d, err := refused(r, f.want...)
			return withControl(ctx, d, err, s.genuineHello)
		}})
	}
	for _, c := range helloSigned() {
		out = append(out, testCase{"handshake.hello." + c.name, func(ctx context.Context, s *suite) (string, error) {
			h := s.newHandshake(s.httpChannel(), s.org, s.orgCert)
			r, err := h.sendHello(ctx, func(t wire.Value) wire.Value { return c.alt.to(s, t) }, nil)
			if err != nil {
				return "", err
			}
			d, err := refused(r, c.want...)
			return withControl(ctx, d, err, s.genuineHello)
		}})
	}
	out = append(out,
		testCase{"handshake.replay.hello", func(ctx context.Context, s *suite) (string, error) {
			h := s.newHandshake(s.httpChannel(), s.org, s.orgCert)
			r, err := h.sendHello(ctx, nil, nil)
			if err != nil {
				return "", err
			}
			if err := h.takeAck(r); err != nil {
				return "", fmt.Errorf("the genuine hello: %w", err)
			}
			// Hellos are rate-limited before anything else is checked: a
			// copy that is refused for its rate is sent again as it is.
			if r, _, err = s.retry(ctx, once(h.hello), func(b []byte) (reply, error) {
				return s.postMessage(ctx, b, opener{as: s.org})
			}); err != nil {
				return "", err
			}
			d, err := refused(r, replayOnly...)
			return d + "; the first copy was answered with hello_ack", err
		}},
		testCase{"handshake.replay.verify", func(ctx context.Context, s *suite) (string, error) {
			h := s.newHandshake(s.httpChannel(), s.org, s.orgCert)
			if _, err := h.run(ctx); err != nil {
				return "", fmt.Errorf("the genuine handshake: %w", err)
			}
			r, err := s.postMessage(ctx, h.verify, opener{as: s.org})
			if err != nil {
				return "", err
			}
			// The verify names a handshake that is over: out of order, and
			// its id was seen.
			d, err := refused(r, wire.ErrReplay, wire.ErrAuthFailed)
			return d + "; the first copy made a session", err
		}},
		testCase{"handshake.replay.session_established", func(ctx context.Context, s *suite) (string, error) {
			h := s.newHandshake(s.httpChannel(), s.org, s.orgCert)
			if _, err := h.toKeys(ctx, nil); err != nil {
				return "", err
			}
			env := sealWith(h.sess.seal, h.sess.id, 0, signTree(h.establishedTree(), h.me.Signing))
			if r, err := h.sendEstablished(ctx, env); err != nil || r.msg != nil {
				return "", fmt.Errorf("the genuine session_established: %v %v", r, err)
			}
			r, err := s.postMessage(ctx, env, opener{as: s.org, sess: h.sess})
			if err != nil {
				return "", err
			}
			d, err := refused(r, replayOnly...)
			return d + "; the first copy made a session", err
		}},
		testCase{"handshake.replay.proof_from_another_handshake", func(ctx context.Context, s *suite) (string, error) {
			first := s.newHandshake(s.httpChannel(), s.org, s.orgCert)
			if _, err := first.run(ctx); err != nil {
				return "", fmt.Errorf("the first handshake: %w", err)
			}
			old, _ := get(first.verifyM, "p.proof").Str()
			proof, _ := keys.ParseSignature(old)
			h := s.newHandshake(s.httpChannel(), s.org, s.orgCert)
			r, err := h.sendHello(ctx, nil, nil)
			if err != nil {
				return "", err
			}
			if err := h.takeAck(r); err != nil {
				return "", err
			}
			if r, err = h.sendVerify(ctx, h.verifyTree(proof), nil); err != nil {
				return "", err
			}
			d, err := refused(r, authOnly...)
			return d + "; the proof made the first session", err
		}},
		testCase{"handshake.downgrade.no_common_version", func(ctx context.Context, s *suite) (string, error) {
			h := s.newHandshake(s.httpChannel(), s.org, s.orgCert)
			r, err := h.sendHello(ctx, func(t wire.Value) wire.Value {
				return set(t, "p.protocol_versions", wire.ArrayValue(wire.StringValue("0.0")))
			}, nil)
			if err != nil {
				return "", err
			}
			d, err := refused(r, versionOnly...)
			return withControl(ctx, d, err, s.genuineHello)
		}},
		testCase{"handshake.downgrade.session_classes", func(ctx context.Context, s *suite) (string, error) {
			// A session whose hello listed pub alone: nothing above pub
			// may travel in it, whatever the peer's ceiling.
			h := s.newHandshake(s.httpChannel(), s.org, s.orgCert)
			sess, err := h.runWith(ctx, func(t wire.Value) wire.Value {
				return set(t, "p.supported_cls", wire.ArrayValue(wire.StringValue("pub")))
			})
			if err != nil {
				return "", fmt.Errorf("a handshake offering pub alone: %w", err)
			}
			m := s.invoke(wire.Int, "conformance: a class the session did not negotiate")
			m.Ext = wire.Value{}
			r, err := s.postMessage(ctx, sess.sealNext(signTree(s.tree(m), s.prober.Signing)), opener{as: s.prober, sess: sess})
			if err != nil {
				return "", err
			}
			d, err := refused(r, wire.ErrClassification)
			if err != nil {
				return "", err
			}
			r, err = s.postMessage(ctx, sess.sealNext(signTree(s.tree(s.sessionPing()), s.prober.Signing)), opener{as: s.prober, sess: sess})
			if err != nil {
				return "", err
			}
			if err := served(r, wire.OpPong); err != nil {
				return "", fmt.Errorf("int refused, but a pub ping in the same session: %w", err)
			}
			return d + " for int; a pub ping served", nil
		}},
	)
	return out
}

// helloFields are the hello's members, each altered after signing.
func helloFields() []field {
	return []field{
		{"v", newString("v", "0.2"), versionOnly},
		{"id", otherID("id"), sigOnly},
		{"ts", plusOne("ts"), sigOnly},
		{"from.agent", newString("from.agent", "conformance-other"), sigOrAuth},
		{"from.org", newString("from.org", "conformance-other"), sigOrAuth},
		{"from.key", otherEd25519("from.key"), sigOrAuth},
		{"from.enc_key", otherX25519("from.enc_key"), sigOrAuth},
		{"to.agent", newString("to.agent", "conformance-other"), sigOrAuth},
		{"to.org", newString("to.org", "conformance-other"), sigOrAuth},
		{"cls", newString("cls", "int"), sigOrAuth},
		{"p.protocol_versions", appendString("p.protocol_versions", "0.9"), sigOnly},
		{"p.capabilities", appendString("p.capabilities", "code.execute"), sigOnly},
		{"p.extensions", replaceGrease("p.extensions"), sigOnly},
		{"p.max_message_size", plusOne("p.max_message_size"), sigOnly},
		{"p.supported_cls", dropLast("p.supported_cls"), sigOnly},
		{"p.nonce", flipBit("p.nonce"), sigOnly},
		{"p.ephemeral_key", otherX25519("p.ephemeral_key"), sigOnly},
		{"p.identity_cert", certExpiresPlusOne("p.identity_cert"), sigOrAuth},
		{"sig", flipBit("sig"), sigOnly},
		{"added_member", addMember("x-conformance"), sigOnly},
	}
}

// helloSigned are hellos that break a rule of the handshake and are
// signed as they are: no signature check can catch them.
func helloSigned() []field {
	ago := func(d time.Duration) alteration {
		return alteration{"ts", func(s *suite, _ wire.Value) wire.Value { return wire.IntValue(s.cfg.Now().Add(d).UnixMilli()) }}
	}
	return []field{
		{"with_challenge", alteration{"p.challenge", func(s *suite, t wire.Value) wire.Value {
			return set(t, "p.challenge", get(t, "p.nonce"))
		}}, authOnly},
		{"cls_int", alteration{"cls", func(_ *suite, t wire.Value) wire.Value { return t.With("cls", wire.StringValue("int")) }}, authOnly},
		{"with_re", alteration{"re", func(s *suite, t wire.Value) wire.Value { return t.With("re", wire.StringValue(s.newID())) }}, authOnly},
		{"without_identity_cert", alteration{"p.identity_cert", func(_ *suite, t wire.Value) wire.Value {
			return t.With("p", t.Get("p").Without("identity_cert"))
		}}, authOnly},
		{"to_another_org", alteration{"to", func(s *suite, t wire.Value) wire.Value {
			return set(t, "to.org", wire.StringValue(s.org.Ref.Org))
		}}, authOnly},
		{"ts_stale", alteration{"ts", func(s *suite, t wire.Value) wire.Value { return t.With("ts", ago(-10*time.Minute).to(s, t)) }}, replayOnly},
		{"ts_future", alteration{"ts", func(s *suite, t wire.Value) wire.Value { return t.With("ts", ago(10*time.Minute).to(s, t)) }}, replayOnly},
		{"ephemeral_key_low_order", alteration{"p.ephemeral_key", func(_ *suite, t wire.Value) wire.Value {
			// The point of order 1 (u = 1): the shared secret would be
			// all zero whatever the other side's key.
			return set(t, "p.ephemeral_key", wire.StringValue("x25519:AQAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="))
		}}, []wire.Code{wire.ErrInvalidParam}},
	}
}

// genuineHello is the control of hello cases: a genuine hello is answered
// with a hello_ack.
func (s *suite) genuineHello(ctx context.Context) error {
	h := s.newHandshake(s.httpChannel(), s.org, s.orgCert)
	r, err := h.sendHello(ctx, nil, nil)
	if err != nil {
		return err
	}
	return h.takeAck(r)
}

// sessionPing is a ping of the agent under test sealed in a session: no
// certificates needed.
func (s *suite) sessionPing() *wire.Message {
	m := s.ping()
	m.Ext = wire.Value{}
	return m
}

// genuineSession makes a session on face and is served a ping in it.
func (s *suite) genuineSession(ctx context.Context, face string) (string, error) {
	ch, err := s.dial(ctx, face)
	if err != nil {
		return "", err
	}
	defer ch.close()
	sess, err := s.session(ctx, ch)
	if err != nil {
		return "", err
	}
	r, err := s.inSession(ctx, ch, sess, s.prober, s.sessionPing())
	if err != nil {
		return "", err
	}
	if err := served(r, wire.OpPong); err != nil {
		return "", err
	}
	return fmt.Sprintf("session %s…; a ping sealed in it answered with pong", sess.id[:8]), nil
}

// inSession signs m as from, seals it in sess and sends it on ch.
func (s *suite) inSession(ctx context.Context, ch *channel, sess *session, from *identity.Agent, m *wire.Message) (reply, error) {
	return s.exchange(ctx, ch, sess.sealNext(signTree(s.tree(m), from.Signing)), opener{sess: sess})
}
