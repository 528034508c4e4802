package roster

import (
	"context"
	"errors"
	"reflect"
	"sort"
	"time"

	"github.com/moltgate/moltgate/internal/filestamp"
)

// Reload makes the agents added, changed or removed since the records were
// last read take effect: moltgate agent add and agent remove write
// DIR/agents, and this reads it again.
//
// A new agent gets its ceiling, is handed to the local bridge (launched
// under supervision, or waiting for its provisioned token), and is
// published as its tools register. A changed agent's ceiling,
// capabilities, visibility, query tool and approval apply to calls that
// start from then on; a new exec relaunches it (see the bridge's
// UpdateAgent). A removed agent is refused at once as unknown, its entry
// is withdrawn, and the bridge stops it, which Reload waits for.
//
// On error (a record that does not parse or check, a key that does not
// load) nothing changes.
func (r *Roster) Reload(ctx context.Context) error {
	if r.bridge == nil {
		return errors.New("roster: Reload before Launch")
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	records, err := r.cfg.Records()
	if err != nil {
		return err
	}
	// First everything that can fail, then the changes.
	type change struct{ old, st *Agent }
	var changes []change
	cur := r.All()
	next := make(map[string]*Agent, len(records))
	now := r.cfg.Now()
	restamped := false
	for _, a := range records {
		old := cur[a.ID]
		c := change{old: old}
		stamp := filestamp.Of(r.cfg.KeyPath(a.ID)) // before the file is read
		switch {
		case old != nil && !old.key.Same(stamp) && r.sameKey(old):
			// The same key in a file written again (key rotate writes the
			// gateway's new X25519 key into every agent's file): the same
			// agent, as certified, and its entry stays.
			st := *old
			st.key, st.Spec = stamp, a
			if reflect.DeepEqual(old.Spec, a) {
				next[a.ID] = &st
				restamped = true
				continue
			}
			c.st = &st
		case old == nil || !old.key.Same(stamp):
			// New, or removed and added again under a new key.
			if c.st, err = r.load(a, now); err != nil {
				return err
			}
		case reflect.DeepEqual(old.Spec, a):
			next[a.ID] = old
			continue
		default:
			st := *old
			st.Spec = a
			c.st = &st
		}
		next[a.ID] = c.st
		changes = append(changes, c)
	}
	var gone []*Agent
	for id, st := range cur {
		if next[id] == nil {
			gone = append(gone, st)
		}
	}
	if len(changes) == 0 && len(gone) == 0 {
		if restamped {
			r.agents.Store(&next)
		}
		return nil
	}
	sort.Slice(gone, func(i, j int) bool { return gone[i].Spec.ID < gone[j].Spec.ID })

	// Ceilings before the agents, so that no call meets a new agent
	// without its own.
	for _, c := range changes {
		if err := r.cfg.Ceilings.SetAgent(c.st.Spec.ID, c.st.Spec.MaxCls); err != nil {
			r.cfg.Log.Warn("agent ceiling not set", "agent", c.st.Spec.ID, "err", err.Error())
		}
	}
	wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	r.publishMu.Lock()
	r.agents.Store(&next)
	for _, st := range gone {
		r.cfg.Directory.Withdraw(wctx, st.Spec.ID)
	}
	for _, c := range changes {
		if c.old != nil && c.old.Identity != c.st.Identity {
			r.cfg.Directory.Withdraw(wctx, c.old.Spec.ID) // made under the old key
		}
	}
	r.publishMu.Unlock()

	for _, c := range changes {
		a := c.st.Spec
		if c.old == nil {
			if err := r.bridge.AddAgent(a.bridgeSpec()); err != nil {
				r.cfg.Log.Error("agent not started", "agent", a.ID, "err", err.Error())
				continue
			}
			r.cfg.Log.Info("agent added", "agent", a.ID, "supervised", len(a.Exec) > 0, "max_cls", r.cfg.Ceilings.AgentCeiling(a.ID).String())
			continue
		}
		relaunched := false
		if !reflect.DeepEqual(c.old.Spec.bridgeSpec(), a.bridgeSpec()) {
			if relaunched, err = r.bridge.UpdateAgent(a.bridgeSpec()); err != nil {
				r.cfg.Log.Error("agent not updated", "agent", a.ID, "err", err.Error())
				continue
			}
		}
		r.republish(wctx, a.ID)
		r.cfg.Log.Info("agent updated", "agent", a.ID, "relaunched", relaunched, "max_cls", r.cfg.Ceilings.AgentCeiling(a.ID).String())
	}
	for _, st := range gone {
		id := st.Spec.ID
		r.cfg.Ceilings.RemoveAgent(id)
		if err := r.bridge.RemoveAgent(id); err != nil {
			r.cfg.Log.Warn("agent not stopped", "agent", id, "err", err.Error())
		}
		r.cfg.Log.Info("agent removed", "agent", id)
	}
	return nil
}

// republish brings a changed agent's directory entry in step with its new
// configuration, or withdraws it when it has nothing left to offer.
func (r *Roster) republish(ctx context.Context, id string) {
	info, ok := r.bridge.Agent(id)
	st := r.Agent(id)
	if !ok || st == nil {
		return
	}
	if len(st.Spec.Capabilities) == 0 && len(info.Tools) == 0 {
		r.publishMu.Lock()
		if r.Agent(id) == st {
			r.cfg.Directory.Withdraw(ctx, id)
		}
		r.publishMu.Unlock()
		return
	}
	r.Publish(info)
}

// sameKey reports whether the key file of old, which changed on disk,
// still holds old's signing key.
func (r *Roster) sameKey(old *Agent) bool {
	id, err := r.cfg.Identity(old.Spec.ID)
	return err == nil && id.Ref == old.Identity.Ref && id.Signing.Public().Equal(old.Identity.Signing.Public())
}
