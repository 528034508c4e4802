package conformance

import (
	"context"
	"fmt"

	"github.com/moltgate/moltgate/identity"
	"github.com/moltgate/moltgate/wire"
)

// streamCases run the handshake's refusals and the senders' on the
// stream faces, where a handshake runs as consecutive frames on one
// connection and refusals come back as frames.
func streamCases() []testCase {
	var out []testCase
	for _, face := range []string{"websocket", "grpc-stream"} {
		onFace := func(name string, run func(ctx context.Context, s *suite, ch *channel) (string, error)) testCase {
			return testCase{"stream." + face + "." + name, func(ctx context.Context, s *suite) (string, error) {
				ch, err := s.dial(ctx, face)
				if err != nil {
					return "", err
				}
				defer ch.close()
				d, err := run(ctx, s, ch)
				return withControl(ctx, d, err, func(ctx context.Context) error {
					_, err := s.genuineSession(ctx, face)
					return err
				})
			}}
		}
		out = append(out,
			onFace("hello.tampered.sig", func(ctx context.Context, s *suite, ch *channel) (string, error) {
				r, err := s.newHandshake(ch, s.org, s.orgCert).sendHello(ctx, nil, s.inTransit(flipBit("sig")))
				if err != nil {
					return "", err
				}
				return refused(r, sigOnly...)
			}),
			onFace("hello.tampered.p.ephemeral_key", func(ctx context.Context, s *suite, ch *channel) (string, error) {
				r, err := s.newHandshake(ch, s.org, s.orgCert).sendHello(ctx, nil, s.inTransit(otherX25519("p.ephemeral_key")))
				if err != nil {
					return "", err
				}
				return refused(r, sigOnly...)
			}),
			onFace("hello_ack.tampered.p.challenge", func(ctx context.Context, s *suite, ch *channel) (string, error) {
				h := s.newHandshake(ch, s.org, s.orgCert)
				r, err := h.sendHello(ctx, nil, nil)
				if err != nil {
					return "", err
				}
				if err := h.takeAck(r); err != nil {
					return "", err
				}
				h.ackSeen = set(h.ackT, "p.challenge", flipBit("p.challenge").to(s, h.ackT))
				if r, err = h.sendVerify(ctx, h.verifyTree(h.proof()), nil); err != nil {
					return "", err
				}
				return refused(r, authOnly...)
			}),
			onFace("verify.proof_with_responder_label", func(ctx context.Context, s *suite, ch *channel) (string, error) {
				h := s.newHandshake(ch, s.org, s.orgCert)
				r, err := h.sendHello(ctx, nil, nil)
				if err != nil {
					return "", err
				}
				if err := h.takeAck(r); err != nil {
					return "", err
				}
				proof := h.me.Signing.Sign(statement(responderLabel, h.th1(), bytes32(h.ackT, "p.challenge"), h.me.Sender(), h.ack.From))
				if r, err = h.sendVerify(ctx, h.verifyTree(proof), nil); err != nil {
					return "", err
				}
				return refused(r, authOnly...)
			}),
			onFace("session_established.sealed_with_the_responders_key", func(ctx context.Context, s *suite, ch *channel) (string, error) {
				h := s.newHandshake(ch, s.org, s.orgCert)
				if _, err := h.toKeys(ctx, nil); err != nil {
					return "", err
				}
				env := sealWith(h.sess.opn, h.sess.id, 0, signTree(h.establishedTree(), h.me.Signing))
				r, err := s.exchange(ctx, ch, env, opener{as: h.me, sess: h.sess})
				if err != nil {
					return "", err
				}
				return refused(r, authOnly...)
			}),
			onFace("session.reflected_reply", func(ctx context.Context, s *suite, ch *channel) (string, error) {
				sess, err := s.session(ctx, ch)
				if err != nil {
					return "", err
				}
				sess.next = 100
				var answers [][]byte
				for range 3 {
					if err := ch.conn.Send(ctx, sess.sealNext(signTree(s.tree(s.sessionPing()), s.prober.Signing))); err != nil {
						return "", err
					}
					b, err := ch.conn.Receive(ctx)
					if err != nil {
						return "", err
					}
					if m, err := s.open(b, opener{sess: sess}); err != nil || m == nil || m.Op != wire.OpPong {
						return "", fmt.Errorf("a genuine ping in the session was not answered with pong: %v", err)
					}
					answers = append(answers, b)
				}
				r, err := s.streamExchange(ctx, ch.conn, face, answers[1], opener{sess: sess})
				if err != nil {
					return "", err
				}
				return refused(r, authOnly...)
			}),
			onFace("untrusted_org.message", func(ctx context.Context, s *suite, ch *channel) (string, error) {
				stranger, a := s.stranger()
				ext, err := s.certExt(a, stranger.Signing, true)
				if err != nil {
					return "", err
				}
				m := s.ping()
				m.From, m.Ext = a.Sender(), ext
				r, err := s.exchange(ctx, ch, s.sealedTree(a, s.tree(m)), opener{as: a})
				if err != nil {
					return "", err
				}
				return refused(r, authOnly...)
			}),
			onFace("uncertified_key.message", func(ctx context.Context, s *suite, ch *channel) (string, error) {
				a, _ := identity.Generate(s.cfg.Rand, wire.Ref{Agent: "uncertified", Org: s.org.Ref.Org})
				m := s.ping()
				m.From, m.Ext = a.Sender(), wire.Value{}
				r, err := s.exchange(ctx, ch, s.sealedTree(a, s.tree(m)), opener{as: a})
				if err != nil {
					return "", err
				}
				return refused(r, authOnly...)
			}),
		)
	}
	return out
}
