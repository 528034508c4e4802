package gateway

import (
	"context"
	"sync"

	"github.com/moltgate/moltgate/gateway/pipeline"
	"github.com/moltgate/moltgate/wire"
)

// The loop guard. A call a local agent sends to a peer carries, in
// ext["moltgate.route"].hops, how many gateway-to-gateway crossings the
// chain of calls it belongs to has made, itself included; absent means
// one. A call a local agent makes while it handles one from a peer belongs
// to that one's chain when it names the call's correlation id (agent.query
// correlation_id), and goes out with one hop more; a chain of more than
// limits.max_hops is refused before it leaves, and on arrival. A message id
// seen twice from a sender is dropped by the replay window.

// callTable holds the calls local agents are handling for peers, by the
// correlation id the agent was given: the hops of the message that made
// each (for the loop guard), the organisation that asked, and how to
// cancel it (for a peer's cancel). An entry lives as long as its call: the
// calls an agent makes for it are made while it runs.
type callTable struct {
	mu sync.Mutex
	m  map[string]callEntry
}

type callEntry struct {
	hops   int64
	org    string             // the organisation that asked
	cancel context.CancelFunc // nil when it is not cancelled this way (a task)
}

// enter records a call, and reports whether it did: another call may hold
// the id (a retried task id), and keeps it. What enter recorded, leave
// removes.
func (t *callTable) enter(correlation string, e callEntry) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.m == nil {
		t.m = make(map[string]callEntry)
	}
	if _, taken := t.m[correlation]; taken {
		return false
	}
	t.m[correlation] = e
	return true
}

func (t *callTable) leave(correlation string) {
	t.mu.Lock()
	delete(t.m, correlation)
	t.mu.Unlock()
}

// hops returns the hops of the call of that correlation id.
func (t *callTable) hops(correlation string) (int64, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	e, ok := t.m[correlation]
	return e.hops, ok
}

// cancel cancels the call of that id if org asked for it, and reports
// whether there was one to cancel.
func (t *callTable) cancel(org, id string) bool {
	t.mu.Lock()
	e, ok := t.m[id]
	t.mu.Unlock()
	if !ok || e.org != org || e.cancel == nil {
		return false
	}
	e.cancel()
	return true
}

// nextHops is the hops a call going out for correlation makes: one more
// than the inbound call it is part of, or one.
func (s *Server) nextHops(correlation string) (int64, error) {
	hops := int64(1)
	if correlation != "" {
		if h, ok := s.calls.hops(correlation); ok {
			hops = h + 1
		}
	}
	if hops > int64(s.cfg.Limits.MaxHops) {
		return 0, wire.Errorf(wire.ErrInvalidParam, "correlation_id",
			"the chain of calls this one belongs to would cross %d gateways; limits.max_hops allows %d", hops, s.cfg.Limits.MaxHops)
	}
	return hops, nil
}

// withHops sets the route extension of ext, which a first hop goes
// without.
func withHops(ext wire.Value, hops int64) wire.Value {
	if hops <= 1 {
		return ext
	}
	if ext.IsAbsent() {
		ext = wire.ObjectValue()
	}
	return ext.With(pipeline.ExtRoute, wire.ObjectValue(wire.Member{Key: "hops", Value: wire.IntValue(hops)}))
}
