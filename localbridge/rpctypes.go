package localbridge

import (
	"encoding/json"
	"errors"
	"time"
)

// Methods of the JSON-RPC face.
const (
	MethodInitialize    = "initialize"
	MethodQuery         = "agent.query"
	MethodCancel        = "agent.cancel"
	MethodPing          = "agent.ping"
	MethodApprove       = "tool.approve"
	MethodApprovalsList = "approvals.list"
	MethodDiscover      = "directory.discover"
	MethodSync          = "directory.sync"
	MethodConsentIssue  = "consent.issue"
	MethodConsentAsk    = "consent.request"
	MethodContextUpdate = "context.update" // the terminal's context, which later queries carry
	MethodSessionSave   = "session.save"
	MethodSessionLoad   = "session.load"

	NotifyToken            = "stream.token"
	NotifyBlock            = "stream.block"
	NotifyComplete         = "stream.complete"
	NotifyError            = "stream.error"
	NotifyRequestApproval  = "tool.request_approval"
	NotifyApprovalResolved = "tool.approval_resolved"
	NotifyToolProgress     = "tool.progress"
	NotifyToolComplete     = "tool.complete"
	NotifyThinking         = "agent.thinking"
)

// RPCProtocolVersion is the IPC protocol version the face speaks.
const RPCProtocolVersion = "1.0.0"

// InitializeParams are the parameters of initialize.
type InitializeParams struct {
	ProtocolVersion string     `json:"protocol_version"`
	ClientInfo      ClientInfo `json:"client_info"`
	// Capabilities the client has; "tool_approval" subscribes the connection to
	// tool.request_approval notifications.
	Capabilities []string `json:"capabilities,omitempty"`
}

// ClientInfo names a client or server program.
type ClientInfo struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// InitializeResult is the result of initialize.
type InitializeResult struct {
	Status          string     `json:"status"`
	ProtocolVersion string     `json:"protocol_version"`
	ServerInfo      ClientInfo `json:"server_info"`
	Capabilities    []string   `json:"capabilities"`
	Methods         []string   `json:"methods"`
}

// QueryRequest is the parameters of agent.query: a query or a tool call to an agent, local or
// at another organisation.
type QueryRequest struct {
	To        string          `json:"to"`                   // "agent@org", or "agent" for one of this organisation's
	From      string          `json:"from,omitempty"`       // the local agent the request is sent on behalf of
	Tool      string          `json:"tool,omitempty"`       // a tool to invoke; empty for a query
	Input     json.RawMessage `json:"input,omitempty"`      // the tool's input or the query's parameters (an object)
	Message   string          `json:"message,omitempty"`    // a free-text query
	Class     string          `json:"cls,omitempty"`        // MoltSpeak classification: pub, int, conf, pii or sec
	Consent   string          `json:"consent,omitempty"`    // a consent token covering personal data in the request
	TimeoutMS int64           `json:"timeout_ms,omitempty"` // the caller's deadline
	Context   json.RawMessage `json:"context,omitempty"`    // the terminal's context, passed on as metadata
	// CorrelationID is, for an agent that makes this query while it handles a call, that
	// call's correlation id (agent.Call.CorrelationID). The gateway counts the gateways a
	// chain of calls has crossed by it, and refuses a chain longer than limits.max_hops.
	CorrelationID string `json:"correlation_id,omitempty"`
	// TraceParent and TraceState are the caller's W3C trace context: the
	// gateway's spans of the query, and the peers' and agent's after them,
	// join the caller's trace. A malformed one is ignored, as W3C asks.
	TraceParent string `json:"traceparent,omitempty"`
	TraceState  string `json:"tracestate,omitempty"`

	// QueryID is the id the face gave the query; set by the face, not by the client.
	QueryID string `json:"-"`
}

// StreamEvent is one piece of a streamed reply.
type StreamEvent struct {
	Text    string          // a piece of text: a stream.token notification
	Block   json.RawMessage // a structured piece (a JSON object): a stream.block notification
	Channel string          // where it came from: stdout, stderr, log, status or partial_result
}

// DiscoverRequest is the parameters of directory.discover: the discovery document of the
// MoltSpeak discovery protocol. The common fields are decoded; Query holds all of it.
type DiscoverRequest struct {
	Capability string          `json:"capability,omitempty"`
	Org        string          `json:"org,omitempty"`
	Limit      int             `json:"limit,omitempty"`
	Query      json.RawMessage `json:"-"`
}

// SyncRequest is the parameters of directory.sync.
type SyncRequest struct {
	Peer string `json:"peer,omitempty"` // one peer organisation; every peer when empty
}

// PingRequest is the parameters of agent.ping.
type PingRequest struct {
	Agent string `json:"agent"` // "agent@org", or "agent" for one of this organisation's
}

// ConsentRequest is the parameters of consent.issue.
type ConsentRequest struct {
	Grantee   string        `json:"grantee"` // "agent@org"
	Purpose   string        `json:"purpose"`
	DataTypes []string      `json:"data_types"`
	GrantedBy string        `json:"granted_by,omitempty"`
	TTL       time.Duration `json:"-"` // from "ttl" ("1h") or "ttl_seconds"
}

// The bounds of a consent's lifetime, wherever one is issued: a token
// counts time in milliseconds, and one that expires as it is issued grants
// nothing; a consent for longer than a year is rather a policy.
const (
	MinConsentTTL = time.Second
	MaxConsentTTL = 365 * 24 * time.Hour
)

// CheckConsentTTL says what is wrong with ttl as a consent's lifetime, or
// returns nil; the message reads after the name of the setting ("ttl",
// "--ttl").
func CheckConsentTTL(ttl time.Duration) error {
	if ttl < MinConsentTTL || ttl > MaxConsentTTL {
		return errors.New("must be at least a second and at most a year (8760h)")
	}
	return nil
}

// ConsentAsk is the parameters of consent.request: a local agent asks a
// peer's agent for a consent to receive personal data.
type ConsentAsk struct {
	To        string   `json:"to"`             // "agent@org"
	From      string   `json:"from,omitempty"` // the local agent; default the only one
	DataTypes []string `json:"data_types"`
	Purpose   string   `json:"purpose"`
	Duration  string   `json:"duration,omitempty"` // "session" or a duration ("24h"); default an hour
	Human     string   `json:"human,omitempty"`    // whose data, as the peer knows them
}

// ConsentAnswer is the result of consent.request: the peer's grant, with
// its proof, or its refusal.
type ConsentAnswer struct {
	Granted   bool     `json:"granted"`
	Proof     string   `json:"proof,omitempty"` // the consent token, when granted
	DataTypes []string `json:"data_types,omitempty"`
	Purpose   string   `json:"purpose,omitempty"`
	Duration  string   `json:"duration,omitempty"`
	Human     string   `json:"human,omitempty"`
	Reason    string   `json:"reason,omitempty"` // why not, when refused
}

// ApprovalInfo is a held call as the face shows it: the parameters of
// tool.request_approval and the items of approvals.list.
type ApprovalInfo struct {
	ExecutionID    string          `json:"execution_id"`
	QueryID        string          `json:"query_id,omitempty"`
	Agent          string          `json:"agent"`
	Tool           ApprovalTool    `json:"tool"`
	Arguments      json.RawMessage `json:"arguments"`
	Classification string          `json:"classification,omitempty"`
	Risk           RiskAssessment  `json:"risk_assessment"`
	Caller         *ApprovalCaller `json:"caller,omitempty"`
	Timeout        int64           `json:"timeout"` // seconds left to decide
	RequestedAt    time.Time       `json:"requested_at"`
	ExpiresAt      time.Time       `json:"expires_at"`
}

// ApprovalTool describes the tool of a held call.
type ApprovalTool struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	Category    string `json:"category,omitempty"`
}

// RiskAssessment is the risk_assessment of tool.request_approval.
type RiskAssessment struct {
	Level      string   `json:"level"`
	Reasons    []string `json:"reasons"`
	Reversible bool     `json:"reversible"`
}

// ApprovalCaller says who asked for a held call.
type ApprovalCaller struct {
	Type string `json:"type"`
	ID   string `json:"id"`
}

// ApprovalResolved is the parameters of tool.approval_resolved.
type ApprovalResolved struct {
	ExecutionID string `json:"execution_id"`
	Status      string `json:"status"` // approved, denied or expired
}

func approvalInfo(r ApprovalRequest, now time.Time, queryID string) ApprovalInfo {
	info := ApprovalInfo{
		ExecutionID:    r.ID,
		QueryID:        queryID,
		Agent:          r.Agent,
		Tool:           ApprovalTool{Name: r.Tool, Description: r.Description, Category: r.Agent},
		Arguments:      r.Arguments,
		Classification: r.Class,
		Risk:           RiskAssessment{Level: r.Risk.Level, Reasons: r.Risk.Reasons, Reversible: r.Risk.Reversible},
		Timeout:        max(int64(r.Expires.Sub(now).Round(time.Second)/time.Second), 0),
		RequestedAt:    r.RequestedAt,
		ExpiresAt:      r.Expires,
	}
	if info.Risk.Reasons == nil {
		info.Risk.Reasons = []string{}
	}
	if r.Caller.ID != "" {
		info.Caller = &ApprovalCaller{Type: r.Caller.Type, ID: r.Caller.ID}
	}
	return info
}
