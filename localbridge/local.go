package localbridge

import (
	"context"
	"encoding/json"
	"strings"
)

// Local serves the JSON-RPC face's requests for this organisation's own agents from the
// Core: a query or tool call becomes a Core call (approval included), discovery lists the
// local agents whose tools match, and ping reports an agent's health. The gateway sends
// requests for other organisations elsewhere.
type Local struct {
	Core *Core
	Org  string // this organisation; "agent@Org" and a bare "agent" address its agents
}

// agentOf returns the local agent an address names.
func (l *Local) agentOf(addr string) (string, error) {
	agent, org, _ := strings.Cut(addr, "@")
	if org != "" && org != l.Org {
		return "", coreErr(CodeUnknownAgent, "the agent is not one of this organisation's")
	}
	return agent, nil
}

// Query calls the tool the request names, or the agent's query tool (AgentSpec.QueryTool)
// with the request's input, or {"message": ...} when it has none. Text chunks stream as
// tokens and partial results as blocks; the result is the tool's output.
func (l *Local) Query(ctx context.Context, req QueryRequest, emit func(StreamEvent) error) (json.RawMessage, error) {
	agent, err := l.agentOf(req.To)
	if err != nil {
		return nil, err
	}
	tool, input := req.Tool, req.Input
	if tool == "" {
		info, ok := l.Core.Agent(agent)
		if !ok {
			return nil, coreErr(CodeUnknownAgent, "no local agent has that id")
		}
		if info.QueryTool == "" {
			return nil, coreErr(CodeUnknownTool, "the agent takes tool calls only")
		}
		tool = info.QueryTool
		if len(input) == 0 {
			input, _ = json.Marshal(map[string]string{"message": req.Message})
		}
	}
	caller := Caller{Type: "human", ID: "local"}
	if req.From != "" {
		caller = Caller{Type: "agent", ID: req.From + "@" + l.Org}
	}
	res, err := l.Core.Call(ctx, CallRequest{
		Agent:         agent,
		Tool:          tool,
		Input:         input,
		CorrelationID: req.QueryID,
		Caller:        caller,
		Class:         req.Class,
		Context:       req.Context,
	}, func(c Chunk) error {
		if c.Channel == "partial_result" {
			return emit(StreamEvent{Block: c.JSON, Channel: c.Channel})
		}
		return emit(StreamEvent{Text: c.Text, Channel: c.Channel})
	})
	if err != nil {
		return nil, err
	}
	return res.Output, nil
}

// localResult is one agent in a discovery response.
type localResult struct {
	AgentID             string   `json:"agent_id"`
	Org                 string   `json:"org"`
	Capabilities        []string `json:"capabilities"`
	CapabilitiesMatched []string `json:"capabilities_matched"`
	Status              string   `json:"status"`
	Load                float64  `json:"load"`
}

// Discover lists the local agents with a tool matching the capability: equal to it, or under
// it when it ends in ".*"; all agents when it is empty. Results are sorted by agent id.
func (l *Local) Discover(ctx context.Context, req DiscoverRequest) (json.RawMessage, error) {
	results := []localResult{}
	if req.Org == "" || req.Org == l.Org {
		for _, a := range l.Core.Agents() {
			var matched []string
			for _, c := range a.Capabilities() {
				if capabilityMatches(req.Capability, c) {
					matched = append(matched, c)
				}
			}
			if len(matched) == 0 {
				continue
			}
			results = append(results, localResult{AgentID: a.ID, Org: l.Org, Capabilities: a.Capabilities(), CapabilitiesMatched: matched, Status: pongStatus(a), Load: a.Load})
		}
	}
	limit := req.Limit
	if limit <= 0 {
		limit = 10
	}
	total := len(results)
	if len(results) > limit {
		results = results[:limit]
	}
	return json.Marshal(map[string]any{"results": results, "total": total, "has_more": total > len(results)})
}

func capabilityMatches(want, have string) bool {
	switch {
	case want == "" || want == "*":
		return true
	case strings.HasSuffix(want, ".*"):
		return strings.HasPrefix(have, want[:len(want)-1])
	}
	return want == have
}

func pongStatus(a AgentInfo) string {
	switch a.Status {
	case StatusOK:
		return "alive"
	case StatusDegraded:
		return "degraded"
	case StatusUnhealthy:
		return "unhealthy"
	}
	return "offline"
}

// Ping answers with a pong payload built from the agent's heartbeats: status (alive,
// degraded, unhealthy or offline), load, queue_depth and capabilities_active.
func (l *Local) Ping(ctx context.Context, req PingRequest) (json.RawMessage, error) {
	agent, err := l.agentOf(req.Agent)
	if err != nil {
		return nil, err
	}
	a, ok := l.Core.Agent(agent)
	if !ok {
		return nil, coreErr(CodeUnknownAgent, "no local agent has that id")
	}
	active := []string{}
	if a.Healthy {
		active = a.Capabilities()
	}
	p := map[string]any{
		"agent":               a.ID,
		"org":                 l.Org,
		"status":              pongStatus(a),
		"load":                a.Load,
		"queue_depth":         a.Queued,
		"in_flight":           a.InFlight,
		"capabilities_active": active,
	}
	if !a.LastHeartbeat.IsZero() {
		p["last_heartbeat"] = a.LastHeartbeat.UTC().Format("2006-01-02T15:04:05.000Z07:00")
	}
	return json.Marshal(p)
}
