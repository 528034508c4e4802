package roster

import (
	"context"
	"time"
)

// HalfSpent reports whether half of the time between issue and expiry,
// both in unix milliseconds, has passed: a certificate is issued again
// then, long enough before the end that a peer whose clock is behind, or a
// renewal that failed and is retried, still finds a valid one.
func HalfSpent(issued, expires int64, now time.Time) bool {
	return now.UnixMilli() >= issued+(expires-issued)/2
}

// Renew issues again each agent's identity and capability certificates
// once half spent, which its next messages carry and its directory entry
// is published with.
func (r *Roster) Renew(ctx context.Context, now time.Time) {
	r.mu.Lock()
	cur := r.All()
	var renewed []string
	next := make(map[string]*Agent, len(cur))
	for id, st := range cur {
		next[id] = st
		if !certsDue(st, now) {
			continue
		}
		fresh := *st
		if err := r.certify(&fresh, now); err != nil {
			r.cfg.Log.Error("agent certificates not renewed", "agent", id, "err", err.Error())
			continue
		}
		next[id] = &fresh
		renewed = append(renewed, id)
	}
	if len(renewed) > 0 {
		r.agents.Store(&next)
	}
	r.mu.Unlock()
	for _, id := range renewed {
		r.republish(ctx, id)
		r.cfg.Log.Info("agent certificates renewed", "agent", id)
	}
}

// certsDue reports whether any of st's certificates is half spent.
func certsDue(st *Agent, now time.Time) bool {
	if HalfSpent(st.Cert.IssuedAt, st.Cert.Expires, now) {
		return true
	}
	for _, c := range st.Caps {
		if HalfSpent(c.Attestation.IssuedAt, c.Attestation.Expires, now) {
			return true
		}
	}
	return false
}
