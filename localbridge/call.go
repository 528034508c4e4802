package localbridge

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"sync"
	"time"

	"github.com/moltgate/moltgate/localbridge/osp"
)

// CallRequest asks a local agent to run one of its tools.
type CallRequest struct {
	Agent          string          // the local agent's id
	Tool           string          // the tool's name, or its full id "<agent>/<name>"
	Input          json.RawMessage // a JSON object; empty means {}
	RequestID      string          // ties the call to a logical request; random when empty
	CorrelationID  string          // ties the call into the audit timeline (a MoltSpeak message or task id)
	CausationID    string          // the immediate cause, if any
	Caller         Caller          // who asks: metadata for the agent, never authority
	IdempotencyKey string          // lets the agent recognise a retry
	Class          string          // MoltSpeak classification of the input; shapes what approvers see
	Context        json.RawMessage // non-secret contextual metadata for the agent (a JSON object)
}

// Caller says who asks for a call.
type Caller struct {
	Type    string // "human", "agent" or "system"
	ID      string // e.g. "alice@acme" for a remote agent
	Display string
}

// Chunk is one piece of a call's streamed output, in the order the agent sent it.
type Chunk struct {
	Seq     int64           // 1, 2, 3, ...
	Channel string          // "stdout", "stderr", "log", "status" or "partial_result"
	Text    string          // for every channel but partial_result
	JSON    json.RawMessage // for partial_result
	Done    bool            // the agent will stream no more for this call
}

// Result is a call that succeeded.
type Result struct {
	CallID     string
	Output     json.RawMessage // the tool's output object; {} when it returned none
	StartedAt  time.Time       // as the agent reported it; zero if it did not
	FinishedAt time.Time
	Metrics    json.RawMessage // safe metrics the agent reported, if any
	Chunks     int             // stream chunks received
}

// Call runs a tool of a local agent and waits for its result. The input is validated against
// the tool's input schema first (tool.invalid_input, with the failing field). A tool that
// needs approval is held until Config.Approver decides. ctx's deadline is sent to the agent as
// timeout_ms; when ctx ends the agent is sent core.tool.cancel and Call returns at once.
//
// onChunk, if not nil, receives the call's stream chunks in order, before Call returns. It
// runs on the caller's goroutine and may block: the agent is slowed down rather than its
// output dropped. An error from onChunk cancels the call and is returned as is.
//
// Failures are *Error values; OutcomeOf maps them to MoltSpeak.
func (c *Core) Call(ctx context.Context, req CallRequest, onChunk func(Chunk) error) (Result, error) {
	p, err := c.prepare(req)
	if err != nil {
		return Result{}, err
	}
	return c.execute(ctx, p, onChunk, nil)
}

// prepared is a call that passed the checks that need no waiting.
type prepared struct {
	req      CallRequest
	name     string
	input    json.RawMessage
	tool     *tool // nil while the agent has not registered its tools yet (see awaitTool)
	approval bool
	entry    *agentEntry
}

func (c *Core) prepare(req CallRequest) (*prepared, error) {
	entry, sess, err := c.liveSession(req.Agent)
	if err != nil {
		return nil, err
	}
	name, _ := cutPrefix(req.Tool, req.Agent+"/")
	sess.mu.Lock()
	t := sess.tools[name]
	sess.mu.Unlock()
	if t == nil && !sess.registering() {
		return nil, coreErr(CodeUnknownTool, "the agent has no tool of that name")
	}
	input := bytes.TrimSpace(req.Input)
	if len(input) == 0 {
		input = []byte("{}")
	}
	if len(input) > c.cfg.MaxFrameBytes-4096 {
		return nil, &Error{Code: osp.CodeInvalidInput, Message: "the input is too large", Where: "core"}
	}
	if input[0] != '{' || !osp.DepthOK(input, osp.MaxDepth-8) {
		return nil, &Error{Code: osp.CodeInvalidInput, Message: "the input must be a JSON object of modest depth", Where: "core"}
	}
	p := &prepared{req: req, name: name, input: input, entry: entry}
	if t != nil {
		if err := p.bind(t); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// bind checks the call's input against t's schema and settles whether the call needs a
// human's approval.
func (p *prepared) bind(t *tool) error {
	if err := validateInput(t.input, p.input); err != nil {
		return err
	}
	p.tool = t
	p.approval = t.info.SideEffects || t.info.RequiresDirective || p.entry.spec.RequireApproval
	return nil
}

// execute waits for the agent's tools, approval and an in-flight slot, then makes the call.
// st, if not nil, is the task the call runs for.
func (c *Core) execute(ctx context.Context, p *prepared, onChunk func(Chunk) error, st *Task) (Result, error) {
	if p.tool == nil {
		_, t, err := c.awaitTool(ctx, p.req.Agent, p.name)
		if err != nil {
			return Result{}, err
		}
		if err := p.bind(t); err != nil {
			return Result{}, err
		}
	}
	if p.approval {
		if err := c.approve(ctx, p); err != nil {
			return Result{}, err
		}
	}
	// The agent may have reconnected while the call waited for approval.
	sess, t, err := c.awaitTool(ctx, p.req.Agent, p.name)
	if err != nil {
		return Result{}, err
	}
	if t != p.tool {
		// The agent reconnected or re-registered while the call waited.
		if err := validateInput(t.input, p.input); err != nil {
			return Result{}, err
		}
	}
	sess.mu.Lock()
	healthy := sess.healthyLocked()
	sess.mu.Unlock()
	if !healthy {
		err := coreErr(CodeAgentUnavailable, "the agent is unhealthy")
		err.Retryable = true
		return Result{}, err
	}
	select {
	case sess.sem <- struct{}{}:
	default:
		if int(sess.queued.Add(1)) > c.cfg.MaxQueued {
			sess.queued.Add(-1)
			return Result{}, overloaded()
		}
		select {
		case sess.sem <- struct{}{}:
			sess.queued.Add(-1)
		case <-ctx.Done():
			sess.queued.Add(-1)
			return Result{}, ctxError(ctx)
		case <-sess.done:
			sess.queued.Add(-1)
			return Result{}, sess.lost()
		}
	}
	if st != nil {
		st.setState(TaskRunning)
	}
	return sess.call(ctx, p, t, onChunk)
}

func overloaded() *Error {
	err := coreErr(CodeOverloaded, "too many calls are waiting for the agent")
	err.Retryable = true
	return err
}

func ctxError(ctx context.Context) *Error {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return &Error{Code: CodeTimeout, Message: "the call's deadline passed", Retryable: true, Where: "core", Err: ctx.Err()}
	}
	return &Error{Code: osp.CodeToolCanceled, Message: "the call was cancelled", Where: "core", Err: ctx.Err()}
}

func disconnected() *Error {
	return &Error{Code: CodeDisconnected, Message: "the agent disconnected before answering", Retryable: true, Where: "core"}
}

// call is one call in flight on a session.
type call struct {
	id        string
	requestID string
	events    chan callEvent
	abandoned chan struct{} // closed when the caller no longer listens
	abandon   sync.Once

	// Guarded by session.mu.
	lastSeq    int64
	streamDone bool
	outBytes   int64
	failed     bool // the Core already failed the call; what the agent still sends is dropped
	released   bool // its in-flight slot was given back
	grace      *time.Timer

	// Touched only by the call's caller while it holds the read role.
	tookOver bool // a delivery that would block took the role over from it
}

type callEvent struct {
	chunk  *Chunk
	result *Result
	err    error
}

// call sends core.tool.call and waits for the outcome. The caller holds an in-flight slot.
//
//	core → agent  core.tool.call  {call_id, tool_id, input, timeout_ms, idempotency_key, caller, context}
//	agent → core  agent.tool.stream {call_id, seq: 1, 2, ..., channel, data, done}   (zero or more)
//	agent → core  agent.tool.result {call_id, status, output | error}                (exactly one)
func (s *session) call(ctx context.Context, p *prepared, t *tool, onChunk func(Chunk) error) (Result, error) {
	req := p.req
	cl := &call{id: s.c.newID(), requestID: req.RequestID, events: make(chan callEvent, 8), abandoned: make(chan struct{})}
	if cl.requestID == "" {
		cl.requestID = s.c.newID()
	}
	h := s.header(osp.TypeToolCall)
	h.RequestID, h.CorrelationID, h.CausationID = cl.requestID, req.CorrelationID, req.CausationID
	payload := osp.ToolCall{CallID: cl.id, ToolID: t.info.ID, Input: p.input, IdempotencyKey: req.IdempotencyKey}
	if req.Caller.ID != "" {
		h.Actor = &osp.Actor{Type: req.Caller.Type, ID: req.Caller.ID, Display: req.Caller.Display}
		payload.Caller = &osp.Caller{Type: req.Caller.Type, ID: req.Caller.ID}
	}
	if ctxv := bytes.TrimSpace(req.Context); len(ctxv) > 0 && ctxv[0] == '{' && json.Valid(ctxv) {
		payload.Context = ctxv
	}
	if dl, ok := ctx.Deadline(); ok {
		ms := time.Until(dl).Milliseconds()
		if ms <= 0 {
			s.mu.Lock()
			s.releaseLocked(cl)
			s.mu.Unlock()
			return Result{}, &Error{Code: CodeTimeout, Message: "the call's deadline passed", Retryable: true, Where: "core", Err: context.DeadlineExceeded}
		}
		payload.TimeoutMS = ms
	}
	s.mu.Lock()
	gone := s.closed()
	if !gone {
		s.calls[cl.id] = cl
	}
	s.mu.Unlock()
	if gone {
		return Result{}, s.lost()
	}
	if err := s.send(&h, payload); err != nil {
		s.mu.Lock()
		delete(s.calls, cl.id)
		s.releaseLocked(cl)
		s.mu.Unlock()
		var tl *osp.FrameTooLargeError
		if errors.As(err, &tl) {
			return Result{}, &Error{Code: osp.CodeInvalidInput, Message: "the input is too large", Where: "core"}
		}
		return Result{}, s.lost()
	}
	return s.wait(ctx, cl, onChunk)
}

func (s *session) wait(ctx context.Context, cl *call, onChunk func(Chunk) error) (Result, error) {
	res := Result{CallID: cl.id}
	handle := func(ev callEvent) (bool, error) {
		switch {
		case ev.chunk != nil:
			res.Chunks++
			if onChunk != nil {
				if err := onChunk(*ev.chunk); err != nil {
					s.abandonCall(cl, "caller_stopped")
					return true, err
				}
			}
			return false, nil
		case ev.err != nil:
			cl.abandon.Do(func() { close(cl.abandoned) })
			return true, ev.err
		default:
			n := res.Chunks
			res = *ev.result
			res.CallID, res.Chunks = cl.id, n
			return true, nil
		}
	}
	stopped := func() (Result, error) {
		reason := "canceled"
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			reason = "deadline"
		}
		s.abandonCall(cl, reason)
		return res, ctxError(ctx)
	}
	// A caller whose onChunk may block never reads for the others; run reads for it.
	lead := s.lead
	if onChunk != nil {
		lead = nil
		s.streamers.Add(1)
		defer s.streamers.Add(-1)
	} else {
		s.waiters.Add(1)
		defer s.waiters.Add(-1)
	}
	for {
		select {
		case ev := <-cl.events:
			if end, err := handle(ev); end {
				return res, err
			}
		case <-lead:
			if end, err := s.readFor(ctx, cl, handle); end {
				return res, err
			}
			if ctx.Err() != nil {
				return stopped()
			}
		case <-ctx.Done():
			return stopped()
		case <-s.done:
			// What arrived before the connection ended still counts.
			for {
				select {
				case ev := <-cl.events:
					if end, err := handle(ev); end {
						return res, err
					}
				default:
					cl.abandon.Do(func() { close(cl.abandoned) })
					return res, s.lost()
				}
			}
		}
	}
}

// readFor reads the agent's frames for every call, as run does, until cl's outcome is in or
// its caller stops waiting. The caller holds the read role: the frame that ends its wait is
// its own read, not a hand-off from another goroutine. It gives the role back, unless a
// delivery that would block took it over. It reports whether handle ended the call.
func (s *session) readFor(ctx context.Context, cl *call, handle func(callEvent) (bool, error)) (bool, error) {
	s.leader, cl.tookOver = cl, false
	if ctx.Done() != nil {
		// A read in progress when ctx ends returns at once; a late interruption of
		// another reader costs it one retry.
		defer context.AfterFunc(ctx, s.interruptRead)()
	}
	for {
		select {
		case ev := <-cl.events:
			if end, err := handle(ev); end {
				s.release()
				return true, err
			}
			continue
		default:
		}
		if ctx.Err() != nil || s.closed() {
			s.release()
			return false, nil
		}
		err := s.readOne()
		if cl.tookOver {
			return false, nil
		}
		if err != nil && err != errInterrupted {
			s.release()
			return false, nil
		}
	}
}
