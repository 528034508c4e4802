package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"time"
	"unicode/utf8"

	"github.com/moltgate/moltgate/classify"
	"github.com/moltgate/moltgate/gateway/pipeline"
	"github.com/moltgate/moltgate/localbridge"
	"github.com/moltgate/moltgate/wire"
)

// localOp turns a verified request for one of this organisation's agents
// into calls on the local bridge, and its results into replies:
//
//	tool invoke    core.tool.call of <agent>/<tool>; stream chunks come back as
//	               stream messages, the result as respond
//	tool list      respond with the agent's registered tools
//	query          core.tool.call of the agent's query tool
//	task create    an asynchronous call whose deadline becomes timeout_ms;
//	task status    answered from the call's state; task cancel cancels it
//	ping           pong from the agent's heartbeats
func (s *Server) localOp(ctx context.Context, in *pipeline.Inbound, emit func([]byte) error) (ans pipeline.Answer) {
	m := in.M
	st := s.agent(m.To.Agent)
	if st == nil {
		return s.pipe.Refuse(m, in.Sess, wire.Errorf(wire.ErrAgentNotFound, "to.agent", "no agent %s at %s", m.To.Agent, s.cfg.Org))
	}
	defer s.inboundEvent(m, s.now(), &ans)
	ctx, cancel := s.callContext(ctx, m)
	defer cancel()
	if s.calls.enter(m.ID, callEntry{hops: pipeline.Hops(m), org: m.From.Org, cancel: cancel}) {
		defer s.calls.leave(m.ID)
	}
	var (
		data wire.Value
		err  error
		op   = wire.OpRespond
	)
	switch p := m.Payload.(type) {
	case *wire.ToolPayload:
		if p.Action == "list" {
			data, err = s.toolList(m.To.Agent)
			break
		}
		data, err = s.callTool(ctx, in, st, p.Tool, p.Input, emit)
	case *wire.QueryPayload:
		tool := st.spec.QueryTool
		if tool == "" {
			err = wire.Errorf(wire.ErrCapability, "to.agent", "agent %s answers no queries", m.To.Agent)
			break
		}
		input, _ := wire.ValueOf(p)
		data, err = s.callTool(ctx, in, st, tool, input, emit)
	case *wire.TaskPayload:
		return s.taskOp(ctx, in, st, p)
	case *wire.ConsentPayload:
		return s.consentOp(ctx, in, st, p)
	case *wire.PingPayload:
		return s.pong(in, st, p)
	default:
		err = wire.Errorf(wire.ErrInvalidParam, "op", "agents do not take %s messages", m.Op)
	}
	if err != nil {
		return s.callFailed(in, st, err)
	}
	r := m.Reply(op, &wire.RespondPayload{Status: "success", Data: data})
	return s.finish(ctx, in, st, r)
}

// callContext bounds a local call by the request's exp and the gateway's
// request timeout, whichever comes first.
func (s *Server) callContext(ctx context.Context, m *wire.Message) (context.Context, context.CancelFunc) {
	timeout := s.cfg.Listen.RequestTimeout.D()
	if m.Exp != 0 {
		// exp is on the gateway's clock; the context's deadline on the
		// process's, so it is the time left that carries over.
		if left := time.UnixMilli(m.Exp).Sub(s.now()); left < timeout {
			timeout = left
		}
	}
	return context.WithTimeout(ctx, timeout) // ctx's own deadline still holds
}

// callTool runs a tool and streams its chunks back as stream messages.
func (s *Server) callTool(ctx context.Context, in *pipeline.Inbound, st *agentState, tool string, input wire.Value, emit func([]byte) error) (wire.Value, error) {
	m := in.M
	raw := []byte("{}")
	if !input.IsAbsent() {
		if input.Kind() != wire.Object {
			return wire.Value{}, wire.Errorf(wire.ErrInvalidParam, "p.input", "must be an object")
		}
		raw = wire.AppendCanonical(nil, input)
	}
	req := localbridge.CallRequest{
		Agent: st.spec.ID, Tool: tool, Input: raw,
		RequestID: m.ID, CorrelationID: m.ID, IdempotencyKey: m.From.Ref().String() + "/" + m.ID,
		Caller: localbridge.Caller{Type: "agent", ID: m.From.Ref().String()},
		Class:  m.Cls.String(), Context: s.consentContext(m, st.spec.ID),
	}
	var err error
	if req.Context, err = extContext(m, req.Context); err != nil {
		return wire.Value{}, err
	}
	// A call that streams is answered with a stream, in order:
	//
	//	stream {action: start, stream_id: request id, chunk_size}
	//	stream {action: chunk, stream_id, seq, type: channel, data}   one per chunk
	//	stream {action: end, stream_id, seq: last + 1, status}
	//	respond or error                                              the call's answer
	//
	// A call that sends no chunk is answered with its answer alone.
	var (
		onChunk func(localbridge.Chunk) error
		started bool
		lastSeq int64
	)
	// send sends one stream message; the gate decides on it with checked,
	// if given, in place of its data.
	send := func(p *wire.StreamPayload, checked *wire.Value) error {
		var check *wire.Message
		if checked != nil {
			wide := *p
			wide.Data = *checked
			check = m.Reply(wire.OpStream, &wide)
		}
		body, err := s.sealLocalReplyChecked(ctx, in, st, m.Reply(wire.OpStream, p), check)
		if err != nil {
			return err
		}
		return emit(body)
	}
	// Text and partial results go through a textStream, which checks
	// each chunk in the context of the text around it; see there.
	var text *textStream
	if emit != nil {
		text = newTextStream(s.cfg.Limits.ChunkBytes, func(channel, piece, context string) error {
			lastSeq++
			p := &wire.StreamPayload{Action: "chunk", StreamID: m.ID, Seq: lastSeq, Type: channel, Data: wire.StringValue(piece)}
			if context == "" {
				return send(p, nil)
			}
			wide := wire.StringValue(context + piece)
			return send(p, &wide)
		}, func(channel string, v wire.Value, context string) error {
			// A structured chunk cannot be cut; one over the limit
			// fails the call (E_TOO_LARGE) when it is checked.
			lastSeq++
			p := &wire.StreamPayload{Action: "chunk", StreamID: m.ID, Seq: lastSeq, Type: channel, Data: v}
			if context == "" {
				return send(p, nil)
			}
			wide := wire.ArrayValue(v, wire.StringValue(context))
			return send(p, &wide)
		})
	}
	if emit != nil {
		onChunk = func(c localbridge.Chunk) error {
			if !started {
				started = true
				if err := send(&wire.StreamPayload{Action: "start", StreamID: m.ID, ChunkSize: int64(s.cfg.Limits.ChunkBytes)}, nil); err != nil {
					return err
				}
			}
			if len(c.JSON) > 0 {
				v, err := wire.Parse(c.JSON, 0)
				if err != nil {
					return err
				}
				return text.addJSON(c.Channel, v)
			}
			return text.add(c.Channel, c.Text)
		}
	}
	// The call's causation_id is the trace context of its span: the
	// agent's own spans, and the trace id it logs, join the caller's.
	bctx, span, traceparent := s.startBridgeCall(ctx, st.spec.ID, tool)
	req.CausationID = traceparent
	res, err := s.core.Call(bctx, req, onChunk)
	endSpan(span, err)
	if started {
		if ferr := text.close(); ferr != nil && err == nil {
			err = ferr
		}
		status := "success"
		switch {
		case localbridge.IsCanceled(err):
			status = "cancelled"
		case err != nil:
			status = "error"
		}
		// If this cannot go, neither can the answer after it, whose
		// failure is the one reported.
		send(&wire.StreamPayload{Action: "end", StreamID: m.ID, Seq: lastSeq + 1, Status: status}, nil)
	}
	if err != nil {
		return wire.Value{}, err
	}
	out, perr := wire.Parse(res.Output, 0)
	if perr != nil {
		return wire.Value{}, wire.Errorf(wire.ErrTaskFailed, "", "agent returned output that is not JSON")
	}
	return out, nil
}

// sealLocalReply fills in a reply from a local agent, passes it through the
// gate outbound, and seals it.
func (s *Server) sealLocalReply(ctx context.Context, in *pipeline.Inbound, st *agentState, r *wire.Message) ([]byte, error) {
	return s.sealLocalReplyChecked(ctx, in, st, r, nil)
}

// sealLocalReplyChecked is sealLocalReply with the gate deciding on check,
// when given, in r's place: the same message with more in it.
func (s *Server) sealLocalReplyChecked(ctx context.Context, in *pipeline.Inbound, st *agentState, r, check *wire.Message) ([]byte, error) {
	r.V, r.ID, r.TS, r.From = wire.Version, pipeline.NewMessageID(s.rand), s.now().UnixMilli(), st.id.Sender()
	gated := r
	if check != nil {
		check.V, check.ID, check.TS, check.From = r.V, r.ID, r.TS, r.From
		gated = check
	}
	d := s.gate.Check(ctx, gated, classify.Outbound, in.M.From.Org, pipeline.GateSession(in.Sess, true, true))
	if err := s.auditOut(ctx, r, d); err != nil && d.Allow {
		return nil, err
	}
	if !d.Allow {
		s.pipe.LogBlock(r, classify.Outbound, d)
		if d.Reason == classify.ReasonPeerCeiling || d.Reason == classify.ReasonAgentCeiling {
			// The refusal goes to the peer, not to a local operator: the
			// rule, without this gateway's configuration and how to
			// change it.
			return nil, classify.RuleError(d.Reason, r.Cls)
		}
		return nil, d.Err
	}
	if err := s.signReceipt(in, r); err != nil {
		return nil, err
	}
	return s.reply(in, r, st.id.Signing)
}

// finish seals a local agent's final reply, or the refusal if the gate
// stops it.
func (s *Server) finish(ctx context.Context, in *pipeline.Inbound, st *agentState, r *wire.Message) pipeline.Answer {
	body, err := s.sealLocalReply(ctx, in, st, r)
	if err != nil {
		return s.pipe.Refuse(in.M, in.Sess, err)
	}
	return pipeline.Answer{Body: body, Status: http.StatusOK}
}

// callFailed turns a failed local call into its reply: a cancelled call is
// a respond with status error; anything else an error message.
func (s *Server) callFailed(in *pipeline.Inbound, st *agentState, err error) pipeline.Answer {
	var we *wire.Error
	if errors.As(err, &we) {
		return s.pipe.Refuse(in.M, in.Sess, we)
	}
	var le *localbridge.Error
	if errors.As(err, &le) && le.Code == localbridge.CodeUnknownTool {
		return s.pipe.Refuse(in.M, in.Sess, unknownTool(in.M))
	}
	o := localbridge.OutcomeOf(err)
	if o.Status == localbridge.OutcomeCancelled {
		data, _ := wire.ValueOf(map[string]string{"status": "cancelled"})
		r := in.M.Reply(wire.OpRespond, &wire.RespondPayload{Status: "error", Data: data})
		return s.finish(context.Background(), in, st, r)
	}
	// The agent's field is not a path the gateway made: it is masked
	// (agentError) rather than cut.
	return s.pipe.RefuseWith(in.M, in.Sess, s.agentError(o), func(f string) string { return f })
}

// agentError is the protocol error of a failed local call, with its
// message masked. An error goes back as cls pub, outside the gate, and may
// travel in the clear; but a failure's message is the agent's own text,
// which can hold what the gate exists to stop ("no account for
// jane@example.com", a connection string). Personal data and secrets in it
// become "[email]", "[secret]" and so on.
func (s *Server) agentError(o localbridge.Outcome) *wire.Error {
	we := outcomeError(o)
	we.Message = s.scanner.MaskString(we.Message)
	// The field is a path into the caller's input, whose keys are the
	// caller's text: masked the same way.
	we.Field = s.scanner.MaskString(we.Field)
	return we
}

// taskGrantKey is where the consent grant of a task's create is kept.
// Task keys hold a slash; message ids, the grants' other keys, never do.
func taskGrantKey(task string) string { return "task/" + task }

// splitText cuts s into pieces of at most max bytes, between UTF-8
// characters. The empty string is one empty piece.
func splitText(s string, max int) []string {
	if len(s) <= max {
		return []string{s}
	}
	var out []string
	for len(s) > max {
		cut := max
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		if cut == 0 { // not UTF-8 at all: cut where the limit falls
			cut = max
		}
		out = append(out, s[:cut])
		s = s[cut:]
	}
	return append(out, s)
}

// unknownTool is the refusal of a call of a tool the agent has not
// registered. Its field is where m named the tool: the generic outcome
// would say p.input.tool, a field of the input that need not exist. A query
// names no tool; the agent's record does, so that is not the caller's to
// mend.
func unknownTool(m *wire.Message) *wire.Error {
	fix := &wire.Suggestion{Action: wire.ActionRetry, Fix: `name one of the agent's tools; a tool message with action "list" lists them`}
	switch m.Payload.(type) {
	case *wire.ToolPayload:
		return &wire.Error{Code: wire.ErrInvalidParam, Field: "p.tool", Message: "the agent has no tool of that name", Suggestion: fix}
	case *wire.TaskPayload:
		return &wire.Error{Code: wire.ErrInvalidParam, Field: "p.type", Message: "the agent has no tool of that name", Suggestion: fix}
	}
	return &wire.Error{Code: wire.ErrTaskFailed, Message: "the agent's query tool is not available"}
}

// outcomeError makes the protocol error of a local call's outcome.
func outcomeError(o localbridge.Outcome) *wire.Error {
	c := wire.Code(o.Code)
	if !c.Known() {
		c = wire.ErrTaskFailed
	}
	field := ""
	if o.Field != "" {
		field = "p.input." + o.Field
	}
	msg := o.Message
	if msg == "" {
		msg = c.Text()
	}
	return &wire.Error{Code: c, Field: field, Message: msg}
}

// outcomeOf tells the JSON-RPC face how the gateway's errors end a call.
func outcomeOf(err error) localbridge.Outcome {
	var we *wire.Error
	if errors.As(err, &we) {
		o := localbridge.Outcome{Status: localbridge.OutcomeError, Code: string(we.Code), Field: we.Field,
			Recoverable: we.Code.Recoverable(), Message: we.Message}
		if sg := we.Payload().Suggestion; sg != nil {
			o.Suggestion, _ = json.Marshal(sg)
		}
		if we.Code == wire.ErrTimeout {
			o.Status = localbridge.OutcomeTimeout
		}
		return o
	}
	return localbridge.OutcomeOf(err)
}

func (s *Server) toolList(agent string) (wire.Value, error) {
	info, ok := s.core.Agent(agent)
	if !ok {
		return wire.Value{}, wire.Errorf(wire.ErrAgentNotFound, "to.agent", "no agent %s", agent)
	}
	type tool struct {
		Name        string          `json:"name"`
		Description string          `json:"description,omitempty"`
		InputSchema json.RawMessage `json:"input_schema,omitempty"`
		SideEffects bool            `json:"side_effects,omitempty"`
	}
	tools := make([]tool, 0, len(info.Tools))
	for _, t := range info.Tools {
		tools = append(tools, tool{t.Name, t.Description, t.InputSchema, t.SideEffects})
	}
	return wire.ValueOf(map[string]any{"tools": tools})
}

// taskOp handles task create, status and cancel. Tasks are kept under the
// requesting organisation's name, so one organisation can neither see nor
// cancel another's.
func (s *Server) taskOp(ctx context.Context, in *pipeline.Inbound, st *agentState, p *wire.TaskPayload) pipeline.Answer {
	m := in.M
	// Tasks are kept under the requesting organisation and the agent that
	// runs them: no other organisation can see or cancel them, and asking
	// one agent about another's task finds nothing.
	id := m.From.Org + "/" + st.spec.ID + "/" + p.TaskID
	status := func(ts localbridge.TaskStatus) *wire.RespondPayload {
		state := map[string]string{
			localbridge.TaskPending: "pending", localbridge.TaskRunning: "running",
			localbridge.TaskSucceeded: "completed", localbridge.TaskFailed: "failed", localbridge.TaskCanceled: "cancelled",
		}[ts.State]
		out := map[string]any{"task_id": p.TaskID, "status": state}
		if ts.Progress != "" {
			out["progress"] = ts.Progress
		}
		if ts.State == localbridge.TaskSucceeded {
			out["result"] = json.RawMessage(ts.Result.Output)
		}
		if ts.Err != nil {
			o := localbridge.OutcomeOf(ts.Err)
			out["error"] = map[string]any{"code": o.Code, "message": s.scanner.MaskString(o.Message)}
		}
		v, _ := wire.ValueOf(out)
		return &wire.RespondPayload{Status: "success", Data: v}
	}
	switch p.Action {
	case "create":
		tool := p.Type
		if tool == "" {
			tool = st.spec.QueryTool
		}
		if tool == "" {
			return s.pipe.Refuse(m, in.Sess, wire.Errorf(wire.ErrCapability, "p.type", "agent %s answers no queries: name one of its tools in type", m.To.Agent))
		}
		input := wire.ObjectValue()
		if !p.Params.IsAbsent() {
			input = p.Params
		}
		deadline := time.Time{}
		if p.Deadline > 0 {
			// On the process's clock, as contexts are.
			deadline = time.Now().Add(time.UnixMilli(p.Deadline).Sub(s.now()))
		}
		// The task's correlation id, which its agent names in the calls it
		// makes for the task (the loop guard), is one of the gateway's own:
		// task ids are the creator's choice, and another organisation's
		// task of the same id would otherwise share the chain's hops.
		corr := pipeline.NewMessageID(s.rand)
		req := localbridge.CallRequest{Agent: st.spec.ID, Tool: tool, Input: wire.AppendCanonical(nil, input),
			RequestID: m.ID, CorrelationID: corr, IdempotencyKey: id,
			Caller: localbridge.Caller{Type: "agent", ID: m.From.Ref().String()}, Class: m.Cls.String(), Context: s.consentContext(m, st.spec.ID)}
		entered := s.calls.enter(corr, callEntry{hops: pipeline.Hops(m), org: m.From.Org})
		t, err := s.core.Start(req, localbridge.TaskOptions{ID: id, Deadline: deadline})
		switch {
		case !entered:
		case err != nil:
			s.calls.leave(corr)
		default:
			go func() { <-t.Done(); s.calls.leave(corr) }()
		}
		var le *localbridge.Error
		if errors.As(err, &le) && le.Code == localbridge.CodeTaskExists {
			return s.pipe.Refuse(m, in.Sess, wire.Errorf(wire.ErrInvalidParam, "p.task_id", "a task of that id exists: ask its status, or create it under another id"))
		}
		if err != nil {
			return s.callFailed(in, st, err)
		}
		// What the create's consent let its answer carry back, the
		// answers to later status requests may carry back too: they are
		// how the result of the same call returns.
		if g, ok := s.grants.Lookup(m.ID); ok {
			s.grants.Remember(taskGrantKey(id), g)
		}
		return s.finish(ctx, in, st, m.Reply(wire.OpRespond, status(t.Status())))
	case "status", "cancel":
		t, ok := s.core.Task(id)
		if !ok && p.Action == "cancel" && s.calls.cancel(m.From.Org, p.TaskID) {
			// The id of a call in flight from the same organisation: its
			// caller gave up on it, and it stops (core.tool.cancel).
			v, _ := wire.ValueOf(map[string]string{"task_id": p.TaskID, "status": "cancelled"})
			return s.finish(ctx, in, st, m.Reply(wire.OpRespond, &wire.RespondPayload{Status: "success", Data: v}))
		}
		if !ok {
			return s.pipe.Refuse(m, in.Sess, wire.Errorf(wire.ErrInvalidParam, "p.task_id", "no such task"))
		}
		if p.Action == "cancel" {
			t.Cancel()
		}
		if g, ok := s.grants.Lookup(taskGrantKey(id)); ok {
			// Only to the agent that created the task under the consent:
			// the gate checks the reply's recipient against it.
			s.grants.Remember(m.ID, g)
		}
		return s.finish(ctx, in, st, m.Reply(wire.OpRespond, status(t.Status())))
	}
	return s.pipe.Refuse(m, in.Sess, wire.Errorf(wire.ErrInvalidParam, "p.action", "a peer may create, ask about or cancel a task"))
}

// pong answers a ping for a local agent from its heartbeats.
func (s *Server) pong(in *pipeline.Inbound, st *agentState, p *wire.PingPayload) pipeline.Answer {
	r := in.M.Reply(wire.OpPong, s.pongPayload(st.spec.ID, p.Nonce))
	return s.finish(context.Background(), in, st, r)
}

func (s *Server) pongPayload(agent, nonce string) *wire.PongPayload {
	info, ok := s.core.Agent(agent)
	pp := &wire.PongPayload{Nonce: nonce, Status: "offline", CapabilitiesActive: []string{}}
	if !ok {
		return pp
	}
	switch {
	case info.Healthy:
		pp.Status = "alive"
	case info.Connected:
		pp.Status = "unhealthy"
	}
	pp.Load, pp.QueueDepth = info.Load, int64(info.Queued)
	if info.Healthy {
		pp.CapabilitiesActive = info.Capabilities()
	}
	return pp
}
