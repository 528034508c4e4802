package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	jsonv2 "github.com/go-json-experiment/json"

	"github.com/moltgate/moltgate/localbridge/osp"
)

// Caller says who asked for a call, as the gateway reports it. It is information, never
// authority.
type Caller struct {
	Type string // "human", "agent" or "system"
	ID   string
}

// Call is one call of a tool.
type Call struct {
	ID             string
	Tool           string          // the tool's name
	Input          json.RawMessage // a JSON object the gateway has validated against the input schema
	RequestID      string
	CorrelationID  string
	IdempotencyKey string
	Caller         Caller
	Deadline       time.Time       // zero when the gateway set no timeout
	Context        json.RawMessage // non-secret metadata from the gateway, if any

	// CausationID is the call's immediate cause. moltgate sets it to
	// the W3C traceparent of the span of the call (tracing.Carrier), so
	// that an agent's own spans and logs join the caller's trace.
	CausationID string

	s        *session
	cancel   context.CancelFunc
	canceled atomic.Bool
	smu      sync.Mutex
	seq      int64
	ended    bool
}

// Bind decodes the input into v, as encoding/json would, matching member names to fields
// without regard to case. A failure is an *Error with CodeInvalidInput, fit to be returned
// from the Handler as it is.
func (c *Call) Bind(v any) error {
	if err := jsonv2.Unmarshal(c.Input, v, jsonv2.MatchCaseInsensitiveNames(true)); err != nil {
		return Errorf(CodeInvalidInput, "the input does not fit the tool's parameters")
	}
	return nil
}

// Stream sends text on the stdout channel.
func (c *Call) Stream(text string) error { return c.Send(osp.ChannelStdout, text) }

// Status sends a progress note on the status channel.
func (c *Call) Status(text string) error { return c.Send(osp.ChannelStatus, text) }

// Log sends text on the log channel.
func (c *Call) Log(text string) error { return c.Send(osp.ChannelLog, text) }

// Send sends text on a channel: "stdout", "stderr", "log" or "status". It blocks until the
// chunk is written, so a slow reader slows the tool down.
func (c *Call) Send(channel, text string) error {
	return c.chunk(channel, osp.StreamData{Text: text})
}

// Partial sends a partial result, which must marshal to a JSON object.
func (c *Call) Partial(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("partial result: %w", err)
	}
	if len(b) == 0 || b[0] != '{' {
		return errors.New("partial result: not a JSON object")
	}
	return c.chunk(osp.ChannelPartialResult, osp.StreamData{JSON: b})
}

// chunk sends one agent.tool.stream message. Seq numbers are assigned under the lock that
// also orders the writes, so they reach the gateway in increasing order.
func (c *Call) chunk(channel string, d osp.StreamData) error {
	if c.canceled.Load() {
		return context.Canceled
	}
	c.smu.Lock()
	defer c.smu.Unlock()
	if c.ended {
		return errors.New("agent: the call has ended")
	}
	c.seq++
	h := c.header(osp.TypeToolStream)
	return c.s.send(&h, osp.ToolStream{CallID: c.ID, Seq: c.seq, Channel: channel, Data: d})
}

func (c *Call) header(typ string) osp.Header {
	h := c.s.header(typ)
	h.RequestID, h.CorrelationID, h.CausationID = c.RequestID, c.CorrelationID, c.CausationID
	return h
}

// invoke runs the handler, turning a panic into a failure.
func (c *Call) invoke(ctx context.Context, h Handler) (out any, err error) {
	defer func() {
		if r := recover(); r != nil {
			c.s.log.Error("tool panicked", "tool", c.Tool, "panic", fmt.Sprint(r), "stack", string(debug.Stack()))
			out, err = nil, &Error{Code: osp.CodeToolInternal, Message: "the tool failed unexpectedly"}
		}
	}()
	return h(ctx, c)
}

// finish sends the call's one agent.tool.result.
func (c *Call) finish(started time.Time, out any, err error, ctx context.Context) {
	c.smu.Lock()
	defer c.smu.Unlock()
	if c.ended {
		return
	}
	c.ended = true
	r := osp.ToolResult{CallID: c.ID, StartedAt: osp.Timestamp(started), FinishedAt: osp.Timestamp(time.Now())}
	switch {
	case err == nil:
		b, merr := marshalOutput(out)
		if merr != nil {
			r.Status, r.Error = osp.StatusFailed, &osp.Error{Code: osp.CodeOutputMalformed, Message: "the tool's output cannot be encoded"}
		} else if c.s.maxFrame > 0 && len(b) > c.s.maxFrame-4096 {
			r.Status, r.Error = osp.StatusFailed, &osp.Error{Code: osp.CodeOutputTooLarge, Message: "the tool's output exceeds the frame limit"}
		} else {
			r.Status, r.Output = osp.StatusSucceeded, b
		}
	case c.canceled.Load() || (errors.Is(err, context.Canceled) && ctx.Err() != nil):
		r.Status, r.Error = osp.StatusCanceled, &osp.Error{Code: osp.CodeToolCanceled, Message: "the call was cancelled"}
	case errors.Is(err, context.DeadlineExceeded) || errors.Is(ctx.Err(), context.DeadlineExceeded):
		r.Status, r.Error = osp.StatusFailed, &osp.Error{Code: osp.CodeToolTimeout, Message: "the call's timeout passed"}
	default:
		r.Status = osp.StatusFailed
		var e *Error
		if errors.As(err, &e) {
			r.Error = &osp.Error{Code: e.Code, Message: e.Message, Retryable: e.Retryable}
		} else {
			msg := err.Error()
			if len(msg) > 1024 {
				msg = msg[:1024]
			}
			r.Error = &osp.Error{Code: osp.CodeToolFailed, Message: msg}
		}
	}
	h := c.header(osp.TypeToolResult)
	c.s.send(&h, r)
}

func marshalOutput(v any) (json.RawMessage, error) {
	if v == nil {
		return json.RawMessage("{}"), nil
	}
	if raw, ok := v.(json.RawMessage); ok && json.Valid(raw) && len(raw) > 0 && raw[0] == '{' {
		return raw, nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	if len(b) > 0 && b[0] == '{' {
		return b, nil
	}
	return json.Marshal(map[string]json.RawMessage{"result": b})
}
