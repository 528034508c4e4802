package localbridge

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"sort"
	"sync"
	"time"
)

// Approver decides whether a held call may run. Approve blocks until there is a decision or
// ctx ends, and reports whether the call is approved. An error, ctx's included, is a refusal.
type Approver interface {
	Approve(ctx context.Context, req ApprovalRequest) (bool, error)
}

// ApprovalRequest describes a held call to whoever decides it.
type ApprovalRequest struct {
	ID            string // the execution id decisions refer to
	Agent         string
	Tool          string // the tool's name
	Description   string
	Arguments     json.RawMessage // the input, masked for its class (Config.MaskArguments)
	Class         string
	Risk          Risk
	Caller        Caller
	CorrelationID string
	RequestedAt   time.Time
	Expires       time.Time // no decision by then is a refusal
}

// Risk levels.
const (
	RiskLow      = "low"
	RiskMedium   = "medium"
	RiskHigh     = "high"
	RiskCritical = "critical"
)

// Risk is the Core's assessment of a held call.
type Risk struct {
	Level      string
	Reasons    []string
	Reversible bool
}

// assessRisk rates a call: medium when only the agent's configuration asks for approval, high
// for a tool with side effects or one that must be directive-backed, one level more for
// personal data and critical for secrets.
func assessRisk(t ToolInfo, agentAsks bool, class string) Risk {
	levels := []string{RiskLow, RiskMedium, RiskHigh, RiskCritical}
	level := 0
	r := Risk{Reversible: !t.SideEffects}
	if agentAsks {
		level = 1
		r.Reasons = append(r.Reasons, "the agent's configuration asks for approval of every call")
	}
	if t.SideEffects {
		level = 2
		r.Reasons = append(r.Reasons, "the tool can cause side effects")
	}
	if t.RequiresDirective {
		level = 2
		r.Reasons = append(r.Reasons, "the tool must be directive-backed")
	}
	switch class {
	case "pii":
		level = min(level+1, 3)
		r.Reasons = append(r.Reasons, "the input carries personal data")
	case "sec", "secret":
		level = 3
		r.Reasons = append(r.Reasons, "the input carries secrets")
	}
	r.Level = levels[level]
	return r
}

// approve holds a call until the Approver decides.
func (c *Core) approve(ctx context.Context, p *prepared) error {
	refuse := func(msg string) error {
		c.audit(AuditEvent{Event: AuditApprovalRefused, Agent: p.req.Agent, Tool: p.name, PeerUID: -1, PeerPID: -1, Reason: msg})
		return &Error{Code: CodeApprovalDenied, Message: msg, Where: "core"}
	}
	if c.cfg.Approver == nil {
		return refuse("the call needs approval and no approver is configured")
	}
	now := c.cfg.Now()
	actx, cancel := context.WithTimeout(ctx, c.cfg.ApprovalTimeout)
	defer cancel()
	// Removing the agent ends the wait: nobody is left to run the call.
	defer context.AfterFunc(p.entry.removed, cancel)()
	wait := c.cfg.ApprovalTimeout
	if dl, ok := ctx.Deadline(); ok {
		wait = min(wait, time.Until(dl))
	}
	expires := now.Add(wait)
	req := ApprovalRequest{
		ID:            c.newID(),
		Agent:         p.req.Agent,
		Tool:          p.name,
		Description:   p.tool.info.Description,
		Arguments:     c.cfg.MaskArguments(p.req.Class, p.input),
		Class:         p.req.Class,
		Risk:          assessRisk(p.tool.info, p.entry.spec.RequireApproval, p.req.Class),
		Caller:        p.req.Caller,
		CorrelationID: p.req.CorrelationID,
		RequestedAt:   now,
		Expires:       expires,
	}
	ok, err := c.cfg.Approver.Approve(actx, req)
	switch {
	case ctx.Err() != nil:
		return ctxError(ctx)
	case p.entry.removed.Err() != nil:
		c.audit(AuditEvent{Event: AuditApprovalRefused, Agent: p.req.Agent, Tool: p.name, PeerUID: -1, PeerPID: -1, Reason: "agent removed"})
		return &Error{Code: CodeUnknownAgent, Message: "agent " + p.req.Agent + " was removed while the call waited for approval", Where: "core"}
	case errors.Is(err, context.DeadlineExceeded):
		return refuse("no approval came in time")
	case err != nil || !ok:
		return refuse("the call was not approved")
	}
	c.audit(AuditEvent{Event: AuditApprovalGranted, Agent: p.req.Agent, Tool: p.name, PeerUID: -1, PeerPID: -1})
	return nil
}

// MaskArguments is the default Config.MaskArguments. Public, internal and confidential
// arguments are shown as they are to the local human who approves; for personal data every
// string and number is replaced by "[masked]", and for secrets and unknown classes every value
// by "[redacted]". Object keys and the shape of the arguments stay visible.
func MaskArguments(class string, args json.RawMessage) json.RawMessage {
	var repl string
	switch class {
	case "", "pub", "public", "int", "internal", "conf", "confidential":
		return args
	case "pii":
		repl = "[masked]"
	default:
		repl = "[redacted]"
	}
	d := json.NewDecoder(bytes.NewReader(args))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return json.RawMessage(`"[redacted]"`)
	}
	var mask func(any) any
	mask = func(v any) any {
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				x[k] = mask(e)
			}
			return x
		case []any:
			for i, e := range x {
				x[i] = mask(e)
			}
			return x
		case bool, nil:
			if repl == "[masked]" {
				return x
			}
		}
		return repl
	}
	b, err := json.Marshal(mask(v))
	if err != nil {
		return json.RawMessage(`"[redacted]"`)
	}
	return b
}

// ErrNoSuchApproval is returned by Decide for an id that is not pending.
var ErrNoSuchApproval = errors.New("no pending approval of that id")

// Approval decisions, as ApprovalEvent reports them.
const (
	DecisionApproved = "approved"
	DecisionDenied   = "denied"
	DecisionExpired  = "expired"
)

// ApprovalEvent tells subscribers that a call is waiting, or that a wait ended.
type ApprovalEvent struct {
	Request  ApprovalRequest
	Decision string // "" for a new request; DecisionApproved, DecisionDenied or DecisionExpired once resolved
}

// Approvals holds the calls waiting for a local human. It is an Approver: the JSON-RPC face
// shows its requests to the connected terminals (tool.request_approval) and relays their
// answers (tool.approve). The zero value is ready to use.
type Approvals struct {
	mu      sync.Mutex
	pending map[string]*pendingApproval
	subs    map[int]func(ApprovalEvent)
	nextSub int
}

type pendingApproval struct {
	req      ApprovalRequest
	decision chan bool // buffered: Decide never blocks
}

// Approve publishes req and waits for Decide or for ctx to end.
func (a *Approvals) Approve(ctx context.Context, req ApprovalRequest) (bool, error) {
	p := &pendingApproval{req: req, decision: make(chan bool, 1)}
	a.mu.Lock()
	if a.pending == nil {
		a.pending = make(map[string]*pendingApproval)
	}
	a.pending[req.ID] = p
	a.mu.Unlock()
	a.publish(ApprovalEvent{Request: req})
	select {
	case ok := <-p.decision:
		d := DecisionDenied
		if ok {
			d = DecisionApproved
		}
		a.publish(ApprovalEvent{Request: req, Decision: d})
		return ok, nil
	case <-ctx.Done():
		a.mu.Lock()
		delete(a.pending, req.ID)
		a.mu.Unlock()
		select {
		case ok := <-p.decision: // decided just as the wait ended
			if ok {
				a.publish(ApprovalEvent{Request: req, Decision: DecisionApproved})
				return true, nil
			}
		default:
		}
		a.publish(ApprovalEvent{Request: req, Decision: DecisionExpired})
		return false, ctx.Err()
	}
}

// Decide answers a pending request.
func (a *Approvals) Decide(id string, approved bool) error {
	a.mu.Lock()
	p, ok := a.pending[id]
	if ok {
		delete(a.pending, id)
	}
	a.mu.Unlock()
	if !ok {
		return ErrNoSuchApproval
	}
	p.decision <- approved
	return nil
}

// Pending returns the waiting requests, oldest first.
func (a *Approvals) Pending() []ApprovalRequest {
	a.mu.Lock()
	out := make([]ApprovalRequest, 0, len(a.pending))
	for _, p := range a.pending {
		out = append(out, p.req)
	}
	a.mu.Unlock()
	sort.Slice(out, func(i, j int) bool {
		if !out[i].RequestedAt.Equal(out[j].RequestedAt) {
			return out[i].RequestedAt.Before(out[j].RequestedAt)
		}
		return out[i].ID < out[j].ID
	})
	return out
}

// Subscribe calls fn for every new request and every resolution, until the returned function
// is called. fn must not block.
func (a *Approvals) Subscribe(fn func(ApprovalEvent)) (unsubscribe func()) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.subs == nil {
		a.subs = make(map[int]func(ApprovalEvent))
	}
	id := a.nextSub
	a.nextSub++
	a.subs[id] = fn
	return func() {
		a.mu.Lock()
		delete(a.subs, id)
		a.mu.Unlock()
	}
}

func (a *Approvals) publish(e ApprovalEvent) {
	a.mu.Lock()
	fns := make([]func(ApprovalEvent), 0, len(a.subs))
	for _, fn := range a.subs {
		fns = append(fns, fn)
	}
	a.mu.Unlock()
	for _, fn := range fns {
		fn(e)
	}
}
