package localbridge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/moltgate/moltgate/localbridge/osp"
)

// Codes the Core itself gives a failed call, next to the tool.* codes an agent reports and the
// protocol.* codes of an agent that broke the protocol.
const (
	CodeUnknownAgent     = "core.unknown_agent"     // no agent of that id is configured
	CodeAgentUnavailable = "core.agent_unavailable" // not connected, or unhealthy
	CodeUnknownTool      = "core.unknown_tool"      // the agent has registered no such tool
	CodeOverloaded       = "core.overloaded"        // too many calls waiting for the agent
	CodeApprovalDenied   = "core.approval_denied"   // a human refused, or nobody answered in time
	CodeDisconnected     = "core.agent_disconnected"
	CodeTimeout          = "core.timeout" // the caller's deadline passed
	CodeShuttingDown     = "core.shutting_down"
	CodeTaskExists       = "core.task_exists"
	CodeInternal         = "core.internal"
)

// Error is a failed call. Code is an OpenSentience error code (see the constants above and
// package osp). Message is safe to show: it never holds the rejected input or a secret.
type Error struct {
	Code      string
	Message   string
	Field     string // for tool.invalid_input: the offending field as a dotted path ("items.0.name"); "" for the input as a whole
	Retryable bool
	Where     string // "core" or "agent": who decided the failure
	Err       error  // the underlying cause, if any
}

func (e *Error) Error() string {
	s := e.Code
	if e.Field != "" {
		s += " (" + e.Field + ")"
	}
	if e.Message != "" {
		s += ": " + e.Message
	}
	return s
}

func (e *Error) Unwrap() error { return e.Err }

func coreErr(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...), Where: "core"}
}

// agentErr turns the error object an agent sent into an *Error.
func agentErr(e *osp.Error, fallback string) *Error {
	if e == nil || e.Code == "" {
		return &Error{Code: fallback, Message: "the tool reported no error detail", Where: "agent"}
	}
	msg := e.Message
	if len(msg) > 1024 {
		msg = msg[:1024]
	}
	return &Error{Code: e.Code, Message: msg, Retryable: e.Retryable, Where: "agent"}
}

// MoltSpeak error codes a call's failure maps to. They are the codes of the MoltSpeak
// protocol's error table and of its discovery extension.
const (
	msInvalidParam  = "E_INVALID_PARAM"
	msTimeout       = "E_TIMEOUT"
	msTaskFailed    = "E_TASK_FAILED"
	msCapability    = "E_CAPABILITY"
	msAgentNotFound = "E_AGENT_NOT_FOUND"
	msRateLimit     = "E_RATE_LIMIT"
	msInternal      = "E_INTERNAL"
)

// Statuses of an Outcome. They are also the statuses of the JSON-RPC stream.complete
// notification.
const (
	OutcomeSuccess   = "success"
	OutcomeError     = "error"
	OutcomeCancelled = "cancelled"
	OutcomeTimeout   = "timeout"
)

// Outcome is how the end of a call is told in MoltSpeak terms.
type Outcome struct {
	Status      string // OutcomeSuccess, OutcomeError, OutcomeCancelled or OutcomeTimeout
	Code        string // MoltSpeak error code; empty for success and for a cancelled call
	Field       string // the offending input field, for E_INVALID_PARAM
	Recoverable bool   // a retry may succeed
	Message     string // safe text
	// Suggestion is the error's recovery hint, as the MoltSpeak error
	// payload carries it ({"action":"retry_after","delay_ms":…},
	// {"action":"request_consent","data_types":[…]}); nil if none.
	Suggestion json.RawMessage
}

// OutcomeOf maps the error a call returned to its MoltSpeak outcome, following one table:
//
//	nil                                   success
//	tool.canceled, context.Canceled       cancelled (a status, not an error code)
//	tool.invalid_input                    E_INVALID_PARAM (with the field)
//	core.unknown_tool                     E_INVALID_PARAM (field "tool")
//	tool.timeout, core.timeout,
//	context.DeadlineExceeded              E_TIMEOUT
//	core.approval_denied                  E_CAPABILITY
//	core.unknown_agent                    E_AGENT_NOT_FOUND
//	core.overloaded                       E_RATE_LIMIT (recoverable)
//	core.internal                         E_INTERNAL
//	any other *Error                      E_TASK_FAILED
//	any other error                       E_INTERNAL
func OutcomeOf(err error) Outcome {
	if err == nil {
		return Outcome{Status: OutcomeSuccess}
	}
	var e *Error
	if !errors.As(err, &e) {
		switch {
		case errors.Is(err, context.Canceled):
			return Outcome{Status: OutcomeCancelled, Message: "the call was cancelled"}
		case errors.Is(err, context.DeadlineExceeded):
			return Outcome{Status: OutcomeTimeout, Code: msTimeout, Recoverable: true, Message: "the call timed out"}
		}
		return Outcome{Status: OutcomeError, Code: msInternal, Message: "internal error"}
	}
	o := Outcome{Status: OutcomeError, Recoverable: e.Retryable, Message: e.Message}
	switch e.Code {
	case osp.CodeToolCanceled:
		o.Status, o.Code = OutcomeCancelled, ""
	case osp.CodeInvalidInput:
		o.Code, o.Field = msInvalidParam, e.Field
	case CodeUnknownTool:
		o.Code, o.Field = msInvalidParam, "tool"
	case osp.CodeToolTimeout, CodeTimeout:
		o.Status, o.Code, o.Recoverable = OutcomeTimeout, msTimeout, true
	case CodeApprovalDenied:
		o.Code = msCapability
	case CodeUnknownAgent:
		o.Code = msAgentNotFound
	case CodeOverloaded:
		o.Code, o.Recoverable = msRateLimit, true
	case CodeInternal:
		o.Code = msInternal
	default:
		o.Code = msTaskFailed
	}
	return o
}

// MoltSpeakCode returns the MoltSpeak error code for err: OutcomeOf(err).Code. It is empty for
// nil and for a cancelled call, which is answered with a cancelled status instead.
func MoltSpeakCode(err error) string { return OutcomeOf(err).Code }

// IsCanceled reports whether err means the call was cancelled.
func IsCanceled(err error) bool { return OutcomeOf(err).Status == OutcomeCancelled }
