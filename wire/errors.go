package wire

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Code is a MoltSpeak error code, such as "E_SIGNATURE".
type Code string

// The protocol's error codes.
const (
	ErrParse          Code = "E_PARSE"
	ErrVersion        Code = "E_VERSION"
	ErrSchema         Code = "E_SCHEMA"
	ErrMissingField   Code = "E_MISSING_FIELD"
	ErrInvalidParam   Code = "E_INVALID_PARAM"
	ErrAuthFailed     Code = "E_AUTH_FAILED"
	ErrSignature      Code = "E_SIGNATURE"
	ErrCapability     Code = "E_CAPABILITY"
	ErrConsent        Code = "E_CONSENT"
	ErrClassification Code = "E_CLASSIFICATION"
	ErrRateLimit      Code = "E_RATE_LIMIT"
	ErrTimeout        Code = "E_TIMEOUT"
	ErrTaskFailed     Code = "E_TASK_FAILED"
	ErrInternal       Code = "E_INTERNAL"

	// Discovery codes.
	ErrAgentNotFound        Code = "E_AGENT_NOT_FOUND"
	ErrCapabilityUnknown    Code = "E_CAPABILITY_UNKNOWN"
	ErrRegistrationExpired  Code = "E_REGISTRATION_EXPIRED"
	ErrRegistrationConflict Code = "E_REGISTRATION_CONFLICT"
	ErrVisibilityDenied     Code = "E_VISIBILITY_DENIED"
	ErrRegistryUnavailable  Code = "E_REGISTRY_UNAVAILABLE"
	ErrRateLimitDiscovery   Code = "E_RATE_LIMIT_DISCOVERY"
	ErrInvalidProfile       Code = "E_INVALID_PROFILE"

	// Codes moltgate adds where the specs name a condition but no code.
	ErrTooLarge        Code = "E_TOO_LARGE"        // a size limit was exceeded
	ErrReplay          Code = "E_REPLAY"           // message id seen before, or ts outside the window
	ErrExpired         Code = "E_EXPIRED"          // the message's exp has passed
	ErrSessionExpired  Code = "E_SESSION_EXPIRED"  // the session is gone: handshake again
	ErrPeerUnavailable Code = "E_PEER_UNAVAILABLE" // the peer gateway cannot be reached now
	// ErrStorageUnavailable: the storage the answering gateway depends on
	// (its directory, replay window, consent records) is failing, whatever
	// its backend; the same request may succeed once it is back.
	ErrStorageUnavailable Code = "E_STORAGE_UNAVAILABLE"
)

// Category groups codes as the protocol's error payload does.
type Category string

// The categories of the protocol's error payload.
const (
	CatProtocol   Category = "protocol"
	CatValidation Category = "validation"
	CatAuth       Category = "auth"
	CatPrivacy    Category = "privacy"
	CatTransport  Category = "transport"
	CatExecution  Category = "execution"
)

// Suggestion actions.
const (
	ActionRetry             = "retry"
	ActionRetryAfter        = "retry_after"
	ActionRequestCapability = "request_capability"
	ActionRequestConsent    = "request_consent"
	ActionUpgrade           = "upgrade"
	ActionHandshake         = "handshake"
)

type codeInfo struct {
	cat         Category
	recoverable bool
	status      int
	action      string
	text        string
}

// codes is the one table of every code moltgate knows.
var codes = map[Code]codeInfo{
	ErrParse:          {CatProtocol, false, http.StatusBadRequest, "", "message is not valid JSON"},
	ErrVersion:        {CatProtocol, false, http.StatusBadRequest, ActionUpgrade, "unsupported protocol version"},
	ErrSchema:         {CatValidation, false, http.StatusBadRequest, "", "message does not match the schema"},
	ErrMissingField:   {CatValidation, true, http.StatusBadRequest, ActionRetry, "required field missing"},
	ErrInvalidParam:   {CatValidation, true, http.StatusBadRequest, ActionRetry, "parameter value invalid"},
	ErrAuthFailed:     {CatAuth, false, http.StatusUnauthorized, "", "authentication failed"},
	ErrSignature:      {CatAuth, false, http.StatusUnauthorized, "", "signature verification failed"},
	ErrCapability:     {CatAuth, true, http.StatusForbidden, ActionRequestCapability, "required capability not held"},
	ErrConsent:        {CatPrivacy, true, http.StatusForbidden, ActionRequestConsent, "personal data without a valid consent"},
	ErrClassification: {CatPrivacy, false, http.StatusForbidden, "", "classification level not allowed"},
	ErrRateLimit:      {CatTransport, true, http.StatusTooManyRequests, ActionRetryAfter, "too many requests"},
	ErrTimeout:        {CatTransport, true, http.StatusGatewayTimeout, ActionRetry, "operation timed out"},
	ErrTaskFailed:     {CatExecution, false, http.StatusBadGateway, "", "task could not complete"},
	ErrInternal:       {CatExecution, true, http.StatusInternalServerError, ActionRetry, "internal error"},

	ErrAgentNotFound:        {CatValidation, false, http.StatusNotFound, "", "agent not found"},
	ErrCapabilityUnknown:    {CatValidation, false, http.StatusNotFound, "", "capability not known"},
	ErrRegistrationExpired:  {CatValidation, true, http.StatusGone, ActionRetry, "registration has expired: register again"},
	ErrRegistrationConflict: {CatAuth, false, http.StatusConflict, "", "agent id registered with a different key"},
	ErrVisibilityDenied:     {CatPrivacy, false, http.StatusForbidden, "", "agent not visible to the caller"},
	ErrRegistryUnavailable:  {CatTransport, true, http.StatusServiceUnavailable, ActionRetryAfter, "registry unavailable"},
	ErrRateLimitDiscovery:   {CatTransport, true, http.StatusTooManyRequests, ActionRetryAfter, "too many discovery queries"},
	ErrInvalidProfile:       {CatValidation, true, http.StatusBadRequest, ActionRetry, "profile fails validation"},

	ErrTooLarge:           {CatTransport, false, http.StatusRequestEntityTooLarge, "", "size limit exceeded"},
	ErrReplay:             {CatAuth, false, http.StatusUnauthorized, "", "message replayed or outside the time window"},
	ErrExpired:            {CatValidation, false, http.StatusBadRequest, "", "message has expired"},
	ErrSessionExpired:     {CatAuth, true, http.StatusUnauthorized, ActionHandshake, "session expired or unknown"},
	ErrPeerUnavailable:    {CatTransport, true, http.StatusServiceUnavailable, ActionRetryAfter, "peer gateway unavailable"},
	ErrStorageUnavailable: {CatTransport, true, http.StatusServiceUnavailable, ActionRetryAfter, "gateway storage unavailable"},
}

// Codes returns every known code.
func Codes() []Code {
	out := make([]Code, 0, len(codes))
	for c := range codes {
		out = append(out, c)
	}
	return out
}

// Known reports whether c is a code moltgate knows.
func (c Code) Known() bool { _, ok := codes[c]; return ok }

func (c Code) info() codeInfo {
	if i, ok := codes[c]; ok {
		return i
	}
	return codes[ErrInternal]
}

// Category returns the code's category; unknown codes are execution errors.
func (c Code) Category() Category { return c.info().cat }

// Recoverable reports whether the same request may succeed if retried,
// possibly after the suggested action.
func (c Code) Recoverable() bool { return c.info().recoverable }

// HTTPStatus is the status an HTTP face answers with for c.
func (c Code) HTTPStatus() int { return c.info().status }

// Text is a short description of the code.
func (c Code) Text() string { return c.info().text }

// Suggestion is the recovery hint of an error payload.
type Suggestion struct {
	Action     string   `json:"action" validate:"required"`
	DelayMS    int64    `json:"delay_ms,omitempty"`
	Capability string   `json:"capability,omitempty"`
	DataTypes  []string `json:"data_types,omitempty"`
	Fix        string   `json:"fix,omitempty"`
}

// String renders s for people: "request_consent for email",
// "retry_after after 250 ms", "request_capability tool.invoke".
func (s *Suggestion) String() string {
	b := []byte(s.Action)
	if s.Capability != "" {
		b = append(b, ' ')
		b = append(b, s.Capability...)
	}
	if len(s.DataTypes) > 0 {
		b = append(b, " for "...)
		b = append(b, strings.Join(s.DataTypes, ", ")...)
	}
	if s.DelayMS > 0 {
		b = append(b, " after "...)
		b = strconv.AppendInt(b, s.DelayMS, 10)
		b = append(b, " ms"...)
	}
	if s.Fix != "" {
		b = append(b, ": "...)
		b = append(b, s.Fix...)
	}
	return string(b)
}

// Error is a refusal with a protocol error code. It never holds the content
// that was refused: Message describes the rule that failed and Field names
// where, as a JSON path such as "p.params.location".
type Error struct {
	Code       Code
	Field      string
	Message    string
	Suggestion *Suggestion
	// Err is the underlying cause, for errors.Is/As; it is not sent.
	Err error
}

// Errorf makes an *Error with a formatted message.
func Errorf(code Code, field, format string, args ...any) *Error {
	return &Error{Code: code, Field: field, Message: fmt.Sprintf(format, args...)}
}

func (e *Error) Error() string {
	msg := e.Message
	if msg == "" {
		msg = e.Code.Text()
	}
	if e.Field != "" {
		return string(e.Code) + ": " + e.Field + ": " + msg
	}
	return string(e.Code) + ": " + msg
}

func (e *Error) Unwrap() error { return e.Err }

// StorageRetry is the wait a storage outage's refusal suggests.
const StorageRetry = time.Second

// StorageUnavailable is the refusal of a request that this gateway cannot
// answer because store, the storage it needs (the directory, the replay
// window, the consent records), failed with err: E_STORAGE_UNAVAILABLE with
// retry_after, whatever the backend. err stays in Err for the log, never in
// the answer.
func StorageUnavailable(store string, err error) *Error {
	return (&Error{Code: ErrStorageUnavailable, Message: "the " + store + "'s storage is failing: retry later", Err: err}).
		WithSuggestion(Suggestion{Action: ActionRetryAfter, DelayMS: StorageRetry.Milliseconds()})
}

// WithSuggestion returns e with s attached.
func (e *Error) WithSuggestion(s Suggestion) *Error { e.Suggestion = &s; return e }

// Payload builds the "error" operation's payload for e.
func (e *Error) Payload() *ErrorPayload {
	p := &ErrorPayload{
		Code:        e.Code,
		Category:    e.Code.Category(),
		Message:     e.Message,
		Field:       e.Field,
		Recoverable: e.Code.Recoverable(),
		Suggestion:  e.Suggestion,
	}
	if p.Message == "" {
		p.Message = e.Code.Text()
	}
	if p.Suggestion == nil && e.Code.info().action != "" {
		p.Suggestion = &Suggestion{Action: e.Code.info().action}
	}
	return p
}

// prefixField prepends a parent path to e.Field.
func (e *Error) prefixField(parent string) *Error {
	switch {
	case parent == "":
	case e.Field == "":
		e.Field = parent
	case e.Field[0] == '[':
		e.Field = parent + e.Field
	default:
		e.Field = parent + "." + e.Field
	}
	return e
}
