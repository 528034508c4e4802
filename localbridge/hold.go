package localbridge

import (
	"context"
	"time"
)

// registering reports whether the session may still register tools it lacks now: it has
// not yet had its first agent.tools.register answered, and Config.RegisterWait has not
// passed since it was admitted.
func (s *session) registering() bool {
	select {
	case <-s.registered:
		return false
	default:
		return time.Now().Before(s.registerBy)
	}
}

// awaitTool returns the agent's live session and its tool called name. An agent that
// restarted or reconnected is known and coming back, and a call may come between its
// connection being admitted and its tools being registered: such a call waits until the
// agent's first registration is answered, rather than being told that no such tool exists.
// The wait also ends when ctx ends, when Config.RegisterWait has passed since the
// connection was admitted (a tool still missing is then core.unknown_tool), or when the
// connection ends (the call then fails as one in flight on it would, unless the agent's
// next connection is live already, which is waited for the same way). A waiting call counts
// among the agent's queued calls, under Config.MaxQueued.
func (c *Core) awaitTool(ctx context.Context, agentID, name string) (*session, *tool, error) {
	for {
		_, sess, err := c.liveSession(agentID)
		if err != nil {
			return nil, nil, err
		}
		sess.mu.Lock()
		t := sess.tools[name]
		sess.mu.Unlock()
		if t != nil {
			return sess, t, nil
		}
		if sess.closed() {
			// Ended and not yet forgotten: as a call in flight on it would.
			return nil, nil, sess.lost()
		}
		if !sess.registering() {
			return nil, nil, coreErr(CodeUnknownTool, "the agent has no tool of that name")
		}
		if err := sess.awaitRegistration(ctx, c.cfg.MaxQueued); err != nil {
			return nil, nil, err
		}
	}
}

// awaitRegistration waits until the session's first registration is answered, the session
// ends or its time to register passes. It fails when ctx ends first, or when maxQueued calls
// wait for the agent already.
func (s *session) awaitRegistration(ctx context.Context, maxQueued int) error {
	if int(s.queued.Add(1)) > maxQueued {
		s.queued.Add(-1)
		return overloaded()
	}
	defer s.queued.Add(-1)
	timer := time.NewTimer(time.Until(s.registerBy))
	defer timer.Stop()
	select {
	case <-s.registered:
	case <-s.done:
	case <-timer.C:
	case <-ctx.Done():
		return ctxError(ctx)
	}
	return nil
}
