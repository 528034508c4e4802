package roster

import (
	"context"
	"sync"
	"time"

	"github.com/moltgate/moltgate/localbridge"
)

// away tracks the agents the gateway does not launch while they are
// disconnected. Such an agent comes and goes as its container or pod does:
// offline in the directory as soon as its connection ends (or its
// heartbeats stop), it is withdrawn from the directory after
// WithdrawAfter, and published again when it connects.
type away struct {
	mu        sync.Mutex
	timers    map[string]*time.Timer
	withdrawn map[string]bool
}

// Changed is told by the local bridge when an agent connects, disconnects
// or changes its tools or health.
func (r *Roster) Changed(info localbridge.AgentInfo) {
	r.cfg.Log.Info("agent changed", "agent", info.ID, "connected", info.Connected, "healthy", info.Healthy, "tools", len(info.Tools))
	r.cfg.Reported(info)
	if r.noteAway(info) {
		return
	}
	r.Publish(info)
}

// Publish keeps a local agent's directory entry in step with what the
// local bridge reports of it in info.
//
// A removed agent's entry is withdrawn by Reload, which holds publishMu
// while it does, so a report that comes late finds no agent and writes
// nothing.
func (r *Roster) Publish(info localbridge.AgentInfo) {
	if info.Status == localbridge.StatusRemoved {
		return
	}
	r.publishMu.Lock()
	defer r.publishMu.Unlock()
	st := r.Agent(info.ID)
	if st == nil {
		return
	}
	// Not a context of the gateway's: the local bridge reports agents
	// while the gateway opens, before it has one.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	r.cfg.Directory.Publish(ctx, st, info)
}

// noteAway takes a report of the local bridge about agent info. It reports
// whether the agent's entry is withdrawn, so that the report publishes
// nothing.
func (r *Roster) noteAway(info localbridge.AgentInfo) (withdrawn bool) {
	a := &r.away
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.timers == nil {
		a.timers, a.withdrawn = make(map[string]*time.Timer), make(map[string]bool)
	}
	st := r.Agent(info.ID)
	if info.Connected || info.Status == localbridge.StatusRemoved || st == nil || len(st.Spec.Exec) > 0 {
		if t := a.timers[info.ID]; t != nil {
			t.Stop()
			delete(a.timers, info.ID)
		}
		delete(a.withdrawn, info.ID)
		return false
	}
	if a.withdrawn[info.ID] {
		return true
	}
	if a.timers[info.ID] == nil {
		id := info.ID
		a.timers[id] = time.AfterFunc(r.cfg.WithdrawAfter, func() { r.withdrawAway(id) })
	}
	return false
}

// withdrawAway withdraws agent id's entry if it is still disconnected.
func (r *Roster) withdrawAway(id string) {
	r.publishMu.Lock()
	defer r.publishMu.Unlock()
	a := &r.away
	a.mu.Lock()
	if a.timers[id] == nil {
		a.mu.Unlock() // it came back, or was removed, in the meantime
		return
	}
	delete(a.timers, id)
	info, ok := r.bridge.Agent(id)
	if !ok || info.Connected || r.cfg.Closing() {
		a.mu.Unlock()
		return
	}
	a.withdrawn[id] = true
	a.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	r.cfg.Directory.Withdraw(ctx, id)
	r.cfg.Withdrawn(id)
	r.cfg.Log.Info("agent withdrawn from the directory", "agent", id, "away", r.cfg.WithdrawAfter.String())
}
