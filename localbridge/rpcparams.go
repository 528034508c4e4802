package localbridge

import (
	"encoding/json"
	"regexp"

	"github.com/moltgate/moltgate/localbridge/jsonrpc"
)

var (
	addressPattern = regexp.MustCompile(`^[A-Za-z0-9_-]{1,128}(@[A-Za-z0-9_-]{1,128})?$`)
	namePattern    = regexp.MustCompile(`^[A-Za-z0-9_-]{1,128}$`)
	capPattern     = regexp.MustCompile(`^[A-Za-z0-9*][A-Za-z0-9._*-]{0,127}$`)
	typePattern    = regexp.MustCompile(`^[a-z][a-z0-9_]{0,31}$`)
	classes        = []string{"pub", "int", "conf", "pii", "sec", "public", "internal", "confidential", "secret"}
)

// decodeParams decodes named parameters. Unknown members are ignored, as the IPC protocol's
// clients send more than any one server uses.
func decodeParams(raw json.RawMessage, v any) *jsonrpc.Error {
	if len(raw) == 0 {
		raw = json.RawMessage("{}")
	}
	if raw[0] != '{' {
		return invalidParams("", "params must be an object")
	}
	if err := jsonrpc.Unmarshal(raw, v); err != nil {
		if jsonrpc.IsTypeError(err) {
			return invalidParams(jsonrpc.FieldOf(err), "a parameter has the wrong type")
		}
		return invalidParams("", "params cannot be read")
	}
	return nil
}

func invalidParams(field, msg string) *jsonrpc.Error {
	e := &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: msg}
	if field != "" {
		e.Data, _ = json.Marshal(map[string]string{"field": field})
	}
	return e
}

// RPCErrorCode maps a MoltSpeak error code to the face's JSON-RPC error code:
//
//	E_PARSE, E_VERSION, E_SCHEMA, E_MISSING_FIELD, E_INVALID_PARAM,
//	E_TOO_LARGE, E_CAPABILITY_UNKNOWN, E_INVALID_PROFILE               -32602 invalid params
//	E_AUTH_FAILED, E_SIGNATURE, E_CAPABILITY, E_CONSENT,
//	E_CLASSIFICATION, E_VISIBILITY_DENIED, E_REPLAY, E_EXPIRED         -32005 permission denied
//	E_TIMEOUT                                                          -32003 timeout
//	E_TASK_FAILED                                                      -32002 tool error
//	E_INTERNAL                                                         -32603 internal error
//	anything else (E_AGENT_NOT_FOUND, E_RATE_LIMIT, E_PEER_UNAVAILABLE,
//	E_REGISTRY_UNAVAILABLE, E_SESSION_EXPIRED, ...)                    -32000 agent error
//
// A cancelled call is -32004, whatever its code.
func RPCErrorCode(moltspeakCode string) int {
	switch moltspeakCode {
	case "E_PARSE", "E_VERSION", "E_SCHEMA", "E_MISSING_FIELD", "E_INVALID_PARAM", "E_TOO_LARGE", "E_CAPABILITY_UNKNOWN", "E_INVALID_PROFILE":
		return jsonrpc.CodeInvalidParams
	case "E_AUTH_FAILED", "E_SIGNATURE", "E_CAPABILITY", "E_CONSENT", "E_CLASSIFICATION", "E_VISIBILITY_DENIED", "E_REPLAY", "E_EXPIRED":
		return jsonrpc.CodePermissionDenied
	case "E_TIMEOUT":
		return jsonrpc.CodeTimeout
	case "E_TASK_FAILED":
		return jsonrpc.CodeToolError
	case "E_INTERNAL":
		return jsonrpc.CodeInternalError
	}
	return jsonrpc.CodeAgentError
}

// rpcErrorData is the data of the face's errors: what a MoltSpeak-aware client needs.
type rpcErrorData struct {
	MoltSpeakCode string          `json:"moltspeak_code,omitempty"`
	Field         string          `json:"field,omitempty"`
	Recoverable   bool            `json:"recoverable,omitempty"`
	Status        string          `json:"status,omitempty"`
	Suggestion    json.RawMessage `json:"suggestion,omitempty"`
}

func (s *RPCServer) errorFor(err error) *jsonrpc.Error {
	o := s.cfg.ErrorOutcome(err)
	code := RPCErrorCode(o.Code)
	switch o.Status {
	case OutcomeCancelled:
		code = jsonrpc.CodeCancelled
	case OutcomeTimeout:
		code = jsonrpc.CodeTimeout
	}
	msg := o.Message
	if msg == "" {
		msg = "the request failed"
	}
	e := &jsonrpc.Error{Code: code, Message: msg}
	e.Data, _ = json.Marshal(rpcErrorData{MoltSpeakCode: o.Code, Field: o.Field, Recoverable: o.Recoverable, Status: o.Status, Suggestion: o.Suggestion})
	return e
}
