// Package demoagent holds the local agents of `moltgate demo`: globex's
// concierge, whose tools acme's agents call across the organisations'
// boundary, and acme's assistant. They are ordinary agents of the SDK
// (localbridge/agent): the gateway launches them and they reach it through
// the OpenSentience socket named in their environment.
package demoagent

import (
	"context"
	"fmt"
	"hash/fnv"
	"strings"
	"time"

	"github.com/moltgate/moltgate/localbridge/agent"
)

// Names of the demo's agents.
const (
	ConciergeID = "concierge"
	AssistantID = "assistant"
)

// New returns the agent called name: ConciergeID or AssistantID.
func New(name string) (*agent.Agent, error) {
	var tools []agent.Tool
	switch name {
	case ConciergeID:
		tools = ConciergeTools(40 * time.Millisecond)
	case AssistantID:
		tools = AssistantTools()
	default:
		return nil, fmt.Errorf("no demo agent %q", name)
	}
	a := &agent.Agent{Version: "1.0.0"} // its id comes from the environment the gateway gives it
	for _, t := range tools {
		a.Add(t)
	}
	return a, nil
}

// ConciergeTools are globex's concierge's tools: forecast streams one line
// per day, pause apart, so that the stream is seen arriving; invite and note
// accept what they are given and report what they did, without repeating
// it.
func ConciergeTools(pause time.Duration) []agent.Tool {
	return []agent.Tool{
		{
			Name:        "forecast",
			Description: "The weather for a city over the next days, streamed a day at a time.",
			InputSchema: `{"type":"object","properties":{
				"city":{"type":"string","minLength":1,"maxLength":64},
				"days":{"type":"integer","minimum":1,"maximum":7}},
				"required":["city"],"additionalProperties":false}`,
			Handler: func(ctx context.Context, c *agent.Call) (any, error) {
				var in struct {
					City string `json:"city"`
					Days int    `json:"days"`
				}
				if err := c.Bind(&in); err != nil {
					return nil, err
				}
				days := Forecast(in.City, max(in.Days, 1))
				for i, d := range days {
					if i > 0 && pause > 0 {
						t := time.NewTimer(pause)
						select {
						case <-t.C:
						case <-ctx.Done():
							t.Stop()
							return nil, ctx.Err()
						}
					}
					if err := c.Stream(d.String() + "\n"); err != nil {
						return nil, err
					}
				}
				hi, lo := days[0].High, days[0].Low
				for _, d := range days {
					hi, lo = max(hi, d.High), min(lo, d.Low)
				}
				return map[string]any{
					"city": in.City, "days": len(days),
					"summary":  fmt.Sprintf("%d to %d °C over %d days", lo, hi, len(days)),
					"asked_by": c.Caller.ID,
				}, nil
			},
		},
		{
			Name:        "invite",
			Description: "Sends an invitation to an event.",
			InputSchema: `{"type":"object","properties":{
				"attendee":{"type":"string","minLength":1,"maxLength":256},
				"event":{"type":"string","minLength":1,"maxLength":256}},
				"required":["attendee","event"],"additionalProperties":false}`,
			Handler: func(ctx context.Context, c *agent.Call) (any, error) {
				var in struct{ Attendee, Event string }
				if err := c.Bind(&in); err != nil {
					return nil, err
				}
				return map[string]any{"status": "invitation sent", "event": in.Event, "asked_by": c.Caller.ID}, nil
			},
		},
		{
			Name:        "note",
			Description: "Keeps a note for the team.",
			InputSchema: `{"type":"object","properties":{"text":{"type":"string","minLength":1,"maxLength":4096}},
				"required":["text"],"additionalProperties":false}`,
			Handler: func(ctx context.Context, c *agent.Call) (any, error) {
				var in struct{ Text string }
				if err := c.Bind(&in); err != nil {
					return nil, err
				}
				return map[string]any{"status": "noted", "bytes": len(in.Text)}, nil
			},
		},
	}
}

// AssistantTools are acme's assistant's tools: it has one, summarise, and
// mostly sends requests through acme's gateway.
func AssistantTools() []agent.Tool {
	return []agent.Tool{{
		Name:        "summarise",
		Description: "The first sentence of a text.",
		InputSchema: `{"type":"object","properties":{"text":{"type":"string","maxLength":65536}},"required":["text"]}`,
		Handler: func(ctx context.Context, c *agent.Call) (any, error) {
			var in struct{ Text string }
			if err := c.Bind(&in); err != nil {
				return nil, err
			}
			s, _, _ := strings.Cut(in.Text, ". ")
			return map[string]string{"summary": s}, nil
		},
	}}
}

// Day is one day of a forecast.
type Day struct {
	N          int
	High, Low  int
	Conditions string
}

func (d Day) String() string {
	return fmt.Sprintf("day %d: %s, %d to %d °C", d.N, d.Conditions, d.Low, d.High)
}

// Forecast makes up a forecast for city: the same city gives the same days.
func Forecast(city string, days int) []Day {
	h := fnv.New64a()
	h.Write([]byte(strings.ToLower(city)))
	x := h.Sum64()
	conds := []string{"sunny", "partly cloudy", "cloudy", "light rain", "showers", "windy"}
	out := make([]Day, days)
	for i := range out {
		x = x*6364136223846793005 + 1442695040888963407
		lo := 4 + int(x>>33%14)
		out[i] = Day{N: i + 1, Low: lo, High: lo + 3 + int(x>>40%9), Conditions: conds[x>>50%uint64(len(conds))]}
	}
	return out
}
