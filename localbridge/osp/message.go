package osp

import "encoding/json"

// Message types. core.* travel from Core to an agent, agent.* the other way. core.error is
// this implementation's answer to a message it cannot accept (an unknown type, a malformed
// payload, a second result for one call); it carries the standard top-level error and
// in_reply_to naming the offending message.
const (
	TypeHello             = "agent.hello"
	TypeWelcome           = "core.welcome"
	TypeGoodbye           = "core.goodbye"
	TypeToolsRegister     = "agent.tools.register"
	TypeToolsRegistered   = "core.tools.registered"
	TypeToolsUnregister   = "agent.tools.unregister"
	TypeToolsUnregistered = "core.tools.unregistered"
	TypeToolCall          = "core.tool.call"
	TypeToolStream        = "agent.tool.stream"
	TypeToolResult        = "agent.tool.result"
	TypeToolCancel        = "core.tool.cancel"
	TypeCancelAck         = "agent.tool.cancel_ack"
	TypeHeartbeat         = "agent.heartbeat"
	TypePing              = "core.ping"
	TypePong              = "agent.pong"
	TypeError             = "core.error"
	TypeAgentUpdate       = "agent.update"       // the agent changes its own display metadata
	TypeAgentUpdated      = "core.agent.updated" // the answer: what the gateway now holds
)

// Result statuses.
const (
	StatusSucceeded = "succeeded"
	StatusFailed    = "failed"
	StatusCanceled  = "canceled"
)

// Stream channels.
const (
	ChannelStdout        = "stdout"
	ChannelStderr        = "stderr"
	ChannelLog           = "log"
	ChannelPartialResult = "partial_result"
	ChannelStatus        = "status"
)

// Heartbeat statuses.
const (
	HealthOK        = "ok"
	HealthDegraded  = "degraded"
	HealthUnhealthy = "unhealthy"
)

// Error codes. protocol.* codes describe violations of this protocol, tool.* codes the
// outcome of one tool, as the specification's examples name them.
const (
	CodeUnauthorized       = "protocol.unauthorized"
	CodeUnsupportedVersion = "protocol.unsupported_version"
	CodeInvalidFrame       = "protocol.invalid_frame"
	CodeInvalidMessage     = "protocol.invalid_message"
	CodeUnknownType        = "protocol.unknown_type"
	CodeUnexpectedMessage  = "protocol.unexpected_message"
	CodeUnknownCall        = "protocol.unknown_call"
	CodeDuplicateResult    = "protocol.duplicate_result"
	CodeInvalidSeq         = "protocol.invalid_seq"
	CodeTooManyErrors      = "protocol.too_many_errors"

	CodeInvalidToolID   = "tool.invalid_id"
	CodeInvalidSchema   = "tool.invalid_schema"
	CodeDuplicateTool   = "tool.duplicate"
	CodeTooManyTools    = "tool.too_many"
	CodeToolNotFound    = "tool.not_found"
	CodeInvalidInput    = "tool.invalid_input"
	CodeToolCanceled    = "tool.canceled"
	CodeToolTimeout     = "tool.timeout"
	CodeToolFailed      = "tool.failed"
	CodeToolInternal    = "tool.internal"
	CodeOutputTooLarge  = "tool.output_too_large"
	CodeOutputMalformed = "tool.output_malformed"
)

// Hello is the payload of agent.hello. SessionToken is the only secret the protocol carries:
// it must never be logged.
type Hello struct {
	SessionToken string        `json:"session_token"`
	AgentID      string        `json:"agent_id"`
	AgentVersion string        `json:"agent_version"`
	ManifestHash string        `json:"manifest_hash,omitempty"`
	Protocol     HelloProtocol `json:"protocol"`
	SDK          *SDKInfo      `json:"sdk,omitempty"`
}

// HelloProtocol lists what the agent speaks.
type HelloProtocol struct {
	SupportedVersions []int    `json:"supported_versions"`
	Capabilities      []string `json:"capabilities,omitempty"`
}

// SDKInfo names the library an agent is built with.
type SDKInfo struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// Welcome is the payload of core.welcome.
type Welcome struct {
	AcceptedVersion     int        `json:"accepted_version"`
	SessionID           string     `json:"session_id"`
	HeartbeatIntervalMS int64      `json:"heartbeat_interval_ms"`
	MaxFrameBytes       int        `json:"max_frame_bytes"`
	Server              ServerInfo `json:"server"`
	// AgentKey is handed to an agent started elsewhere that presented its operator's one-time
	// token: the key it reconnects with, in place of a token, from now on. Absent otherwise.
	AgentKey string `json:"agent_key,omitempty"`
}

// ServerInfo identifies the Core.
type ServerInfo struct {
	CoreVersion string `json:"core_version"`
	InstanceID  string `json:"instance_id"`
}

// Goodbye is the payload of core.goodbye.
type Goodbye struct {
	Reason       string `json:"reason"`
	RetryAfterMS int64  `json:"retry_after_ms,omitempty"`
}

// Tool describes one tool in agent.tools.register.
type Tool struct {
	ToolID            string          `json:"tool_id"`
	Name              string          `json:"name"`
	Description       string          `json:"description"`
	InputSchema       json.RawMessage `json:"input_schema"`
	OutputSchema      json.RawMessage `json:"output_schema,omitempty"`
	Capabilities      []string        `json:"capabilities,omitempty"`
	SideEffects       bool            `json:"side_effects,omitempty"`
	RequiresDirective bool            `json:"requires_directive,omitempty"`
	Tags              []string        `json:"tags,omitempty"`
}

// ToolsRegister is the payload of agent.tools.register.
type ToolsRegister struct {
	Tools   []Tool `json:"tools"`
	Replace bool   `json:"replace,omitempty"`
}

// ToolsRegistered is the payload of core.tools.registered.
type ToolsRegistered struct {
	Registered []string    `json:"registered"`
	Rejected   []Rejection `json:"rejected,omitempty"`
}

// Rejection says why one tool was not registered.
type Rejection struct {
	ToolID string `json:"tool_id"`
	Error  Error  `json:"error"`
}

// ToolsUnregister is the payload of agent.tools.unregister.
type ToolsUnregister struct {
	ToolIDs []string `json:"tool_ids"`
}

// ToolsUnregistered is the payload of core.tools.unregistered.
type ToolsUnregistered struct {
	Unregistered []string `json:"unregistered"`
	Unknown      []string `json:"unknown,omitempty"`
}

// Caller says who asked for a tool call.
type Caller struct {
	Type string `json:"type"`
	ID   string `json:"id"`
}

// ToolCall is the payload of core.tool.call.
type ToolCall struct {
	CallID         string          `json:"call_id"`
	ToolID         string          `json:"tool_id"`
	Input          json.RawMessage `json:"input"`
	TimeoutMS      int64           `json:"timeout_ms,omitempty"`
	IdempotencyKey string          `json:"idempotency_key,omitempty"`
	Caller         *Caller         `json:"caller,omitempty"`
	Context        json.RawMessage `json:"context,omitempty"`
}

// ToolStream is the payload of agent.tool.stream.
type ToolStream struct {
	CallID  string     `json:"call_id"`
	Seq     int64      `json:"seq"`
	Channel string     `json:"channel"`
	Data    StreamData `json:"data"`
	Done    bool       `json:"done,omitempty"`
}

// StreamData is a chunk's content: Text for stdout, stderr, log and status, JSON for
// partial_result.
type StreamData struct {
	Text string          `json:"text,omitempty"`
	JSON json.RawMessage `json:"json,omitempty"`
}

// ToolResult is the payload of agent.tool.result.
type ToolResult struct {
	CallID     string          `json:"call_id"`
	Status     string          `json:"status"`
	Output     json.RawMessage `json:"output,omitempty"`
	Error      *Error          `json:"error,omitempty"`
	StartedAt  string          `json:"started_at,omitempty"`
	FinishedAt string          `json:"finished_at,omitempty"`
	Metrics    json.RawMessage `json:"metrics,omitempty"`
}

// ToolCancel is the payload of core.tool.cancel.
type ToolCancel struct {
	CallID     string `json:"call_id"`
	Reason     string `json:"reason,omitempty"`
	DeadlineMS int64  `json:"deadline_ms,omitempty"`
}

// CancelAck is the payload of agent.tool.cancel_ack.
type CancelAck struct {
	CallID   string `json:"call_id"`
	Accepted bool   `json:"accepted"`
	Note     string `json:"note,omitempty"`
}

// Heartbeat is the payload of agent.heartbeat.
type Heartbeat struct {
	SessionID     string          `json:"session_id"`
	UptimeMS      int64           `json:"uptime_ms"`
	InflightCalls int             `json:"inflight_calls"`
	Status        string          `json:"status"`
	Details       json.RawMessage `json:"details,omitempty"`
}

// AgentUpdate is the payload of agent.update, and of its answer core.agent.updated: the
// agent's display name. ID must be the sender's own agent id.
type AgentUpdate struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}
