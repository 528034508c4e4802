package conformance

import (
	"context"
	"time"

	"github.com/moltgate/moltgate/identity"
	"github.com/moltgate/moltgate/keys"
	"github.com/moltgate/moltgate/wire"
)

// senderCases: messages outside a session from senders the gateway must
// not serve: a broken signature or seal, a key no trusted org certified,
// an organisation it never imported, an agent without the capability its
// call needs.
func senderCases() []testCase {
	ping := func(name string, want wire.Code, build func(s *suite) []byte, as func(s *suite) *identity.Agent) testCase {
		return testCase{"sender." + name, func(ctx context.Context, s *suite) (string, error) {
			r, _, err := s.sendOutside(ctx, func() []byte { return build(s) }, as(s))
			if err != nil {
				return "", err
			}
			d, err := refused(r, want)
			return withControl(ctx, d, err, s.genuinePing)
		}}
	}
	prober := func(s *suite) *identity.Agent { return s.prober }
	invoke := func(name string, want wire.Code, ext func(s *suite) wire.Value) testCase {
		return testCase{"sender." + name, func(ctx context.Context, s *suite) (string, error) {
			const text = "conformance: a call that needs tool.invoke"
			r, err := s.sendInSession(ctx, func() *wire.Message {
				m := s.invoke(wire.Pub, text)
				m.Ext = ext(s)
				return m
			})
			if err != nil {
				return "", err
			}
			d, err := refused(r, want)
			return withControl(ctx, "in a session, "+d, err, func(ctx context.Context) error { return s.genuineInvoke(ctx, wire.Pub, text) })
		}}
	}
	return []testCase{
		ping("signature_flipped", wire.ErrSignature, func(s *suite) []byte {
			b := signTree(s.tree(s.ping()), s.prober.Signing)
			return s.seal(s.prober, s.inTransit(flipBit("sig"))(b))
		}, prober),
		ping("ciphertext_flipped", wire.ErrAuthFailed, func(s *suite) []byte {
			return s.inTransit(flipBit("ciphertext"))(s.sealedTree(s.prober, s.tree(s.ping())))
		}, prober),
		ping("sealed_to_another_key", wire.ErrAuthFailed, func(s *suite) []byte {
			other, _ := keys.GenerateX25519(s.cfg.Rand)
			signed := signTree(s.tree(s.ping()), s.prober.Signing)
			b, err := newBox(s.prober).Seal(signed, other.Public(), s.cfg.Rand)
			if err != nil {
				panic(err)
			}
			return b
		}, prober),
		ping("uncertified_key", wire.ErrAuthFailed, func(s *suite) []byte {
			// An agent of the test organisation that it never certified.
			a, _ := identity.Generate(s.cfg.Rand, wire.Ref{Agent: "uncertified", Org: s.org.Ref.Org})
			m := s.ping()
			m.From, m.Ext = a.Sender(), wire.Value{}
			return s.sealedTree(a, s.tree(m))
		}, prober),
		ping("expired_certificate", wire.ErrAuthFailed, func(s *suite) []byte {
			now := s.cfg.Now()
			o := &identity.Org{Name: s.org.Ref.Org, Signing: s.org.Signing}
			c, err := o.IssueIdentity(s.prober.Public(), now.Add(-2*time.Hour), now.Add(-time.Hour))
			if err != nil {
				panic(err)
			}
			m := s.ping()
			m.Ext = wire.ObjectValue(wire.Member{Key: extIdentity, Value: wire.ObjectValue(wire.Member{Key: "cert", Value: c.Value()})})
			return s.sealedTree(s.prober, s.tree(m))
		}, prober),
		ping("untrusted_org", wire.ErrAuthFailed, func(s *suite) []byte {
			// A throwaway organisation the gateway never imported, with a
			// certificate from its own org key.
			stranger, a := s.stranger()
			ext, err := s.certExt(a, stranger.Signing, true)
			if err != nil {
				panic(err)
			}
			m := s.ping()
			m.From, m.Ext = a.Sender(), ext
			return s.sealedTree(a, s.tree(m))
		}, prober),
		{"sender.untrusted_org.handshake", func(ctx context.Context, s *suite) (string, error) {
			stranger, _ := s.stranger()
			cert, err := s.issueIdentity(stranger, stranger.Signing)
			if err != nil {
				return "", err
			}
			r, err := s.newHandshake(s.httpChannel(), stranger, cert).sendHello(ctx, nil, nil)
			if err != nil {
				return "", err
			}
			d, err := refused(r, authOnly...)
			return withControl(ctx, d, err, s.genuineHello)
		}},
		{"sender.untrusted_org.batch", func(ctx context.Context, s *suite) (string, error) {
			b, a := s.strangerPing()
			rs, err := s.postBatch(ctx, [][]byte{b}, opener{as: a})
			if err != nil {
				return "", err
			}
			d, err := refused(rs[0], authOnly...)
			return withControl(ctx, d, err, s.genuinePing)
		}},
		{"sender.untrusted_org.grpc", func(ctx context.Context, s *suite) (string, error) {
			b, a := s.strangerPing()
			r, err := s.grpcSend(ctx, b, opener{as: a})
			if err != nil {
				return "", err
			}
			d, err := refused(r, authOnly...)
			return withControl(ctx, d, err, s.genuinePing)
		}},
		ping("addressed_to_another_org", wire.ErrAuthFailed, func(s *suite) []byte {
			m := s.ping()
			m.To.Org = s.org.Ref.Org
			return s.sealedTree(s.prober, s.tree(m))
		}, prober),
		ping("unknown_agent", wire.ErrAgentNotFound, func(s *suite) []byte {
			m := s.ping()
			m.To.Agent = "conformance-no-such-agent"
			return s.sealedTree(s.prober, s.tree(m))
		}, prober),
		{"sender.trust.tool_outside_a_session", func(ctx context.Context, s *suite) (string, error) {
			// Certified and holding tool.invoke, but outside a session the
			// sender is at level 2 of the 4 a tool needs.
			const text = "conformance: a call that needs a session"
			r, _, err := s.sendOutside(ctx, func() []byte { return s.sealedTree(s.prober, s.tree(s.invoke(wire.Pub, text))) }, s.prober)
			if err != nil {
				return "", err
			}
			d, err := refused(r, authOnly...)
			return withControl(ctx, d, err, func(ctx context.Context) error { return s.genuineInvoke(ctx, wire.Pub, text) })
		}},
		{"sender.trust.conf_outside_a_session", func(ctx context.Context, s *suite) (string, error) {
			r, _, err := s.sendOutside(ctx, func() []byte {
				m := s.ping()
				m.Cls = wire.Conf
				return s.sealedTree(s.prober, s.tree(m))
			}, s.prober)
			if err != nil {
				return "", err
			}
			d, err := refused(r, authOnly...)
			return withControl(ctx, "sealed conf ping "+d, err, s.genuinePing)
		}},
		invoke("without_capability_certificate", wire.ErrCapability, func(s *suite) wire.Value { return s.proberIDExt }),
		invoke("capability_certificate_by_another_key", wire.ErrCapability, func(s *suite) wire.Value {
			k, _ := keys.GenerateEd25519(s.cfg.Rand)
			ext, err := s.certExt(s.prober, k, true)
			if err != nil {
				panic(err)
			}
			// The identity certificate is the genuine one; only the
			// capability's issuer is a stranger.
			return ext.With(extIdentity, s.proberIDExt.Get(extIdentity))
		}),
		invoke("capability_certificate_of_another_agent", wire.ErrCapability, func(s *suite) wire.Value {
			other, _ := identity.Generate(s.cfg.Rand, wire.Ref{Agent: "other", Org: s.org.Ref.Org})
			ext, err := s.certExt(other, s.org.Signing, true)
			if err != nil {
				panic(err)
			}
			return s.proberIDExt.With(extCapabilities, ext.Get(extCapabilities))
		}),
	}
}

// stranger makes a throwaway organisation: its org key and one agent.
func (s *suite) stranger() (org, agent *identity.Agent) {
	name := "stranger-" + s.newID()[:8]
	org, err := identity.Generate(s.cfg.Rand, wire.Ref{Agent: "gateway", Org: name})
	if err != nil {
		panic(err)
	}
	if agent, err = identity.Generate(s.cfg.Rand, wire.Ref{Agent: "prober", Org: name}); err != nil {
		panic(err)
	}
	return org, agent
}

// strangerPing is a ping from an agent of a throwaway organisation,
// certified by its own org key, sealed to the gateway.
func (s *suite) strangerPing() ([]byte, *identity.Agent) {
	stranger, a := s.stranger()
	ext, err := s.certExt(a, stranger.Signing, true)
	if err != nil {
		panic(err)
	}
	m := s.ping()
	m.From, m.Ext = a.Sender(), ext
	return s.sealedTree(a, s.tree(m)), a
}
