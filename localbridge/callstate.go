package localbridge

import (
	"bytes"
	"time"

	"github.com/moltgate/moltgate/localbridge/osp"
)

// abandonCall stops listening to a call and asks the agent to cancel it. The call keeps its
// in-flight slot until the agent's result arrives or CancelGrace passes.
func (s *session) abandonCall(cl *call, reason string) {
	cl.abandon.Do(func() { close(cl.abandoned) })
	s.mu.Lock()
	if s.calls[cl.id] != cl || cl.grace != nil {
		s.mu.Unlock()
		return
	}
	cl.grace = time.AfterFunc(s.c.cfg.CancelGrace, func() { s.expire(cl) })
	s.mu.Unlock()
	h := s.header(osp.TypeToolCancel)
	h.RequestID = cl.requestID
	s.send(&h, osp.ToolCancel{CallID: cl.id, Reason: reason, DeadlineMS: s.c.cfg.CancelGrace.Milliseconds()})
}

// expire gives up on a cancelled call the agent never finished.
func (s *session) expire(cl *call) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.calls[cl.id] != cl {
		return
	}
	delete(s.calls, cl.id)
	s.rememberLocked(cl.id, recentExpired)
	s.releaseLocked(cl)
}

func (s *session) releaseLocked(cl *call) {
	if !cl.released {
		cl.released = true
		<-s.sem
	}
}

func (s *session) rememberLocked(id string, state uint8) {
	if old := s.recentRing[s.recentNext]; old != "" {
		delete(s.recent, old)
	}
	s.recentRing[s.recentNext] = id
	s.recentNext = (s.recentNext + 1) % len(s.recentRing)
	s.recent[id] = state
}

// deliver hands an event to the call's caller. When the caller is slow, the reader waits:
// the agent's further output queues in the socket, which slows the agent down.
func (s *session) deliver(cl *call, ev callEvent) {
	select {
	case cl.events <- ev:
		return
	case <-cl.abandoned:
		return
	default:
	}
	if l := s.leader; l != nil {
		// The reader is a caller, who must not wait on another: a goroutine of its own takes
		// the role over, waits to deliver, and gives the role back.
		s.leader, l.tookOver = nil, true
		go func() {
			s.deliverWait(cl, ev)
			s.release()
		}()
		return
	}
	s.deliverWait(cl, ev)
}

func (s *session) deliverWait(cl *call, ev callEvent) {
	s.mu.Lock()
	s.blocked = true
	s.mu.Unlock()
	select {
	case cl.events <- ev:
	case <-cl.abandoned:
	case <-s.done:
	}
	s.mu.Lock()
	s.blocked = false
	s.unblockedAt = time.Now()
	s.mu.Unlock()
}

// failCall fails a call on the Core's initiative: the caller gets err and the agent a cancel.
func (s *session) failCall(cl *call, err *Error) {
	s.mu.Lock()
	if cl.failed {
		s.mu.Unlock()
		return
	}
	cl.failed = true
	s.mu.Unlock()
	s.deliver(cl, callEvent{err: err})
	s.abandonCall(cl, "core_error")
}

// lookupCall finds the live call a stream chunk or result names. When there is none it
// rejects the message, except for a call the Core gave up on, whose late messages are dropped.
func (s *session) lookupCallLocked(id string, what string) (*call, *osp.Error, bool) {
	if cl := s.calls[id]; cl != nil {
		return cl, nil, false
	}
	switch s.recent[id] {
	case recentExpired:
		return nil, nil, true
	case recentDone:
		if what == "result" {
			return nil, osp.Errorf(osp.CodeDuplicateResult, "a second result for one call"), false
		}
		return nil, osp.Errorf(osp.CodeUnexpectedMessage, "a stream chunk after the call's result"), false
	}
	return nil, osp.Errorf(osp.CodeUnknownCall, "no call of that id is in flight"), false
}

func (s *session) stream(env *osp.Envelope) {
	var p osp.ToolStream
	if err := env.DecodePayload(&p); err != nil {
		s.reject(env.ID, err.(*osp.Error))
		return
	}
	switch p.Channel {
	case osp.ChannelStdout, osp.ChannelStderr, osp.ChannelLog, osp.ChannelStatus:
		if len(p.Data.JSON) > 0 {
			p.Data.JSON = nil
		}
	case osp.ChannelPartialResult:
		if j := bytes.TrimSpace(p.Data.JSON); len(j) == 0 || j[0] != '{' {
			s.reject(env.ID, osp.Errorf(osp.CodeInvalidMessage, "a partial_result chunk carries a JSON object in data.json"))
			return
		}
	default:
		s.reject(env.ID, osp.Errorf(osp.CodeInvalidMessage, "unknown stream channel"))
		return
	}
	if s.closed() {
		return // the session is ending: its calls have failed already
	}
	s.mu.Lock()
	cl, rej, drop := s.lookupCallLocked(p.CallID, "stream")
	if cl == nil {
		s.mu.Unlock()
		if !drop {
			s.reject(env.ID, rej)
		}
		return
	}
	if cl.failed {
		s.mu.Unlock()
		return
	}
	var bad *osp.Error
	switch {
	case cl.streamDone:
		bad = osp.Errorf(osp.CodeInvalidSeq, "a stream chunk after done")
	case cl.lastSeq == 0 && p.Seq != 1:
		bad = osp.Errorf(osp.CodeInvalidSeq, "a call's stream starts at seq 1")
	case p.Seq <= cl.lastSeq:
		bad = osp.Errorf(osp.CodeInvalidSeq, "seq must increase")
	}
	var tooMuch bool
	if bad == nil {
		cl.lastSeq, cl.streamDone = p.Seq, p.Done
		cl.outBytes += int64(len(p.Data.Text) + len(p.Data.JSON))
		tooMuch = cl.outBytes > s.c.cfg.MaxOutputBytes
	}
	s.mu.Unlock()
	switch {
	case bad != nil:
		s.reject(env.ID, bad)
		s.failCall(cl, &Error{Code: bad.Code, Message: "the agent broke the protocol: " + bad.Message, Where: "agent"})
	case tooMuch:
		s.failCall(cl, &Error{Code: osp.CodeOutputTooLarge, Message: "the tool's output exceeds the limit", Where: "core"})
	default:
		s.deliver(cl, callEvent{chunk: &Chunk{Seq: p.Seq, Channel: p.Channel, Text: p.Data.Text, JSON: p.Data.JSON, Done: p.Done}})
	}
}

func (s *session) result(env *osp.Envelope) {
	p, err := osp.PayloadOf[osp.ToolResult](env)
	if err != nil {
		s.reject(env.ID, err.(*osp.Error))
		return
	}
	if s.closed() {
		return
	}
	s.mu.Lock()
	cl, rej, drop := s.lookupCallLocked(p.CallID, "result")
	if cl == nil {
		s.mu.Unlock()
		if !drop {
			s.reject(env.ID, rej)
		}
		return
	}
	delete(s.calls, cl.id)
	s.rememberLocked(cl.id, recentDone)
	s.releaseLocked(cl)
	if cl.grace != nil {
		cl.grace.Stop()
	}
	failed := cl.failed
	outBytes := cl.outBytes + int64(len(p.Output))
	s.mu.Unlock()
	if failed {
		return
	}
	errObj := p.Error
	if errObj == nil {
		errObj = env.Error
	}
	var ev callEvent
	switch p.Status {
	case osp.StatusSucceeded:
		out := bytes.TrimSpace(p.Output)
		switch {
		case outBytes > s.c.cfg.MaxOutputBytes:
			ev.err = &Error{Code: osp.CodeOutputTooLarge, Message: "the tool's output exceeds the limit", Where: "core"}
		case len(out) == 0 || bytes.Equal(out, []byte("null")):
			out = []byte("{}")
			fallthrough
		case out[0] == '{':
			r := &Result{Output: out, StartedAt: parseTime(p.StartedAt), FinishedAt: parseTime(p.FinishedAt)}
			if m := bytes.TrimSpace(p.Metrics); len(m) > 0 && len(m) <= maxDetailsBytes && m[0] == '{' {
				r.Metrics = m
			}
			ev.result = r
		default:
			ev.err = &Error{Code: osp.CodeOutputMalformed, Message: "the tool's output is not a JSON object", Where: "agent"}
		}
	case osp.StatusFailed:
		ev.err = agentErr(errObj, osp.CodeToolFailed)
	case osp.StatusCanceled:
		e := agentErr(errObj, osp.CodeToolCanceled)
		e.Code = osp.CodeToolCanceled
		ev.err = e
	default:
		s.reject(env.ID, osp.Errorf(osp.CodeInvalidMessage, "result status must be succeeded, failed or canceled"))
		ev.err = &Error{Code: osp.CodeInvalidMessage, Message: "the agent sent a result of unknown status", Where: "agent"}
	}
	s.deliver(cl, ev)
}

func parseTime(s string) time.Time {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}
	}
	return t
}
