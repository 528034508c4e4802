package consent

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/moltgate/moltgate/keys"
	"github.com/moltgate/moltgate/wire"
)

// Trust says which keys an organisation issues consents with. *identity.TrustStore satisfies
// it; the gateway's own organisation must be in it for the consents it issues itself.
type Trust interface {
	Trusts(org string, key keys.Ed25519Public) bool
}

// Revocations says whether a consent has been revoked. Store implementations satisfy it.
type Revocations interface {
	Revoked(ctx context.Context, id string) (bool, error)
}

// Spender records the use of one-time consents. Spend reports true for
// the first use of id and false for any later one; expires is the
// consent's own expiry, after which the record may be forgotten. It must be
// atomic across every process that shares the store.
type Spender interface {
	Spend(ctx context.Context, id string, expires time.Time) (first bool, err error)
}

// Request is what a message needs a consent for.
type Request struct {
	// Issuer is the organisation that must have issued the consent: the one the data leaves,
	// which is the message's sender.
	Issuer string
	// Grantee is the message's recipient.
	Grantee wire.Ref
	// Purpose is the message's pii_meta.consent.purpose.
	Purpose string
	// Types are the pii_meta types the consent must cover.
	Types []string
}

// Verifier checks tokens. Its zero value is not usable: Trust is required.
type Verifier struct {
	// Trust decides whether the issuer key belongs to Request.Issuer. Required.
	Trust Trust
	// Revocations is consulted last; nil means no consent is ever revoked.
	Revocations Revocations
	// Now is the current time. Default time.Now.
	Now func() time.Time
	// Skew is how far in the future issued_at may lie, for clocks that disagree. Default 5
	// minutes, the replay window of messages.
	Skew time.Duration
	// Spender records uses of one-time consents. nil: a one-time consent is refused, as
	// this gateway could not keep it to one use.
	Spender Spender
}

// Use spends c if it is a one-time consent: the first Use succeeds and every later one, on
// any gateway that shares the Spender, fails with E_CONSENT (errors.Is ErrUsed). Call it once
// per message, after Check, where the message is let through.
func (v *Verifier) Use(ctx context.Context, c *Claims) error {
	if c.Constraints == nil || !c.Constraints.OneTime {
		return nil
	}
	fail := func(err error, msg string) error {
		return &wire.Error{Code: wire.ErrConsent, Field: "pii_meta.consent.proof", Message: msg, Err: err,
			Suggestion: &wire.Suggestion{Action: wire.ActionRequestConsent, DataTypes: c.DataTypes}}
	}
	if v.Spender == nil {
		return fail(ErrUsed, "consent is for one use, and this gateway has no store to keep it to one")
	}
	first, err := v.Spender.Spend(ctx, c.ID, time.UnixMilli(c.Expires))
	if err != nil {
		// The consent cannot be kept to one use: refused until the store
		// is back, as every storage outage is.
		return storeFailed("pii_meta.consent.proof", "cannot record the use of a one-time consent", err)
	}
	if !first {
		return fail(ErrUsed, "consent was for one use and has been used")
	}
	return nil
}

// Verify parses token and checks it against r. It returns the claims of a valid token. Every
// failure is a *wire.Error with code E_CONSENT (E_STORAGE_UNAVAILABLE if the revocation list
// cannot be read: a consent that cannot be checked is not accepted), suggestion request_consent and the
// types still needed; errors.Is tells the reason (ErrExpired, ErrRevoked...).
func (v *Verifier) Verify(ctx context.Context, token string, r Request) (*Claims, error) {
	t, err := Parse(token)
	if err != nil {
		return nil, withSuggestion(err, r.Types)
	}
	if err := v.check(ctx, &t.Claims, r); err != nil {
		return nil, err
	}
	return &t.Claims, nil
}

// Check verifies claims already parsed from a token (the gateway caches parsed tokens) against r.
func (v *Verifier) Check(ctx context.Context, t *Token, r Request) error {
	return v.check(ctx, &t.Claims, r)
}

func (v *Verifier) check(ctx context.Context, c *Claims, r Request) error {
	now := time.Now
	if v.Now != nil {
		now = v.Now
	}
	skew := v.Skew
	if skew == 0 {
		skew = 5 * time.Minute
	}
	ms := now().UnixMilli()
	fail := func(reason error, missing []string, format string, args ...any) error {
		return &wire.Error{Code: wire.ErrConsent, Field: "pii_meta.consent.proof",
			Message: fmt.Sprintf(format, args...), Err: reason,
			Suggestion: &wire.Suggestion{Action: wire.ActionRequestConsent, DataTypes: missing}}
	}
	all := r.Types
	switch {
	case v.Trust == nil || !v.Trust.Trusts(r.Issuer, c.Issuer):
		return fail(ErrUntrusted, all, "consent is not issued by a trusted key of %s", r.Issuer)
	case ms >= c.Expires:
		return fail(ErrExpired, all, "consent expired")
	case c.IssuedAt > ms+skew.Milliseconds():
		return fail(ErrNotYetValid, all, "consent is issued in the future")
	case c.Grantee != r.Grantee.String():
		return fail(ErrGrantee, all, "consent is granted to another agent")
	case c.Purpose != r.Purpose:
		return fail(ErrPurpose, all, "consent is for another purpose")
	}
	if miss := c.Missing(r.Types); len(miss) > 0 {
		return fail(ErrTypes, miss, "consent does not cover %v", miss)
	}
	if v.Revocations != nil {
		revoked, err := v.Revocations.Revoked(ctx, c.ID)
		if err != nil {
			return storeFailed("pii_meta.consent.proof", "cannot read the consent revocation list", err)
		}
		if revoked {
			return fail(ErrRevoked, all, "consent has been revoked")
		}
	}
	return nil
}

// storeFailed is the refusal of a consent whose store failed: the code of
// every storage outage, with retry_after.
func storeFailed(field, msg string, err error) error {
	e := wire.StorageUnavailable("consent records", err)
	e.Field, e.Message = field, msg+": retry later"
	return e
}

func withSuggestion(err error, types []string) error {
	var we *wire.Error
	if errors.As(err, &we) {
		c := *we
		c.Suggestion = &wire.Suggestion{Action: wire.ActionRequestConsent, DataTypes: types}
		return &c
	}
	return err
}
