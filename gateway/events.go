package gateway

import (
	"net/http"
	"net/netip"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/moltgate/moltgate/events"
	"github.com/moltgate/moltgate/gateway/local"
	"github.com/moltgate/moltgate/gateway/pipeline"
	"github.com/moltgate/moltgate/handshake"
	"github.com/moltgate/moltgate/localbridge"
	"github.com/moltgate/moltgate/wire"
)

// agentView is what the event stream last said of an agent, so that it
// reports changes only.
type agentView struct {
	name, status string
	registered   bool // connected with its tools registered
}

// eventHooks turns what the gateway sees into the events of its stream
// (package events).
type eventHooks struct {
	mu     sync.Mutex
	agents map[string]agentView
}

// agentEvent reports an agent's change as agent.registered (connected and
// its tools registered), agent.updated (its display name or status changed
// while registered) or agent.removed (removed from the configuration).
func (s *Server) agentEvent(info localbridge.AgentInfo) {
	h := &s.eventHooks
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.agents == nil {
		h.agents = make(map[string]agentView)
	}
	if info.Status == localbridge.StatusRemoved {
		delete(h.agents, info.ID)
		s.events.Emit(events.AgentRemoved, map[string]string{"id": info.ID, "reason": "removed"})
		return
	}
	name := info.Name
	if name == "" {
		name = info.ID
	}
	prev := h.agents[info.ID]
	now := agentView{name: name, status: info.Status, registered: info.Connected && len(info.Tools) > 0}
	h.agents[info.ID] = now
	switch {
	case now.registered && !prev.registered:
		s.events.Emit(events.AgentRegistered, map[string]any{"id": info.ID, "name": name, "status": info.Status,
			"capabilities": info.Capabilities()})
	case (prev.registered || now.registered) && (prev.name != name || prev.status != info.Status):
		s.events.Emit(events.AgentUpdated, map[string]string{"id": info.ID, "name": name, "status": info.Status})
	}
}

// sessionEvent reports a session with a peer gateway (handshake.Store's
// Observe): opened, renewed or closed.
func (s *Server) sessionEvent(sess *handshake.Session, state string) {
	s.events.Emit(events.SessionUpdate, map[string]string{"session_id": sess.ID(), "peer": sess.Peer().Ref().Org,
		"peer_agent": sess.Peer().Ref().String(), "state": state, "expires_at": sess.Expires().UTC().Format(time.RFC3339)})
}

// approvalEvent reports a call held for a local human, and its end. The
// arguments are not in it: the terminals that decide are shown them.
func (s *Server) approvalEvent(e localbridge.ApprovalEvent) {
	r := e.Request
	if e.Decision == "" {
		s.events.Emit(events.ApprovalRequested, map[string]any{"execution_id": r.ID, "agent": r.Agent, "tool": r.Tool,
			"risk": r.Risk.Level, "caller": r.Caller.ID, "expires_at": r.Expires.UTC().Format(time.RFC3339)})
		return
	}
	s.events.Emit(events.ApprovalResolved, map[string]string{"execution_id": r.ID, "status": e.Decision})
}

// callEvent reports a call that ended, without its content: who called
// whom, which tool, how it ended and how long it took.
func (s *Server) callEvent(id, direction, from, to, tool string, o localbridge.Outcome, start time.Time) {
	p := map[string]any{"id": id, "direction": direction, "from": from, "to": to, "status": o.Status,
		"duration_ms": s.now().Sub(start).Milliseconds()}
	if tool != "" {
		p["tool"] = tool
	}
	if o.Code != "" {
		p["code"] = o.Code
	}
	s.events.Emit(events.CallCompleted, p)
}

// inboundEvent reports the end of a peer's call of a local agent, from the
// answer the pipeline is given.
func (s *Server) inboundEvent(m *wire.Message, start time.Time, ans *pipeline.Answer) {
	tool := ""
	switch p := m.Payload.(type) {
	case *wire.ToolPayload:
		if p.Action == "list" {
			return
		}
		tool = p.Tool
	case *wire.QueryPayload:
	default:
		return // tasks, pings and consents are no calls of their own
	}
	o := localbridge.Outcome{Status: localbridge.OutcomeSuccess}
	if ans.Code != "" {
		o = localbridge.Outcome{Status: localbridge.OutcomeError, Code: string(ans.Code)}
	}
	s.callEvent(m.ID, "inbound", m.From.Ref().String(), m.To.String(), tool, o, start)
}

// queryEvent reports the end of a local caller's query (the JSON-RPC face),
// to a peer's agent or to one of this organisation's.
func (s *Server) queryEvent(req localbridge.QueryRequest, start time.Time, err *error) {
	from := req.From
	if from != "" {
		from += "@" + s.cfg.Org
	}
	to := req.To
	if !strings.Contains(to, "@") {
		to += "@" + s.cfg.Org
	}
	s.callEvent(req.QueryID, "outbound", from, to, req.Tool, local.OutcomeOf(*err), start)
}

// eventsHandler serves the event stream on the HTTP face, as Server-Sent
// Events (GET /events) or over a WebSocket (GET /events/ws), to the
// addresses listen.metrics_from admits, as /metrics is.
func (s *Server) eventsHandler(ws bool) http.Handler {
	allowed := s.cfg.Listen.MetricsNetworks()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ap, err := netip.ParseAddrPort(r.RemoteAddr)
		if err != nil || !slices.ContainsFunc(allowed, func(n netip.Prefix) bool { return n.Contains(ap.Addr().Unmap()) }) {
			s.writeRefusal(w, http.StatusForbidden, wire.Errorf(wire.ErrAuthFailed, "", "events are served only to the addresses in listen.metrics_from"))
			return
		}
		if ws {
			s.events.ServeWebSocket(w, r)
			return
		}
		s.events.ServeSSE(w, r)
	})
}
