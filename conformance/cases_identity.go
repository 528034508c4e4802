package conformance

import (
	"context"
	"fmt"

	"github.com/moltgate/moltgate/identity"
	"github.com/moltgate/moltgate/keys"
	"github.com/moltgate/moltgate/wire"
)

// identityCases: valid signatures by one identity that claim another, in
// a handshake, outside a session and inside one.
func identityCases() []testCase {
	hello := func(name string, who func(s *suite) (*identity.Agent, wire.Value, error)) testCase {
		return testCase{"identity.hello." + name, func(ctx context.Context, s *suite) (string, error) {
			a, cert, err := who(s)
			if err != nil {
				return "", err
			}
			r, err := s.newHandshake(s.httpChannel(), a, cert).sendHello(ctx, nil, nil)
			if err != nil {
				return "", err
			}
			d, err := refused(r, authOnly...)
			return withControl(ctx, d, err, s.genuineHello)
		}}
	}
	outside := func(name string, build func(s *suite) (from *identity.Agent, signed []byte)) testCase {
		return testCase{"identity.message." + name, func(ctx context.Context, s *suite) (string, error) {
			r, _, err := s.sendOutside(ctx, func() []byte {
				a, signed := build(s)
				return s.seal(a, signed)
			}, s.prober)
			if err != nil {
				return "", err
			}
			d, err := refused(r, authOnly...)
			return withControl(ctx, d, err, s.genuinePing)
		}}
	}
	inSession := func(name string, build func(s *suite) []byte) testCase {
		return testCase{"identity.session." + name, func(ctx context.Context, s *suite) (string, error) {
			ch := s.httpChannel()
			sess, err := s.session(ctx, ch)
			if err != nil {
				return "", err
			}
			r, err := s.exchange(ctx, ch, sess.sealNext(build(s)), opener{sess: sess})
			if err != nil {
				return "", err
			}
			d, err := refused(r, authOnly...)
			if err != nil {
				return "", err
			}
			if r, err = s.inSession(ctx, ch, sess, s.prober, s.sessionPing()); err != nil {
				return "", err
			}
			if err := served(r, wire.OpPong); err != nil {
				return "", fmt.Errorf("%s, but then a genuine ping in the same session: %w", d, err)
			}
			return d + "; a genuine ping in the same session served", nil
		}}
	}
	return []testCase{
		hello("key_not_the_org_key", func(s *suite) (*identity.Agent, wire.Value, error) {
			// A fresh key speaking as the test organisation's gateway, with
			// the certificate of the org key.
			a, err := identity.Generate(s.cfg.Rand, s.org.Ref)
			return a, s.orgCert, err
		}),
		hello("self_certified", func(s *suite) (*identity.Agent, wire.Value, error) {
			a, err := identity.Generate(s.cfg.Rand, s.org.Ref)
			if err != nil {
				return nil, wire.Value{}, err
			}
			cert, err := s.issueIdentity(a, a.Signing)
			return a, cert, err
		}),
		hello("certificate_of_another_agent", func(s *suite) (*identity.Agent, wire.Value, error) {
			return s.org, s.proberIDExt.Get(extIdentity).Get("cert"), nil
		}),
		hello("org_key_claims_the_gateways_org", func(s *suite) (*identity.Agent, wire.Value, error) {
			a := &identity.Agent{Ref: s.gw, Signing: s.org.Signing, Encryption: s.org.Encryption}
			cert, err := s.issueIdentity(a, s.org.Signing)
			return a, cert, err
		}),
		hello("org_key_claims_another_org", func(s *suite) (*identity.Agent, wire.Value, error) {
			a := &identity.Agent{Ref: wire.Ref{Agent: "gateway", Org: s.org.Ref.Org + "-other"}, Signing: s.org.Signing, Encryption: s.org.Encryption}
			cert, err := s.issueIdentity(a, s.org.Signing)
			return a, cert, err
		}),
		outside("key_not_the_certified_key", func(s *suite) (*identity.Agent, []byte) {
			// A fresh key signs as the prober and shows the prober's
			// certificate, which names another key.
			k, _ := keys.GenerateEd25519(s.cfg.Rand)
			a := &identity.Agent{Ref: s.prober.Ref, Signing: k, Encryption: s.prober.Encryption}
			m := s.ping()
			m.From = a.Sender()
			return a, signTree(s.tree(m), k)
		}),
		outside("claims_another_agent", func(s *suite) (*identity.Agent, []byte) {
			m := s.ping()
			m.From.Agent = "conformance-other"
			return s.prober, signTree(s.tree(m), s.prober.Signing)
		}),
		outside("org_key_claims_another_org", func(s *suite) (*identity.Agent, []byte) {
			a := &identity.Agent{Ref: wire.Ref{Agent: "gateway", Org: s.org.Ref.Org + "-other"}, Signing: s.org.Signing, Encryption: s.org.Encryption}
			m := s.ping()
			m.From, m.Ext = a.Sender(), wire.Value{}
			return a, signTree(s.tree(m), a.Signing)
		}),
		outside("certificate_by_another_org_key", func(s *suite) (*identity.Agent, []byte) {
			// The prober's certificate, issued by a key the test
			// organisation never gave the gateway.
			k, _ := keys.GenerateEd25519(s.cfg.Rand)
			ext, err := s.certExt(s.prober, k, true)
			if err != nil {
				panic(err)
			}
			m := s.ping()
			m.Ext = ext
			return s.prober, signTree(s.tree(m), s.prober.Signing)
		}),
		outside("resealed_by_another_key", func(s *suite) (*identity.Agent, []byte) {
			// The prober's genuine signed ping, sealed by someone else's
			// key (forwarding a message someone once received).
			other, _ := identity.Generate(s.cfg.Rand, wire.Ref{Agent: "forwarder", Org: s.org.Ref.Org})
			return other, signTree(s.tree(s.ping()), s.prober.Signing)
		}),
		inSession("from_another_org", func(s *suite) []byte {
			a, _ := identity.Generate(s.cfg.Rand, wire.Ref{Agent: "prober", Org: s.org.Ref.Org + "-other"})
			m := s.sessionPing()
			m.From = a.Sender()
			return signTree(s.tree(m), a.Signing)
		}),
		inSession("gateway_with_another_key", func(s *suite) []byte {
			// The session's own agent name, under a key it did not prove.
			a, _ := identity.Generate(s.cfg.Rand, s.org.Ref)
			m := s.sessionPing()
			m.From = a.Sender()
			return signTree(s.tree(m), a.Signing)
		}),
		inSession("to_another_org", func(s *suite) []byte {
			m := s.sessionPing()
			m.To.Org = s.org.Ref.Org
			return signTree(s.tree(m), s.prober.Signing)
		}),
	}
}

// sendOutside posts a message outside any session, built anew while the
// gateway answers E_RATE_LIMIT; as is whom a sealed answer is for.
func (s *suite) sendOutside(ctx context.Context, build func() []byte, as *identity.Agent) (reply, []byte, error) {
	return s.retry(ctx, build, func(b []byte) (reply, error) { return s.postMessage(ctx, b, opener{as: as}) })
}

// genuinePing is the control of message cases: the prober's sealed ping,
// with its certificate, is answered with pong.
func (s *suite) genuinePing(ctx context.Context) error {
	r, _, err := s.sendOutside(ctx, func() []byte { return s.sealedTree(s.prober, s.tree(s.ping())) }, s.prober)
	if err != nil {
		return err
	}
	return served(r, wire.OpPong)
}

// genuineInvoke is the control of data cases: the prober's call of the
// tool at cls, sealed in a session and with its capability certificate,
// is answered with success.
func (s *suite) genuineInvoke(ctx context.Context, cls wire.Class, text string) error {
	r, err := s.sendInSession(ctx, func() *wire.Message { return s.invoke(cls, text) })
	if err != nil {
		return err
	}
	if err := served(r, wire.OpRespond); err != nil {
		return fmt.Errorf("%s call of %s/%s: %w", cls, s.cfg.Agent, s.cfg.Tool, err)
	}
	return nil
}

// sendInSession sends what build makes, signed by the prober, in the
// suite's HTTP session, built anew while the gateway answers
// E_RATE_LIMIT. Calls of tools need a session: outside one no sender
// reaches the trust level they need.
func (s *suite) sendInSession(ctx context.Context, build func() *wire.Message) (reply, error) {
	if s.sess == nil {
		sess, err := s.session(ctx, s.httpChannel())
		if err != nil {
			return reply{}, fmt.Errorf("a session for calls: %w", err)
		}
		s.sess = sess
	}
	r, _, err := s.retry(ctx, func() []byte {
		return s.sess.sealNext(signTree(s.tree(build()), s.prober.Signing))
	}, func(b []byte) (reply, error) { return s.postMessage(ctx, b, opener{as: s.prober, sess: s.sess}) })
	return r, err
}
