package roster

import (
	"context"
	"time"
)

// Recertify issues every agent's identity and capability certificates
// again under the org key in use (Config.Self), and publishes their
// entries again: the organisation's key was rotated while the gateway
// serves. The agents take the gateway's X25519 key in use with it, which
// their new identity certificates and entries name. It returns the agents
// certified.
func (r *Roster) Recertify(ctx context.Context, now time.Time) []string {
	r.mu.Lock()
	cur := r.All()
	next := make(map[string]*Agent, len(cur))
	self := r.cfg.Self()
	var done []string
	for id, st := range cur {
		next[id] = st
		fresh := *st
		fresh.Identity = sharing(st.Identity, self)
		if err := r.certify(&fresh, now); err != nil {
			r.cfg.Log.Error("agent certificates not issued under the new org key", "agent", id, "err", err.Error())
			continue
		}
		next[id] = &fresh
		done = append(done, id)
	}
	r.agents.Store(&next)
	r.mu.Unlock()
	for _, id := range done {
		r.republish(ctx, id)
	}
	return done
}
