package localbridge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"sync"
	"time"
)

// AgentSpec configures one local agent.
type AgentSpec struct {
	// ID is the agent's id: its OpenSentience agent id and its MoltSpeak agent name
	// ([A-Za-z0-9_-]{1,128}). Its tools are named "<ID>/<tool>".
	ID string

	// Command is the program and its arguments. The Core launches it, keeps it running and
	// hands it its socket and token in the environment. Nothing secret belongs here: command
	// lines are visible to every user of the machine. Empty: the agent is started elsewhere
	// and admitted with a token from ProvisionToken.
	Command []string

	// Dir is the agent's working directory. Default: the gateway's.
	Dir string

	// RequireApproval holds every call to this agent's tools until a human approves it.
	RequireApproval bool

	// QueryTool names the tool that MoltSpeak queries to this agent are sent to. Default:
	// none, and the agent takes tool invocations only.
	QueryTool string
}

// agentEntry is one configured agent. An entry is never changed but for its session: a new
// configuration (UpdateAgent) is a new entry, which takes over the session and supervisor when
// only policy changed, and starts afresh, one generation on, when the launch changed.
type agentEntry struct {
	spec AgentSpec
	gen  uint64      // launch generation: sessions of an older one are not attached
	sess *session    // the live session, if any
	sup  *supervisor // nil when started elsewhere
	// removed ends when the agent is removed; a new configuration of the
	// same agent keeps it. Calls held for approval end with it.
	removed     context.Context
	markRemoved context.CancelFunc
}

// AddAgent configures an agent. One with a Command is launched when Serve runs (at once if it
// already does) and restarted whenever it exits.
func (c *Core) AddAgent(spec AgentSpec) error {
	if !agentIDPattern.MatchString(spec.ID) {
		return fmt.Errorf("add agent: id %q is not of the form [A-Za-z0-9_-]{1,128}", spec.ID)
	}
	spec.Command = slices.Clone(spec.Command)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return ErrServerClosed
	}
	if _, ok := c.agents[spec.ID]; ok {
		return fmt.Errorf("add agent %s: already configured", spec.ID)
	}
	e := &agentEntry{spec: spec}
	e.removed, e.markRemoved = context.WithCancel(context.Background())
	c.agents[spec.ID] = e
	if c.started {
		c.startSupervisorLocked(e)
	}
	c.notify.changed(spec.ID)
	return nil
}

// RemoveAgent stops and forgets an agent: it gets no more calls (they fail with
// core.unknown_agent), its unused tokens are revoked, its session is told goodbye (calls in
// flight fail with core.agent_disconnected), and its process is given StopGrace to exit, then
// sent SIGTERM, then SIGKILL after StopGrace more. RemoveAgent returns when the process is
// gone.
func (c *Core) RemoveAgent(id string) error {
	c.mu.Lock()
	e, ok := c.agents[id]
	var sess *session
	if ok {
		delete(c.agents, id)
		delete(c.names, id)
		sess = e.sess
	}
	c.mu.Unlock()
	if !ok {
		return fmt.Errorf("remove agent %s: not configured", id)
	}
	e.markRemoved()
	c.retire(id, sess, e.sup, "removed")
	if e.sup != nil {
		e.sup.stop()
	}
	c.notify.changed(id)
	return nil
}

// UpdateAgent applies a new configuration to an agent already configured, while it runs.
// When only RequireApproval or QueryTool changed, the session and process stay and calls
// that start from now on follow the new configuration. When Command or Dir changed, the agent
// is relaunched: its session is told goodbye (calls in flight fail with
// core.agent_disconnected), its process is stopped as by RemoveAgent, and the new command is
// launched with a fresh token once the old process is gone; meanwhile calls fail with
// core.agent_unavailable. UpdateAgent does not wait for the old process to exit, and reports
// whether it relaunched the agent.
func (c *Core) UpdateAgent(spec AgentSpec) (relaunched bool, err error) {
	if !agentIDPattern.MatchString(spec.ID) {
		return false, fmt.Errorf("update agent: id %q is not of the form [A-Za-z0-9_-]{1,128}", spec.ID)
	}
	spec.Command = slices.Clone(spec.Command)
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return false, ErrServerClosed
	}
	old, ok := c.agents[spec.ID]
	if !ok {
		c.mu.Unlock()
		return false, fmt.Errorf("update agent %s: not configured", spec.ID)
	}
	e := &agentEntry{spec: spec, gen: old.gen, removed: old.removed, markRemoved: old.markRemoved}
	if slices.Equal(old.spec.Command, spec.Command) && old.spec.Dir == spec.Dir {
		e.sess, e.sup = old.sess, old.sup
		c.agents[spec.ID] = e
		c.mu.Unlock()
		c.notify.changed(spec.ID)
		return false, nil
	}
	e.gen = old.gen + 1
	c.agents[spec.ID] = e
	sess, sup := old.sess, old.sup
	c.mu.Unlock()

	c.retire(spec.ID, sess, sup, "reconfigured")
	var gone <-chan struct{}
	if sup != nil {
		gone = sup.done
	}
	c.mu.Lock()
	if c.started && !c.closed && c.agents[spec.ID] == e {
		c.startSupervisorAfterLocked(e, gone)
	}
	c.mu.Unlock()
	c.notify.changed(spec.ID)
	return true, nil
}

// retire ends what an agent's old configuration started: the supervisor is told to stop
// first, so that it launches nothing more, then the unused tokens are revoked and the session
// is told goodbye, which the process has StopGrace to act on.
func (c *Core) retire(id string, sess *session, sup *supervisor, reason string) {
	if sup != nil {
		sup.halt()
	}
	c.tokens.revokeAgent(id)
	if sess != nil {
		sess.goodbye(reason)
	}
}

// ProvisionToken issues a token for a configured agent that is started elsewhere. The token
// admits one connection, and only until ttl has passed (TokenTTL when ttl <= 0). Hand it to
// the agent out of band, as OPENSENTIENCE_TOKEN; never log it or put it on a command line.
func (c *Core) ProvisionToken(agentID string, ttl time.Duration) (Token, error) {
	c.mu.Lock()
	_, ok := c.agents[agentID]
	closed := c.closed
	c.mu.Unlock()
	switch {
	case closed:
		return Token{}, ErrServerClosed
	case !ok:
		return Token{}, fmt.Errorf("provision token: agent %s is not configured", agentID)
	}
	if ttl <= 0 {
		ttl = c.cfg.TokenTTL
	}
	t, err := c.tokens.issue(c.cfg.Rand, c.cfg.Now(), grant{agentID: agentID, expires: c.cfg.Now().Add(ttl)})
	if err != nil {
		return Token{}, err
	}
	c.audit(AuditEvent{Event: AuditTokenProvisioned, Agent: agentID, PeerUID: -1, PeerPID: -1})
	return t, nil
}

// The outcomes of attach.
const (
	attached     = iota
	attachClosed // the Core is closing, or the agent's entry went
	attachStale  // a session admitted after s is live already
)

// errReplaced ends the handshake of a session that a later one replaced before it was
// attached.
var errReplaced = errors.New("localbridge: a later connection of the agent replaced this one")

// attach makes s the live session of its agent, replacing an older one. Sessions are
// ordered by admission, not by attachment: a connection whose welcome went out before
// another's may reach this point after it (its goroutine was slower), and must not replace
// the agent's newer connection, say the one it made after this one dropped.
func (c *Core) attach(e *agentEntry, s *session) int {
	c.mu.Lock()
	// The entry may have been replaced since the handshake looked it up: by a new policy, whose
	// entry takes the session; or by a new launch, whose entry takes sessions of its own only.
	cur := c.agents[e.spec.ID]
	if c.closed || cur == nil || cur.gen != e.gen {
		c.mu.Unlock()
		return attachClosed
	}
	old := cur.sess
	if old != nil && old.seq > s.seq {
		c.mu.Unlock()
		return attachStale
	}
	cur.sess = s
	c.mu.Unlock()
	if s.launch != nil {
		s.launch.connected.Store(true)
	}
	if old != nil {
		old.goodbye("replaced")
	}
	c.notify.changed(e.spec.ID)
	return attached
}

// detach forgets s if it is still its agent's live session, in the entry it attached to or
// the one that replaced it.
func (c *Core) detach(s *session) {
	c.mu.Lock()
	if s.entry.sess == s {
		s.entry.sess = nil
	}
	if cur := c.agents[s.agentID]; cur != nil && cur.sess == s {
		cur.sess = nil
	}
	c.mu.Unlock()
	c.notify.changed(s.agentID)
}

// liveSession returns the agent's configuration and session.
func (c *Core) liveSession(agentID string) (*agentEntry, *session, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return nil, nil, coreErr(CodeShuttingDown, "the gateway is shutting down")
	}
	e, ok := c.agents[agentID]
	if !ok {
		return nil, nil, coreErr(CodeUnknownAgent, "no local agent has that id")
	}
	if e.sess == nil {
		err := coreErr(CodeAgentUnavailable, "the agent is not connected")
		err.Retryable = true
		return e, nil, err
	}
	return e, e.sess, nil
}

// Agent statuses in AgentInfo.
const (
	StatusOK        = "ok"
	StatusDegraded  = "degraded"
	StatusUnhealthy = "unhealthy"
	StatusOffline   = "offline"
	StatusRemoved   = "removed" // only in OnAgentChange, after RemoveAgent
)

// AgentInfo is what the Core knows of one agent: the directory publishes its tools as
// capabilities, and ping/pong answers from its health.
type AgentInfo struct {
	ID              string
	Supervised      bool // launched and kept running by this Core
	PID             int  // the supervised process, while it runs
	Restarts        int  // times the supervised process was started again
	RequireApproval bool
	QueryTool       string

	// Name is the display name the agent gave itself with agent.update; "" until it does.
	Name string

	Connected     bool
	Healthy       bool   // connected, heartbeating and not reporting itself unhealthy: calls are routed
	Status        string // StatusOK, StatusDegraded, StatusUnhealthy or StatusOffline
	SessionID     string
	Version       string // agent_version from agent.hello
	ConnectedAt   time.Time
	LastHeartbeat time.Time
	Uptime        time.Duration   // as the agent reported it
	Details       json.RawMessage // the agent's last heartbeat details (secret-free by protocol)

	InFlight    int     // calls sent and not yet answered
	Queued      int     // calls waiting for an in-flight slot
	MaxInFlight int     // the per-agent limit
	Load        float64 // InFlight / MaxInFlight

	Tools []ToolInfo // sorted by name
}

// Capabilities returns the names of the agent's registered tools, sorted: what the directory
// lists as the agent's capabilities and what pong reports as capabilities_active.
func (a AgentInfo) Capabilities() []string {
	out := make([]string, len(a.Tools))
	for i, t := range a.Tools {
		out[i] = t.Name
	}
	return out
}

// ToolInfo describes a registered tool.
type ToolInfo struct {
	ID                string // "<agent>/<name>"
	Name              string
	Description       string
	InputSchema       json.RawMessage
	OutputSchema      json.RawMessage
	Capabilities      []string // what the tool supports, e.g. "streaming", "cancellation"
	SideEffects       bool
	RequiresDirective bool
	Tags              []string
}

// Agents returns every configured agent, sorted by id.
func (c *Core) Agents() []AgentInfo {
	c.mu.Lock()
	entries := make([]*agentEntry, 0, len(c.agents))
	for _, e := range c.agents {
		entries = append(entries, e)
	}
	c.mu.Unlock()
	out := make([]AgentInfo, 0, len(entries))
	for _, e := range entries {
		out = append(out, c.info(e))
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// Agent returns one agent.
func (c *Core) Agent(id string) (AgentInfo, bool) {
	c.mu.Lock()
	e, ok := c.agents[id]
	c.mu.Unlock()
	if !ok {
		return AgentInfo{}, false
	}
	return c.info(e), true
}

func (c *Core) info(e *agentEntry) AgentInfo {
	c.mu.Lock()
	s, sup := e.sess, e.sup
	c.mu.Unlock()
	a := AgentInfo{
		ID:              e.spec.ID,
		RequireApproval: e.spec.RequireApproval,
		QueryTool:       e.spec.QueryTool,
		Status:          StatusOffline,
		MaxInFlight:     c.cfg.MaxInFlight,
		Name:            c.displayName(e.spec.ID),
	}
	if sup != nil {
		a.Supervised = true
		a.PID, a.Restarts = sup.state()
	}
	if s != nil {
		s.fill(&a)
	}
	return a
}

// notifier calls Config.OnAgentChange from one goroutine, coalescing bursts.
type notifier struct {
	c       *Core
	mu      sync.Mutex
	pending []string
	queued  map[string]bool
	running bool
	stopped bool
}

func newNotifier(c *Core) *notifier { return &notifier{c: c, queued: make(map[string]bool)} }

func (n *notifier) changed(id string) {
	if n.c.cfg.OnAgentChange == nil {
		return
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.stopped || n.queued[id] {
		return
	}
	n.queued[id] = true
	n.pending = append(n.pending, id)
	if !n.running {
		n.running = true
		go n.run()
	}
}

func (n *notifier) run() {
	for {
		n.mu.Lock()
		if len(n.pending) == 0 || n.stopped {
			n.running = false
			n.mu.Unlock()
			return
		}
		id := n.pending[0]
		n.pending = n.pending[1:]
		delete(n.queued, id)
		n.mu.Unlock()
		info, ok := n.c.Agent(id)
		if !ok {
			info = AgentInfo{ID: id, Status: StatusRemoved}
		}
		n.c.cfg.OnAgentChange(info)
	}
}

func (n *notifier) stop() {
	n.mu.Lock()
	n.stopped = true
	n.mu.Unlock()
}

var errNoSocket = errors.New("the agent socket is not being served")
