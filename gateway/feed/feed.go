// Package feed turns what the gateway sees into the events of its stream
// (package events): local agents registered, changed and removed, sessions
// with peers, calls held for a person's approval, and calls that ended.
// The rooms are given the Feed's methods as hooks; the HTTP face serves
// the stream through Handler.
package feed

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

// Config is what a Feed needs.
type Config struct {
	// Stream is where the events go. Required.
	Stream *events.Stream
	// Org is this gateway's organisation, which local callers and agents
	// are named in. Required.
	Org string
	// Now is the clock. Default time.Now.
	Now func() time.Time
}

// Feed is the gateway's hooks into its event stream.
type Feed struct {
	cfg    Config
	mu     sync.Mutex
	agents map[string]agentView
}

// agentView is what the event stream last said of an agent, so that it
// reports changes only.
type agentView struct {
	name, status string
	registered   bool // connected with its tools registered
}

// New makes the feed of cfg.Stream.
func New(cfg Config) *Feed {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return &Feed{cfg: cfg, agents: make(map[string]agentView)}
}

// Agent reports an agent's change as agent.registered (connected and its
// tools registered), agent.updated (its display name or status changed
// while registered) or agent.removed (removed from the configuration).
func (f *Feed) Agent(info localbridge.AgentInfo) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if info.Status == localbridge.StatusRemoved {
		delete(f.agents, info.ID)
		f.cfg.Stream.Emit(events.AgentRemoved, map[string]string{"id": info.ID, "reason": "removed"})
		return
	}
	name := info.Name
	if name == "" {
		name = info.ID
	}
	prev := f.agents[info.ID]
	now := agentView{name: name, status: info.Status, registered: info.Connected && len(info.Tools) > 0}
	f.agents[info.ID] = now
	switch {
	case now.registered && !prev.registered:
		f.cfg.Stream.Emit(events.AgentRegistered, map[string]any{"id": info.ID, "name": name, "status": info.Status,
			"capabilities": info.Capabilities()})
	case (prev.registered || now.registered) && (prev.name != name || prev.status != info.Status):
		f.cfg.Stream.Emit(events.AgentUpdated, map[string]string{"id": info.ID, "name": name, "status": info.Status})
	}
}

// Withdrawn reports an agent away for too long, whose entry left the
// directory, as agent.removed.
func (f *Feed) Withdrawn(id string) {
	f.cfg.Stream.Emit(events.AgentRemoved, map[string]string{"id": id, "reason": "withdrawn"})
}

// Session reports a session with a peer gateway (handshake.Store's
// Observe): opened, renewed or closed.
func (f *Feed) Session(sess *handshake.Session, state string) {
	f.cfg.Stream.Emit(events.SessionUpdate, map[string]string{"session_id": sess.ID(), "peer": sess.Peer().Ref().Org,
		"peer_agent": sess.Peer().Ref().String(), "state": state, "expires_at": sess.Expires().UTC().Format(time.RFC3339)})
}

// Approval reports a call held for a local human, and its end. The
// arguments are not in it: the terminals that decide are shown them.
func (f *Feed) Approval(e localbridge.ApprovalEvent) {
	r := e.Request
	if e.Decision == "" {
		f.cfg.Stream.Emit(events.ApprovalRequested, map[string]any{"execution_id": r.ID, "agent": r.Agent, "tool": r.Tool,
			"risk": r.Risk.Level, "caller": r.Caller.ID, "expires_at": r.Expires.UTC().Format(time.RFC3339)})
		return
	}
	f.cfg.Stream.Emit(events.ApprovalResolved, map[string]string{"execution_id": r.ID, "status": e.Decision})
}

// call reports a call that ended, without its content: who called whom,
// which tool, how it ended and how long it took. The stream keeps the
// payload as it is while nobody watches, so the strings that may be cut
// from a message's memory (its id, the tool) are copied: the event must
// not keep the message alive.
func (f *Feed) call(id, direction, from, to, tool string, o localbridge.Outcome, start time.Time) {
	f.cfg.Stream.Emit(events.CallCompleted, &callCompleted{ID: strings.Clone(id), Direction: direction, From: from, To: to,
		Tool: strings.Clone(tool), Status: o.Status, Code: o.Code, DurationMS: f.cfg.Now().Sub(start).Milliseconds()})
}

// callCompleted is a call.completed event's payload. Its members are in
// the order of their names, as a map of them was encoded before.
type callCompleted struct {
	Code       string `json:"code,omitempty"`
	Direction  string `json:"direction"`
	DurationMS int64  `json:"duration_ms"`
	From       string `json:"from"`
	ID         string `json:"id"`
	Status     string `json:"status"`
	To         string `json:"to"`
	Tool       string `json:"tool,omitempty"`
}

// Inbound reports the end of a peer's call of a local agent, from the
// answer the pipeline is given.
func (f *Feed) Inbound(m *wire.Message, start time.Time, ans *pipeline.Answer) {
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
	f.call(m.ID, "inbound", m.From.Ref().String(), m.To.String(), tool, o, start)
}

// Query reports the end of a local caller's query (the JSON-RPC face), to
// a peer's agent or to one of this organisation's.
func (f *Feed) Query(req localbridge.QueryRequest, start time.Time, err *error) {
	from := req.From
	if from != "" {
		from += "@" + f.cfg.Org
	}
	to := req.To
	if !strings.Contains(to, "@") {
		to += "@" + f.cfg.Org
	}
	f.call(req.QueryID, "outbound", from, to, req.Tool, local.OutcomeOf(*err), start)
}

// Handler serves the event stream as Server-Sent Events, or over a
// WebSocket if ws is set, to the addresses in allowed; others are answered
// by refuse with 403 and E_AUTH_FAILED.
func (f *Feed) Handler(ws bool, allowed []netip.Prefix, refuse func(w http.ResponseWriter, status int, err *wire.Error)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ap, err := netip.ParseAddrPort(r.RemoteAddr)
		if err != nil || !slices.ContainsFunc(allowed, func(n netip.Prefix) bool { return n.Contains(ap.Addr().Unmap()) }) {
			refuse(w, http.StatusForbidden, wire.Errorf(wire.ErrAuthFailed, "", "events are served only to the addresses in listen.metrics_from"))
			return
		}
		if ws {
			f.cfg.Stream.ServeWebSocket(w, r)
			return
		}
		f.cfg.Stream.ServeSSE(w, r)
	})
}
