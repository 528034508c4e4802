package local

import (
	"context"
	"maps"
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

// Calls holds the calls local agents are handling for peers, by the
// correlation id the agent was given: the hops of the message that made
// each (for the loop guard), the organisation that asked, and how to
// cancel it (for a peer's cancel). An entry lives as long as its call: the
// calls an agent makes for it are made while it runs.
type Calls struct {
	mu sync.Mutex
	m  map[string]Call
}

// Call is one call a local agent is handling for a peer.
type Call struct {
	Hops   int64
	Org    string             // the organisation that asked
	Cancel context.CancelFunc // nil when it is not cancelled this way (a task)
}

// Enter records a call, and reports whether it did: another call may hold
// the id (a retried task id), and keeps it. What Enter recorded, Leave
// removes.
func (t *Calls) Enter(correlation string, e Call) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.m == nil {
		t.m = make(map[string]Call)
	}
	if _, taken := t.m[correlation]; taken {
		return false
	}
	t.m[correlation] = e
	return true
}

// Leave removes the call of that correlation id.
func (t *Calls) Leave(correlation string) {
	t.mu.Lock()
	delete(t.m, correlation)
	t.mu.Unlock()
}

// Hops returns the hops of the call of that correlation id.
func (t *Calls) Hops(correlation string) (int64, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	e, ok := t.m[correlation]
	return e.Hops, ok
}

// Cancel cancels the call of that id if org asked for it, and reports
// whether there was one to cancel.
func (t *Calls) Cancel(org, id string) bool {
	t.mu.Lock()
	e, ok := t.m[id]
	t.mu.Unlock()
	if !ok || e.Org != org || e.Cancel == nil {
		return false
	}
	e.Cancel()
	return true
}

// Held returns the calls held now, by correlation id.
func (t *Calls) Held() map[string]Call {
	t.mu.Lock()
	defer t.mu.Unlock()
	return maps.Clone(t.m)
}

// NextHops is the hops a call going out for correlation makes: one more
// than the inbound call it is part of, or one.
func (s *Room) NextHops(correlation string) (int64, error) {
	hops := int64(1)
	if correlation != "" {
		if h, ok := s.calls.Hops(correlation); ok {
			hops = h + 1
		}
	}
	if hops > int64(s.cfg.MaxHops) {
		return 0, wire.Errorf(wire.ErrInvalidParam, "correlation_id",
			"the chain of calls this one belongs to would cross %d gateways; limits.max_hops allows %d", hops, s.cfg.MaxHops)
	}
	return hops, nil
}

// WithHops sets the route extension of ext, which a first hop goes
// without.
func WithHops(ext wire.Value, hops int64) wire.Value {
	if hops <= 1 {
		return ext
	}
	if ext.IsAbsent() {
		ext = wire.ObjectValue()
	}
	return ext.With(pipeline.ExtRoute, wire.ObjectValue(wire.Member{Key: "hops", Value: wire.IntValue(hops)}))
}
