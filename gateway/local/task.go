package local

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/moltgate/moltgate/gateway/pipeline"
	"github.com/moltgate/moltgate/localbridge"
	"github.com/moltgate/moltgate/wire"
)

// taskGrantKey is where the consent grant of a task's create is kept.
// Task keys hold a slash; message ids, the grants' other keys, never do.
func taskGrantKey(task string) string { return "task/" + task }

// taskOp handles task create, status and cancel. Tasks are kept under the
// requesting organisation's name, so one organisation can neither see nor
// cancel another's.
func (s *Room) taskOp(ctx context.Context, in *pipeline.Inbound, st Agent, p *wire.TaskPayload) pipeline.Answer {
	m := in.M
	// Tasks are kept under the requesting organisation and the agent that
	// runs them: no other organisation can see or cancel them, and asking
	// one agent about another's task finds nothing.
	id := m.From.Org + "/" + st.ID + "/" + p.TaskID
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
			tool = st.QueryTool
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
		req := localbridge.CallRequest{Agent: st.ID, Tool: tool, Input: wire.AppendCanonical(nil, input),
			RequestID: m.ID, CorrelationID: corr, IdempotencyKey: id,
			Caller: localbridge.Caller{Type: "agent", ID: m.From.Ref().String()}, Class: m.Cls.String(), Context: s.callContextOf(m, st.ID)}
		// The caller's context reaches a task's call as it does a tool
		// call's or a query's.
		if s.cfg.ExtContext != nil {
			var err error
			if req.Context, err = s.cfg.ExtContext(m, req.Context); err != nil {
				return s.pipe.Refuse(m, in.Sess, err)
			}
		}
		entered := s.calls.Enter(corr, Call{Hops: pipeline.Hops(m), Org: m.From.Org})
		t, err := s.core.Start(req, localbridge.TaskOptions{ID: id, Deadline: deadline})
		switch {
		case !entered:
		case err != nil:
			s.calls.Leave(corr)
		default:
			go func() { <-t.Done(); s.calls.Leave(corr) }()
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
		if !ok && p.Action == "cancel" && s.calls.Cancel(m.From.Org, p.TaskID) {
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
