package conformance

import (
	"context"
	"fmt"
	"time"

	"github.com/moltgate/moltgate/keys"
	"github.com/moltgate/moltgate/pii/consent"
	"github.com/moltgate/moltgate/wire"
)

// personal is the text the consent cases carry: an e-mail address.
const personal = "conformance: write to jane.doe@example.com about the order"

const consentPurpose = "conformance-check"

// grant describes a consent token the test organisation issues.
type grant struct {
	key      keys.Ed25519Private // zero: the org key
	grantee  string              // "": the agent under test
	types    []string            // nil: email
	issued   time.Time           // zero: a minute ago
	expires  time.Time           // zero: in an hour
	oneTime  bool
	purpose  string // "": consentPurpose, as pii_meta says
	grantedB string
}

// token issues g.
func (s *suite) token(g grant) string {
	now := s.cfg.Now()
	if g.key.IsZero() {
		g.key = s.org.Signing
	}
	if g.grantee == "" {
		g.grantee = s.agentRef().String()
	}
	if g.types == nil {
		g.types = []string{"email"}
	}
	if g.issued.IsZero() {
		g.issued = now.Add(-time.Minute)
	}
	if g.expires.IsZero() {
		g.expires = now.Add(time.Hour)
	}
	if g.purpose == "" {
		g.purpose = consentPurpose
	}
	c := consent.Claims{ID: s.newID(), GrantedBy: "user:conformance@example.com", Grantee: g.grantee, Purpose: g.purpose,
		DataTypes: g.types, IssuedAt: g.issued.UnixMilli(), Expires: g.expires.UnixMilli()}
	if g.oneTime {
		c.Constraints = &consent.Constraints{OneTime: true}
	}
	tok, err := consent.Issue(g.key, c)
	if err != nil {
		panic(fmt.Sprintf("conformance: issue consent: %v", err))
	}
	return tok
}

// withConsent makes a pii call of the agent under test that carries tok.
func (s *suite) withConsent(text, tok string, types ...string) *wire.Message {
	if types == nil {
		types = []string{"email"}
	}
	m := s.invoke(wire.PII, text)
	m.PIIMeta = &wire.PIIMeta{Types: types, Consent: &wire.Consent{GrantedBy: "user:conformance@example.com",
		Purpose: consentPurpose, Proof: tok}}
	return m
}

// consentCases: personal data under a consent that does not hold is
// refused, and under one that does is served. They need the test
// organisation imported with a ceiling of pii or sec.
func consentCases() []testCase {
	// field is where the refusal points: the token, or the types the
	// message declares.
	refusedUnder := func(name, field string, build func(s *suite) *wire.Message) testCase {
		return testCase{"pii.consent." + name, func(ctx context.Context, s *suite) (string, error) {
			if err := s.needPII(); err != nil {
				return "", err
			}
			r, err := s.sendInSession(ctx, func() *wire.Message { return build(s) })
			if err != nil {
				return "", err
			}
			d, err := refusedAt(r, field, wire.ErrConsent)
			return withControl(ctx, d, err, s.genuineConsent)
		}}
	}
	return []testCase{
		{"pii.consent.valid", func(ctx context.Context, s *suite) (string, error) {
			if err := s.needPII(); err != nil {
				return "", err
			}
			if err := s.genuineConsent(ctx); err != nil {
				return "", err
			}
			return "an e-mail address under a consent the test organisation issued: served", nil
		}},
		refusedUnder("issuer_not_trusted", "pii_meta.consent.proof", func(s *suite) *wire.Message {
			k, _ := keys.GenerateEd25519(s.cfg.Rand)
			return s.withConsent(personal, s.token(grant{key: k}))
		}),
		refusedUnder("for_another_grantee", "pii_meta.consent.proof", func(s *suite) *wire.Message {
			return s.withConsent(personal, s.token(grant{grantee: "someone-else@" + s.target.Org}))
		}),
		refusedUnder("for_another_purpose", "pii_meta.consent.proof", func(s *suite) *wire.Message {
			return s.withConsent(personal, s.token(grant{purpose: "marketing"}))
		}),
		refusedUnder("expired", "pii_meta.consent.proof", func(s *suite) *wire.Message {
			now := s.cfg.Now()
			return s.withConsent(personal, s.token(grant{issued: now.Add(-2 * time.Hour), expires: now.Add(-time.Hour)}))
		}),
		refusedUnder("not_covering_the_data", "pii_meta.consent.proof", func(s *suite) *wire.Message {
			// The consent is for phone numbers; the message holds an e-mail
			// address and says so.
			return s.withConsent(personal, s.token(grant{types: []string{"phone"}}))
		}),
		refusedUnder("undeclared_data", "pii_meta.types", func(s *suite) *wire.Message {
			// A phone number the message does not declare and the consent
			// does not cover.
			return s.withConsent(personal+", or call +1 415 555 2671", s.token(grant{}))
		}),
		refusedUnder("forged_signature", "pii_meta.consent.proof", func(s *suite) *wire.Message {
			tok := []byte(s.token(grant{}))
			i := len(tok) - 10
			if tok[i] == 'A' {
				tok[i] = 'B'
			} else {
				tok[i] = 'A'
			}
			return s.withConsent(personal, string(tok))
		}),
		{"pii.consent.one_time_used_twice", func(ctx context.Context, s *suite) (string, error) {
			if err := s.needPII(); err != nil {
				return "", err
			}
			tok := s.token(grant{oneTime: true})
			r, err := s.sendInSession(ctx, func() *wire.Message { return s.withConsent(personal, tok) })
			if err != nil {
				return "", err
			}
			if err := served(r, wire.OpRespond); err != nil {
				return "", fmt.Errorf("the first use of a one-time consent: %w", err)
			}
			if r, err = s.sendInSession(ctx, func() *wire.Message { return s.withConsent(personal, tok) }); err != nil {
				return "", err
			}
			d, err := refused(r, wire.ErrConsent)
			return "a second message under it " + d + "; the first served", err
		}},
	}
}

// needPII says why a case cannot run below a pii ceiling.
func (s *suite) needPII() error {
	if s.cfg.MaxCls < wire.PII {
		return skipf("needs the test organisation imported with a ceiling of pii (peer import --max-cls pii, and conformance --max-cls pii); this run says %s", s.cfg.MaxCls)
	}
	return nil
}

// genuineConsent is the control of consent cases: personal data under a
// consent the test organisation issued is served.
func (s *suite) genuineConsent(ctx context.Context) error {
	r, err := s.sendInSession(ctx, func() *wire.Message { return s.withConsent(personal, s.token(grant{})) })
	if err != nil {
		return err
	}
	if err := served(r, wire.OpRespond); err != nil {
		return fmt.Errorf("pii call under a valid consent: %w", err)
	}
	return nil
}
