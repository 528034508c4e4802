// Package echo is a small agent for tests, demonstrations and benchmarks. Its tools echo and
// stream their input, sleep until cancelled, fail on request and count (a tool with side
// effects, so calls to it wait for approval).
package echo

import (
	"context"
	"strings"
	"sync/atomic"
	"time"

	"github.com/moltgate/moltgate/localbridge/agent"
)

// New returns the echo agent. Its id comes from the environment unless set.
func New() *agent.Agent {
	a := &agent.Agent{Version: "1.0.0"}
	for _, t := range Tools() {
		a.Add(t)
	}
	return a
}

// Tools returns the echo agent's tools: echo, sleep, fail and count.
func Tools() []agent.Tool {
	var counter atomic.Int64
	return []agent.Tool{
		{
			Name:        "echo",
			Description: "Returns its text; streams it repeat times first, and reports the call's metadata when asked.",
			InputSchema: `{"type":"object","properties":{
				"text":{"type":"string","maxLength":1048576},
				"repeat":{"type":"integer","minimum":0,"maximum":100000},
				"upper":{"type":"boolean"},
				"meta":{"type":"boolean"}},
				"required":["text"],"additionalProperties":false}`,
			Handler: func(ctx context.Context, c *agent.Call) (any, error) {
				var in struct {
					Text   string `json:"text"`
					Repeat int    `json:"repeat"`
					Upper  bool   `json:"upper"`
					Meta   bool   `json:"meta"`
				}
				if err := c.Bind(&in); err != nil {
					return nil, err
				}
				if in.Upper {
					in.Text = strings.ToUpper(in.Text)
				}
				for range in.Repeat {
					if err := c.Stream(in.Text); err != nil {
						return nil, err
					}
				}
				out := map[string]any{"text": in.Text}
				if in.Meta {
					out["request_id"] = c.RequestID
					out["correlation_id"] = c.CorrelationID
					out["causation_id"] = c.CausationID
					out["idempotency_key"] = c.IdempotencyKey
					out["caller"] = c.Caller
					out["has_deadline"] = !c.Deadline.IsZero()
					if len(c.Context) > 0 {
						out["context"] = c.Context
					}
				}
				return out, nil
			},
		},
		{
			Name:        "sleep",
			Description: "Waits ms milliseconds, or until cancelled.",
			InputSchema: `{"type":"object","properties":{"ms":{"type":"integer","minimum":0,"maximum":3600000}},"required":["ms"]}`,
			Handler: func(ctx context.Context, c *agent.Call) (any, error) {
				var in struct {
					MS int `json:"ms"`
				}
				if err := c.Bind(&in); err != nil {
					return nil, err
				}
				if err := c.Status("sleeping"); err != nil {
					return nil, err
				}
				t := time.NewTimer(time.Duration(in.MS) * time.Millisecond)
				defer t.Stop()
				select {
				case <-t.C:
					return map[string]int{"slept_ms": in.MS}, nil
				case <-ctx.Done():
					return nil, ctx.Err()
				}
			},
		},
		{
			Name:        "fail",
			Description: "Fails with the given code and message.",
			InputSchema: `{"type":"object","properties":{"code":{"type":"string","pattern":"^[a-z][a-z0-9_.]{0,63}$"},"message":{"type":"string","maxLength":200},"retryable":{"type":"boolean"}},"required":["code"]}`,
			Handler: func(ctx context.Context, c *agent.Call) (any, error) {
				var in struct {
					Code      string `json:"code"`
					Message   string `json:"message"`
					Retryable bool   `json:"retryable"`
				}
				if err := c.Bind(&in); err != nil {
					return nil, err
				}
				return nil, &agent.Error{Code: in.Code, Message: in.Message, Retryable: in.Retryable}
			},
		},
		{
			Name:        "count",
			Description: "Adds to a counter kept by the agent and returns it.",
			InputSchema: `{"type":"object","properties":{"by":{"type":"integer","minimum":1,"maximum":1000}}}`,
			SideEffects: true,
			Handler: func(ctx context.Context, c *agent.Call) (any, error) {
				var in struct {
					By int64 `json:"by"`
				}
				if err := c.Bind(&in); err != nil {
					return nil, err
				}
				return map[string]int64{"count": counter.Add(max(in.By, 1))}, nil
			},
		},
	}
}
