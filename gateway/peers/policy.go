package peers

import (
	"errors"
	"time"

	"github.com/moltgate/moltgate/gateway/pipeline"
	"github.com/moltgate/moltgate/wire"
)

// Rule is how calls to a peer handle one class of failure (an OSSA error
// code): how often a failed call is sent again, how long it waits first,
// and whether the failure counts toward opening the peer's breaker.
type Rule struct {
	// Retries is how many times a call that failed so is sent again, each
	// time as a new message (the peer remembers ids), after the first try.
	Retries int
	// Backoff is the wait before the first retry; each next one waits
	// twice as long, up to MaxBackoff. A peer's retry_after, if longer, is
	// waited instead; one longer than MaxBackoff is the caller's to wait,
	// and the call fails at once with it.
	Backoff, MaxBackoff time.Duration
	// Breaker counts a failure of this class toward opening the breaker;
	// a failure that does not count is a sign of life, as a success is.
	Breaker bool
}

// Policy is how calls to one peer handle failures: a Rule per OSSA error
// class, and when the peer's circuit breaker opens.
type Policy struct {
	// Rules holds a Rule per OSSA code; a code it does not hold is never
	// retried and does not count toward the breaker.
	Rules map[wire.OSSACode]Rule
	// BreakerFailures consecutive failures that count open the breaker;
	// it then fails calls at once (CIRCUIT_OPEN, with the time to wait)
	// for BreakerCooldown, lets one trial call through, and stays open
	// twice as long each time the trial fails, up to BreakerMaxCooldown.
	BreakerFailures                     int
	BreakerCooldown, BreakerMaxCooldown time.Duration
}

// RetriedClasses are the OSSA codes whose default handling is to retry,
// or, for CIRCUIT_OPEN, to fall back at once: the classes a Policy may
// set. The others (VALIDATION_ERROR, POLICY_VIOLATION, ...) are refusals
// that a retry of the same message would meet again, and are never
// retried.
var RetriedClasses = []wire.OSSACode{wire.OSSAToolError, wire.OSSAToolTimeout, wire.OSSARateLimited,
	wire.OSSAStateError, wire.OSSACircuitOpen}

// DefaultPolicy is OSSA's default error handling, as calls to a peer
// gateway apply it:
//
//   - TOOL_ERROR (the peer could not be reached, the connection was lost,
//     or it answered E_INTERNAL): 3 retries, 100 ms doubling to 2 s;
//     counts toward the breaker.
//   - TOOL_TIMEOUT (the peer answered E_TIMEOUT): 2 retries, 100 ms
//     doubling to 2 s, while the call's deadline leaves time; does not
//     count, since a slow agent is not a failing gateway.
//   - RATE_LIMITED (E_RATE_LIMIT, E_RATE_LIMIT_DISCOVERY): 3 retries
//     "with backoff": 100 ms doubling, or the peer's retry_after if
//     longer, up to 5 s; does not count: the peer answered.
//   - STATE_ERROR (E_SESSION_EXPIRED): 1 retry, at once, in a new
//     session; does not count.
//   - CIRCUIT_OPEN (the peer answered E_PEER_UNAVAILABLE, or this
//     gateway's breaker is open): fallback, 0 retries: the caller gets
//     the failure at once with the time to wait; counts.
//
// The breaker opens after 5 consecutive failures that count, for 1 s,
// doubling up to 32 s while trials fail.
func DefaultPolicy() Policy {
	const b, maxB = 100 * time.Millisecond, 2 * time.Second
	return Policy{
		Rules: map[wire.OSSACode]Rule{
			wire.OSSAToolError:   {Retries: wire.OSSAToolError.DefaultHandling().Retries, Backoff: b, MaxBackoff: maxB, Breaker: true},
			wire.OSSAToolTimeout: {Retries: wire.OSSAToolTimeout.DefaultHandling().Retries, Backoff: b, MaxBackoff: maxB},
			wire.OSSARateLimited: {Retries: wire.OSSARateLimited.DefaultHandling().Retries, Backoff: b, MaxBackoff: 5 * time.Second},
			wire.OSSAStateError:  {Retries: wire.OSSAStateError.DefaultHandling().Retries},
			wire.OSSACircuitOpen: {Retries: wire.OSSACircuitOpen.DefaultHandling().Retries, Breaker: true},
		},
		BreakerFailures: 5, BreakerCooldown: time.Second, BreakerMaxCooldown: 32 * time.Second,
	}
}

// wait is how long to wait before retry n (0 for the first) of a call
// that failed under r, given the peer's retry_after (0 if none); ok is
// false when the peer asks for longer than MaxBackoff.
func (r Rule) wait(n int, retryAfter time.Duration) (time.Duration, bool) {
	w := r.Backoff
	for i := 0; i < n && w < r.MaxBackoff; i++ {
		w *= 2
	}
	w = min(w, max(r.MaxBackoff, r.Backoff))
	if retryAfter > w {
		if retryAfter > r.MaxBackoff {
			return 0, false
		}
		w = retryAfter
	}
	return w, true
}

// failure is what a failed attempt of a call says for the policy.
type failure struct {
	class wire.OSSACode
	// safe: the peer cannot have acted on the message (it refused it
	// before anything, or could not open it), so any operation may be
	// sent again; otherwise only idempotent ones are.
	safe bool
	// renew: the session is to be renewed before the retry, and the same
	// message sent again (the peer did not open it, so did not note its
	// id).
	renew      bool
	retryAfter time.Duration
}

// answered is a failure the peer's gateway answered with, as opposed to
// one this gateway found (a connection that failed, a deadline that
// passed).
type answered struct{ error }

func (a answered) Unwrap() error { return a.error }

// classify says what err, the failure of one attempt, is for the policy;
// ok is false for a failure that is never retried nor counted (a reply
// this gateway refused, the caller's own deadline, a call abandoned).
func classify(err error) (f failure, ok bool) {
	code := pipeline.Code(err)
	var peer answered
	if !errors.As(err, &peer) {
		// Found here: a failure to reach the peer is the call's failure
		// (TOOL_ERROR); anything else is this side's decision.
		if errors.Is(err, errTransport) || code == wire.ErrPeerUnavailable {
			return failure{class: wire.OSSAToolError}, true
		}
		if code == wire.ErrSessionExpired {
			return failure{class: wire.OSSAStateError, safe: true, renew: true}, true
		}
		return failure{}, false
	}
	f = failure{class: code.OSSA()}
	switch code {
	case wire.ErrRateLimit, wire.ErrRateLimitDiscovery:
		// Refused at the peer's gate, before anything was done.
		f.safe = true
		if we := pipeline.AsWire(err); we.Suggestion != nil && we.Suggestion.DelayMS > 0 {
			f.retryAfter = time.Duration(we.Suggestion.DelayMS) * time.Millisecond
		}
	case wire.ErrSessionExpired:
		f.safe, f.renew = true, true
	case wire.ErrPeerUnavailable:
		// The peer is going away (shutting down) and refused it unread.
		f.safe = true
	case wire.ErrRegistrationExpired:
		// STATE_ERROR too, but not a state this gateway can renew.
		return failure{}, false
	}
	return f, true
}
