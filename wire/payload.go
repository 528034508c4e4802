package wire

import (
	"github.com/moltgate/moltgate/keys"
)

// This file holds the typed payload ("p") of every operation. Fields of
// free-form JSON are Values. Validation rules are in validate tags; the
// "required" rule also makes an absent field E_MISSING_FIELD when decoding.

// Bytes32 is 32 opaque bytes (a nonce, a challenge) whose text form is
// "base64:" and 44 characters of padded base64.
type Bytes32 [32]byte

// MarshalText implements encoding.TextMarshaler.
func (b Bytes32) MarshalText() ([]byte, error) { return []byte(keys.EncodeBytes(b[:])), nil }

// UnmarshalText implements encoding.TextUnmarshaler, strictly.
func (b *Bytes32) UnmarshalText(t []byte) error {
	d, err := keys.DecodeBytes(string(t), 32)
	if err != nil || len(d) != 32 {
		return Errorf(ErrInvalidParam, "", "want base64: and exactly 32 bytes")
	}
	copy(b[:], d)
	return nil
}

// String gives the text form.
func (b Bytes32) String() string { return keys.EncodeBytes(b[:]) }

// IsZero reports whether every byte is zero.
func (b Bytes32) IsZero() bool { return b == Bytes32{} }

// HelloPayload opens a handshake (hello) and answers it (hello_ack). The
// fields are documented byte for byte in docs/protocol.md.
type HelloPayload struct {
	ProtocolVersions []string          `json:"protocol_versions" validate:"required,min=1,max=16,dive,min=1,max=16"`
	Capabilities     []string          `json:"capabilities" validate:"required,max=256,dive,capability"`
	Extensions       []string          `json:"extensions" validate:"required,max=64,dive,min=1,max=128"`
	MaxMessageSize   int64             `json:"max_message_size" validate:"required,gte=1024"`
	SupportedCls     []Class           `json:"supported_cls" validate:"required,min=1,max=5"`
	Nonce            Bytes32           `json:"nonce" validate:"required"`
	EphemeralKey     keys.X25519Public `json:"ephemeral_key" validate:"required"`
	// Challenge is set in hello_ack only: the responder's challenge.
	Challenge Bytes32 `json:"challenge,omitzero"`
	// IdentityCert is the org-signed identity certificate of the sender,
	// if it has one.
	IdentityCert Value `json:"identity_cert,omitempty"`
}

// VerifyPayload is the initiator's proof: its challenge for the responder
// and its signature over the responder's challenge bound to the transcript.
type VerifyPayload struct {
	Challenge Bytes32        `json:"challenge" validate:"required"`
	Proof     keys.Signature `json:"proof" validate:"required"`
}

// VerifyResponsePayload is the responder's proof over the initiator's
// challenge, the session id it assigns and the latest expiry it accepts for
// the session (unix milliseconds).
type VerifyResponsePayload struct {
	Proof     keys.Signature `json:"proof" validate:"required"`
	SessionID string         `json:"session_id" validate:"required,min=16,max=128"`
	Expires   int64          `json:"expires" validate:"required,gt=0"`
}

// SessionEstablishedPayload confirms the session and its expiry.
type SessionEstablishedPayload struct {
	SessionID string `json:"session_id" validate:"required,min=16,max=128"`
	Expires   int64  `json:"expires" validate:"required,gt=0"`
}

// QueryPayload asks an agent for information.
type QueryPayload struct {
	Domain         string          `json:"domain" validate:"required,max=256"`
	Intent         string          `json:"intent,omitempty" validate:"max=256"`
	Params         Value           `json:"params,omitempty"`
	ResponseFormat *ResponseFormat `json:"response_format,omitempty"`
}

// ResponseFormat is a query's requested answer shape.
type ResponseFormat struct {
	Type   string   `json:"type,omitempty" validate:"omitempty,oneof=structured text stream"`
	Schema string   `json:"schema,omitempty" validate:"max=256"`
	Fields []string `json:"fields,omitempty" validate:"max=256,dive,max=256"`
}

// RespondPayload answers a query, a tool call or a task.
type RespondPayload struct {
	Status string `json:"status" validate:"required,oneof=success error partial"`
	Data   Value  `json:"data,omitempty"`
	Schema string `json:"schema,omitempty" validate:"max=256"`
}

// TaskPayload creates, inspects, cancels or completes delegated work.
type TaskPayload struct {
	Action      string    `json:"action" validate:"required,oneof=create status cancel complete"`
	TaskID      string    `json:"task_id" validate:"required,min=1,max=128"`
	Type        string    `json:"type,omitempty" validate:"max=128"`
	Description string    `json:"description,omitempty" validate:"max=65536"`
	Params      Value     `json:"params,omitempty"`
	Constraints Value     `json:"constraints,omitempty"`
	Deadline    int64     `json:"deadline,omitempty" validate:"gte=0"`
	Priority    string    `json:"priority,omitempty" validate:"omitempty,oneof=low normal high urgent"`
	Callback    *Callback `json:"callback,omitempty"`
	Subtasks    []Subtask `json:"subtasks,omitempty" validate:"max=256,dive"`
	// Status reports a task's state in status and complete messages.
	Status string `json:"status,omitempty" validate:"omitempty,oneof=pending running completed failed cancelled"`
	Result Value  `json:"result,omitempty"`
}

// Callback says which task events the delegator wants to hear about.
type Callback struct {
	OnComplete bool `json:"on_complete,omitempty"`
	OnProgress bool `json:"on_progress,omitempty"`
}

// Subtask is one step of a task.
type Subtask struct {
	ID         string   `json:"id" validate:"required,max=128"`
	Type       string   `json:"type" validate:"required,max=128"`
	DelegateTo string   `json:"delegate_to,omitempty" validate:"max=300"`
	DependsOn  []string `json:"depends_on,omitempty" validate:"max=256,dive,max=128"`
	Params     Value    `json:"params,omitempty"`
}

// StreamPayload starts, carries or ends a stream.
type StreamPayload struct {
	Action    string `json:"action" validate:"required,oneof=start chunk end"`
	StreamID  string `json:"stream_id" validate:"required,min=1,max=128"`
	Type      string `json:"type,omitempty" validate:"max=64"`
	ChunkSize int64  `json:"chunk_size,omitempty" validate:"gte=0"`
	Seq       int64  `json:"seq,omitempty" validate:"gte=0"`
	Data      Value  `json:"data,omitempty"`
	// Status closes a stream: success, error or cancelled.
	Status string `json:"status,omitempty" validate:"omitempty,oneof=success error cancelled"`
}

// ToolPayload invokes a tool through an agent, or lists its tools.
type ToolPayload struct {
	Action string `json:"action" validate:"required,oneof=invoke list"`
	Tool   string `json:"tool,omitempty" validate:"required_if=Action invoke,max=256"`
	Input  Value  `json:"input,omitempty"`
}

// ConsentPayload carries a consent flow.
type ConsentPayload struct {
	Action    string   `json:"action" validate:"required,oneof=request grant deny revoke"`
	DataTypes []string `json:"data_types,omitempty" validate:"max=16,dive,min=1,max=64"`
	Purpose   string   `json:"purpose,omitempty" validate:"max=256"`
	Duration  string   `json:"duration,omitempty" validate:"max=64"`
	Human     string   `json:"human,omitempty" validate:"max=256"`
	Proof     string   `json:"proof,omitempty" validate:"max=8192"`
	Reason    string   `json:"reason,omitempty" validate:"max=1024"`
}

// ErrorPayload is the "error" operation's payload.
type ErrorPayload struct {
	Code        Code        `json:"code" validate:"required,max=64"`
	Category    Category    `json:"category" validate:"required,oneof=protocol validation auth privacy transport execution"`
	Message     string      `json:"message" validate:"required,max=4096"`
	Field       string      `json:"field,omitempty" validate:"max=1024"`
	Recoverable bool        `json:"recoverable"`
	Suggestion  *Suggestion `json:"suggestion,omitempty"`
	Context     Value       `json:"context,omitempty"`
}

// Err turns a received error payload back into an *Error.
func (p *ErrorPayload) Err() *Error {
	return &Error{Code: p.Code, Field: p.Field, Message: p.Message, Suggestion: p.Suggestion}
}

// RegisterPayload creates, updates, renews or deletes a directory entry.
type RegisterPayload struct {
	Action  string   `json:"action" validate:"required,oneof=create update delete renew"`
	Profile *Profile `json:"profile,omitempty" validate:"required_if=Action create,required_if=Action update"`
	TTL     int64    `json:"ttl,omitempty" validate:"gte=0"`
	Reason  string   `json:"reason,omitempty" validate:"max=1024"`
	// IdentityCert lets an org gateway register on its agent's behalf.
	IdentityCert Value `json:"identity_cert,omitempty"`
}

// Profile is what an agent publishes about itself in a directory.
type Profile struct {
	AgentID       string             `json:"agent_id,omitempty" validate:"omitempty,name"`
	Name          string             `json:"name,omitempty" validate:"max=256"`
	Description   string             `json:"description,omitempty" validate:"max=4096"`
	Endpoint      *Endpoint          `json:"endpoint,omitempty"`
	PublicKey     keys.Ed25519Public `json:"public_key,omitzero"`
	EncryptionKey keys.X25519Public  `json:"encryption_key,omitzero"`
	Capabilities  []string           `json:"capabilities,omitempty" validate:"max=256,dive,capability"`
	Visibility    string             `json:"visibility,omitempty" validate:"omitempty,oneof=public unlisted private"`
	Metadata      Value              `json:"metadata,omitempty"`
	Tags          []string           `json:"tags,omitempty" validate:"max=64,dive,min=1,max=64"`
	// AllowedOrgs limits which peer orgs may see the entry.
	AllowedOrgs []string `json:"allowed_orgs,omitempty" validate:"max=256,dive,name"`
}

// Endpoint is where an agent is reached.
type Endpoint struct {
	URL       string `json:"url" validate:"required,max=2048"`
	Transport string `json:"transport,omitempty" validate:"omitempty,oneof=https http websocket grpc"`
	WebSocket string `json:"websocket,omitempty" validate:"max=2048"`
}

// DiscoverPayload searches a directory.
type DiscoverPayload struct {
	Capability   string           `json:"capability,omitempty" validate:"omitempty,capability"`
	Capabilities *CapabilityQuery `json:"capabilities,omitempty"`
	Requirements Value            `json:"requirements,omitempty"`
	Filters      *DiscoverFilters `json:"filters,omitempty"`
	Sort         string           `json:"sort,omitempty" validate:"omitempty,oneof=match_score score uptime recency reputation"`
	Limit        int              `json:"limit,omitempty" validate:"gte=0,lte=1000"`
	Cursor       string           `json:"cursor,omitempty" validate:"max=512"`
	AgentID      string           `json:"agent_id,omitempty" validate:"omitempty,name"`
	Anonymous    bool             `json:"anonymous,omitempty"`
}

// CapabilityQuery asks for agents with all of one list and any of another.
type CapabilityQuery struct {
	All []string `json:"all,omitempty" validate:"max=64,dive,capability"`
	Any []string `json:"any,omitempty" validate:"max=64,dive,capability"`
}

// DiscoverFilters narrows a search.
type DiscoverFilters struct {
	Verified  *bool    `json:"verified,omitempty"`
	MinUptime float64  `json:"min_uptime,omitempty" validate:"gte=0,lte=1"`
	Org       []string `json:"org,omitempty" validate:"max=64,dive,name"`
}

// PingPayload checks that an agent is alive.
type PingPayload struct {
	Nonce string `json:"nonce" validate:"required,max=128"`
}

// PongPayload answers a ping.
type PongPayload struct {
	Nonce              string   `json:"nonce" validate:"required,max=128"`
	Status             string   `json:"status" validate:"required,oneof=alive healthy degraded unhealthy busy offline"`
	Load               float64  `json:"load" validate:"gte=0"`
	QueueDepth         int64    `json:"queue_depth" validate:"gte=0"`
	CapabilitiesActive []string `json:"capabilities_active" validate:"max=256,dive,capability"`
}

// SecurityAlertPayload announces a revocation (AlertType key_revocation,
// ActionRequired terminate_sessions) or a rotation (key_rotation,
// update_pin): the agent it is about, when it took effect and what the
// receiver must do. RevocationList carries the organisation's signed
// revocation list (package revocation), Handover its signed handover
// statement (package handover); that is what a receiver acts on: the
// alert's own members say what happened, the signed member proves it.
type SecurityAlertPayload struct {
	AlertType      string `json:"alert_type" validate:"required,oneof=key_revocation key_rotation"`
	AffectedAgent  string `json:"affected_agent,omitempty" validate:"omitempty,name"`
	Effective      int64  `json:"effective" validate:"required,gt=0"`
	ActionRequired string `json:"action_required" validate:"required,oneof=terminate_sessions update_pin"`
	RevocationList Value  `json:"revocation_list,omitempty"`
	Handover       Value  `json:"handover,omitempty"`
}

// newPayload returns a pointer to a new payload of op's type, or nil for an
// unknown op.
func newPayload(op Op) any {
	switch op {
	case OpHello, OpHelloAck:
		return new(HelloPayload)
	case OpVerify:
		return new(VerifyPayload)
	case OpVerifyResponse:
		return new(VerifyResponsePayload)
	case OpSessionEstablished:
		return new(SessionEstablishedPayload)
	case OpQuery:
		return new(QueryPayload)
	case OpRespond:
		return new(RespondPayload)
	case OpTask:
		return new(TaskPayload)
	case OpStream:
		return new(StreamPayload)
	case OpTool:
		return new(ToolPayload)
	case OpConsent:
		return new(ConsentPayload)
	case OpError:
		return new(ErrorPayload)
	case OpRegister:
		return new(RegisterPayload)
	case OpDiscover:
		return new(DiscoverPayload)
	case OpPing:
		return new(PingPayload)
	case OpPong:
		return new(PongPayload)
	case OpSecurityAlert:
		return new(SecurityAlertPayload)
	}
	return nil
}

// PayloadAs returns m's payload as *T, if it is one.
func PayloadAs[T any](m *Message) (*T, bool) {
	p, ok := m.Payload.(*T)
	return p, ok
}
