package gateway

import (
	"context"
	"sync"
	"time"

	"github.com/moltgate/moltgate/localbridge"
)

// awayAgents tracks the agents the gateway does not launch while they are
// disconnected. Such an agent comes and goes as its container or pod does:
// offline in the directory as soon as its connection ends (or its
// heartbeats stop), it is withdrawn from the directory after
// local.withdraw_after, and published again when it connects.
type awayAgents struct {
	mu        sync.Mutex
	timers    map[string]*time.Timer
	withdrawn map[string]bool
}

// noteAway takes a report of the local bridge about agent info. It reports
// whether the agent's entry is withdrawn, so that the report publishes
// nothing.
func (s *Server) noteAway(info localbridge.AgentInfo) (withdrawn bool) {
	a := &s.away
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.timers == nil {
		a.timers, a.withdrawn = make(map[string]*time.Timer), make(map[string]bool)
	}
	st := s.agent(info.ID)
	if info.Connected || info.Status == localbridge.StatusRemoved || st == nil || len(st.spec.Exec) > 0 {
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
		a.timers[id] = time.AfterFunc(s.cfg.Local.WithdrawAfter.D(), func() { s.withdrawAway(id) })
	}
	return false
}

// withdrawAway withdraws agent id's entry if it is still disconnected.
func (s *Server) withdrawAway(id string) {
	s.publishMu.Lock()
	defer s.publishMu.Unlock()
	a := &s.away
	a.mu.Lock()
	if a.timers[id] == nil {
		a.mu.Unlock() // it came back, or was removed, in the meantime
		return
	}
	delete(a.timers, id)
	info, ok := s.core.Agent(id)
	if !ok || info.Connected || s.closing.Load() {
		a.mu.Unlock()
		return
	}
	a.withdrawn[id] = true
	a.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	s.registry.Withdraw(ctx, id)
	s.feed.Withdrawn(id)
	s.log.Info("agent withdrawn from the directory", "agent", id, "away", s.cfg.Local.WithdrawAfter.D().String())
}
