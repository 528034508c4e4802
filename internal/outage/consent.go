package outage

import (
	"context"
	"time"

	"github.com/moltgate/moltgate/pii/consent"
)

// Consents is the name the consent records (revocations, the uses of
// one-time consents) are watched under.
const Consents = "consent records"

// WatchConsents returns rev and sp with their failures recorded in w under
// the name Consents. Either may be nil, and is then left nil.
func WatchConsents(rev consent.Revocations, sp consent.Spender, w *Watch) (consent.Revocations, consent.Spender) {
	if rev != nil {
		rev = watchedRevocations{rev, w}
	}
	if sp != nil {
		sp = watchedSpender{sp, w}
	}
	return rev, sp
}

func recordConsents(w *Watch, err error, wrote bool) {
	switch cause := Cause(err, nil); {
	case cause != "":
		w.Failed(Consents, cause, err)
	case err == nil && wrote:
		w.Worked(Consents)
	case err == nil:
		w.Answered(Consents)
	}
}

type watchedRevocations struct {
	rev consent.Revocations
	w   *Watch
}

func (r watchedRevocations) Revoked(ctx context.Context, id string) (bool, error) {
	ok, err := r.rev.Revoked(ctx, id)
	recordConsents(r.w, err, false)
	return ok, err
}

type watchedSpender struct {
	sp consent.Spender
	w  *Watch
}

func (s watchedSpender) Spend(ctx context.Context, id string, expires time.Time) (bool, error) {
	first, err := s.sp.Spend(ctx, id, expires)
	recordConsents(s.w, err, true)
	return first, err
}
