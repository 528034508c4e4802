package conformance

import (
	"context"
	"crypto/ed25519"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"slices"

	"github.com/moltgate/moltgate/wire"
)

// dataCases: calls above the class ceiling the test organisation was
// imported with, confidential data in the clear, personal data without a
// consent and secret material below sec. The control of each is the same
// call with the data left out, at the ceiling.
func dataCases() []testCase {
	const clean = "conformance: nothing personal here"
	call := func(name string, cls func(s *suite) wire.Class, text func(s *suite) string, check func(s *suite, r reply) (string, error)) testCase {
		return testCase{name, func(ctx context.Context, s *suite) (string, error) {
			r, err := s.sendInSession(ctx, func() *wire.Message { return s.invoke(cls(s), text(s)) })
			if err != nil {
				return "", err
			}
			d, err := check(s, r)
			return withControl(ctx, d, err, func(ctx context.Context) error { return s.genuineInvoke(ctx, min(s.cfg.MaxCls, wire.Int), clean) })
		}}
	}
	int_ := func(*suite) wire.Class { return wire.Int }
	consent := func(types ...string) func(s *suite, r reply) (string, error) {
		return func(s *suite, r reply) (string, error) {
			d, err := refused(r, wire.ErrConsent)
			if err != nil {
				return "", err
			}
			p, _ := wire.PayloadAs[wire.ErrorPayload](r.msg)
			sg := p.Suggestion
			if sg == nil || sg.Action != wire.ActionRequestConsent {
				return "", fmt.Errorf("%s without the suggestion request_consent", d)
			}
			for _, t := range types {
				if !slices.Contains(sg.DataTypes, t) {
					return "", fmt.Errorf("%s, suggesting consent for %v, which lacks %s", d, sg.DataTypes, t)
				}
			}
			return fmt.Sprintf("%s, suggesting request_consent for %v", d, sg.DataTypes), nil
		}
	}
	return []testCase{
		{"cls.above_ceiling", func(ctx context.Context, s *suite) (string, error) {
			if s.cfg.MaxCls == wire.Sec {
				return "", skipf("the test organisation's ceiling is sec: no class lies above it (import it with --max-cls pii)")
			}
			above := s.cfg.MaxCls + 1
			r, err := s.sendInSession(ctx, func() *wire.Message { return s.invoke(above, clean) })
			if err != nil {
				return "", err
			}
			d, err := refusedAt(r, "cls", wire.ErrClassification)
			return withControl(ctx, fmt.Sprintf("%s above the ceiling %s %s", above, s.cfg.MaxCls, d), err, func(ctx context.Context) error {
				if s.cfg.MaxCls == wire.PII {
					// A pii message needs a consent: the genuine one has it.
					return s.genuineConsent(ctx)
				}
				return s.genuineInvoke(ctx, s.cfg.MaxCls, clean)
			})
		}},
		{"cls.conf_in_the_clear", func(ctx context.Context, s *suite) (string, error) {
			r, _, err := s.sendOutside(ctx, func() []byte {
				m := s.ping()
				m.Cls = wire.Conf
				return signTree(s.tree(m), s.prober.Signing)
			}, s.prober)
			if err != nil {
				return "", err
			}
			d, err := refused(r, wire.ErrClassification)
			return withControl(ctx, d, err, s.genuinePing)
		}},
		call("pii.email_without_consent", int_, func(*suite) string {
			return "conformance: write to jane.doe@example.com about the order"
		}, consent("email")),
		call("pii.card_number_without_consent", int_, func(*suite) string {
			return "conformance: charge card 4111 1111 1111 1111 exp 12/30"
		}, consent("financial")),
		call("pii.phone_without_consent", int_, func(*suite) string {
			return "conformance: call me on +1 415 555 2671 tomorrow"
		}, consent("phone")),
		call("secret.private_key_below_sec", int_, func(*suite) string {
			_, k, err := ed25519.GenerateKey(nil)
			if err != nil {
				panic(err)
			}
			der, _ := x509.MarshalPKCS8PrivateKey(k)
			return "conformance: the key is\n" + string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}))
		}, func(_ *suite, r reply) (string, error) { return refused(r, wire.ErrClassification) }),
	}
}
