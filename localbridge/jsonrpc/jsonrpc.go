// Package jsonrpc is JSON-RPC 2.0 over newline-delimited JSON, as the OpenAgent-Terminal IPC
// protocol frames it: one message per line, UTF-8. It holds the message types and error
// codes, a line reader that bounds message size, the decoding of a line into requests
// (single or batched) with the errors the specification prescribes, and a client connection
// that multiplexes calls and notifications.
package jsonrpc

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"
)

// Version is the value of every message's "jsonrpc" member.
const Version = "2.0"

// DefaultMaxMessageBytes is the default limit on one message (10 MiB, as the IPC protocol
// sets it).
const DefaultMaxMessageBytes = 10 << 20

// MaxDepth is how deeply arrays and objects may nest in one message.
const MaxDepth = 64

// Error codes: the JSON-RPC 2.0 ones and those of the IPC protocol.
const (
	CodeParseError       = -32700
	CodeInvalidRequest   = -32600
	CodeMethodNotFound   = -32601
	CodeInvalidParams    = -32602
	CodeInternalError    = -32603
	CodeAgentError       = -32000
	CodeModelError       = -32001
	CodeToolError        = -32002
	CodeTimeout          = -32003
	CodeCancelled        = -32004
	CodePermissionDenied = -32005
)

// Request is a request or, without ID, a notification.
type Request struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params,omitempty"`
}

// IsNotification reports whether the request expects no response.
func (r *Request) IsNotification() bool { return r.ID == nil }

// Response answers a request. ID is null when the request's id could not be read.
type Response struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *Error          `json:"error,omitempty"`
}

// Error is a JSON-RPC error object.
type Error struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

func (e *Error) Error() string { return fmt.Sprintf("jsonrpc error %d: %s", e.Code, e.Message) }

// Errorf returns an Error with code and a formatted message.
func Errorf(code int, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// Message is any message as received: a request, a notification or a response.
type Message struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *Error          `json:"error,omitempty"`
}

var null = json.RawMessage("null")

// Parse decodes one line sent by a client. It returns the requests it holds (one, or the
// members of a batch) and, for each member that is not a valid request, the error response
// it must be answered with, in order. batch reports whether the line was a batch, whose
// responses are sent together as one array. A line that is not JSON at all gives one parse
// error response.
func Parse(line []byte) (reqs []*Request, errs []*Response, batch bool) {
	line = bytes.TrimSpace(line)
	fail := func(id json.RawMessage, e *Error) []*Response {
		if id == nil {
			id = null
		}
		return []*Response{{JSONRPC: Version, ID: id, Error: e}}
	}
	// A line refused for its bytes or its depth is still answered under
	// its id when the id can be read: a client matches responses by id,
	// and one whose request is answered under null waits on for it.
	if !utf8.Valid(line) {
		return nil, fail(idOf(line), Errorf(CodeParseError, "the message is not valid UTF-8")), false
	}
	if !depthOK(line, MaxDepth) {
		return nil, fail(idOf(line), Errorf(CodeInvalidRequest, "the message nests deeper than %d levels", MaxDepth)), false
	}
	// Unmarshal checks the whole line before it decodes any of it, so the
	// line is only checked on its own when decoding fails, to tell a parse
	// error from an invalid request.
	notJSON := func() []*Response {
		return fail(nil, Errorf(CodeParseError, "the message is not valid JSON"))
	}
	if len(line) > 0 && line[0] == '[' {
		var members []json.RawMessage
		if err := Unmarshal(line, &members); err != nil {
			if !Valid(line) {
				return nil, notJSON(), false
			}
			return nil, fail(nil, Errorf(CodeParseError, "the batch cannot be read")), true
		}
		if len(members) == 0 {
			return nil, fail(nil, Errorf(CodeInvalidRequest, "the batch is empty")), false
		}
		for _, m := range members {
			r, e := decodeRequest(m)
			if e != nil {
				errs = append(errs, e)
			} else {
				reqs = append(reqs, r)
			}
		}
		return reqs, errs, true
	}
	r, e := decodeRequest(line)
	if e != nil {
		if !Valid(line) {
			return nil, notJSON(), false
		}
		return nil, []*Response{e}, false
	}
	return []*Request{r}, nil, false
}

// idOf reads the id of a request object that cannot be taken whole: the
// last valid "id" member found before the object ends or stops making
// sense, or nil. It reads member by member and skips the values of the
// others, so an invalid string or a deep value elsewhere does not hide it;
// an id that is itself not valid UTF-8 is not one.
func idOf(line []byte) json.RawMessage {
	dec := jsontext.NewDecoder(bytes.NewReader(line), jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
	if tok, err := dec.ReadToken(); err != nil || tok.Kind() != '{' {
		return nil
	}
	var id json.RawMessage
	for {
		name, err := dec.ReadToken()
		if err != nil || name.Kind() != '"' {
			return id
		}
		if name.String() != "id" {
			if dec.SkipValue() != nil {
				return id
			}
			continue
		}
		v, err := dec.ReadValue()
		if err != nil {
			return id
		}
		if validID(json.RawMessage(v)) && utf8.Valid(v) {
			id = json.RawMessage(bytes.Clone(v))
		}
	}
}

// requestMembers are the members of a request object that are checked.
// Names match exactly, as JSON-RPC spells them, and of a name given twice
// the last counts. A jsontext.Value is nil when its member is absent and
// holds the member's text as sent otherwise, null included.
type requestMembers struct {
	JSONRPC jsontext.Value `json:"jsonrpc"`
	ID      jsontext.Value `json:"id"`
	Method  jsontext.Value `json:"method"`
	Params  jsontext.Value `json:"params"`
	Result  jsontext.Value `json:"result"`
}

// decodeRequest checks one request object. It reads the object once: the
// members it checks are copied out as they are read, and the rest skipped.
func decodeRequest(b []byte) (*Request, *Response) {
	var m requestMembers
	if err := unmarshalMembers(b, &m); err != nil {
		return nil, &Response{JSONRPC: Version, ID: null, Error: Errorf(CodeInvalidRequest, "a request is a JSON object")}
	}
	id, hasID := json.RawMessage(m.ID), m.ID != nil
	if hasID && !validID(id) {
		return nil, &Response{JSONRPC: Version, ID: null, Error: Errorf(CodeInvalidRequest, "id must be a string, a number or null")}
	}
	respID := id
	if !hasID {
		respID = null
	}
	bad := func(msg string) (*Request, *Response) {
		return nil, &Response{JSONRPC: Version, ID: respID, Error: Errorf(CodeInvalidRequest, "%s", msg)}
	}
	if version, ok := stringOf(m.JSONRPC); !ok || version != Version {
		return bad(`jsonrpc must be "2.0"`)
	}
	method, ok := stringOf(m.Method)
	if !ok || method == "" {
		return bad("method must be a non-empty string")
	}
	if m.Result != nil {
		return bad("a request carries no result")
	}
	params := json.RawMessage(m.Params)
	if p := bytes.TrimSpace(params); len(p) > 0 && p[0] != '{' && p[0] != '[' {
		return bad("params must be an object or an array")
	}
	r := &Request{JSONRPC: Version, Method: method, Params: params}
	if hasID {
		r.ID = id
	}
	return r, nil
}

// stringOf returns the string a member holds, and false if it holds
// something else or is absent.
func stringOf(v jsontext.Value) (string, bool) {
	if len(v) < 2 || v[0] != '"' {
		return "", false
	}
	if inner := v[1 : len(v)-1]; bytes.IndexByte(inner, '\\') < 0 {
		return string(inner), true // no escapes: the text is the string
	}
	var s string
	if Unmarshal(v, &s) != nil {
		return "", false
	}
	return s, true
}

func validID(id json.RawMessage) bool {
	id = bytes.TrimSpace(id)
	if len(id) == 0 {
		return false
	}
	switch id[0] {
	case '"', 'n':
		return true
	case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		return len(id) <= 32
	}
	return false
}

// depthOK reports whether arrays and objects in the JSON text b nest at most max levels.
func depthOK(b []byte, max int) bool {
	depth := 0
	for i := 0; i < len(b); i++ {
		switch b[i] {
		case '"':
			for i++; i < len(b); i++ {
				if b[i] == '\\' {
					i++
				} else if b[i] == '"' {
					break
				}
			}
		case '[', '{':
			depth++
			if depth > max {
				return false
			}
		case ']', '}':
			depth--
		}
	}
	return true
}

// Marshal encodes v as one line, newline included. JSON never holds a raw newline, so the
// line cannot be split.
func Marshal(v any) ([]byte, error) {
	b, err := MarshalValue(v)
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// MarshalResponse encodes r as one line, as Marshal does, but for a
// successful response whose Result came from MarshalValue (and so is
// compact, checked JSON) it writes the id and result as they are, where
// Marshal would check and compact them a second time. r.ID must be an id
// as Parse returns it.
func MarshalResponse(r *Response) ([]byte, error) {
	id := bytes.TrimSpace(r.ID)
	if r.Error != nil || len(r.Result) == 0 || len(id) == 0 || bytes.ContainsAny(id, "<>&\u2028\u2029") {
		return Marshal(r) // Marshal escapes those for HTML in strings
	}
	b := make([]byte, 0, len(`{"jsonrpc":"2.0","id":,"result":}`)+len(id)+len(r.Result)+1)
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	b = append(b, id...)
	b = append(b, `,"result":`...)
	b = append(b, r.Result...)
	return append(b, "}\n"...), nil
}

// Result encodes a method's result for a Response.
func Result(v any) (json.RawMessage, error) {
	if raw, ok := v.(json.RawMessage); ok {
		return raw, nil
	}
	return MarshalValue(v)
}

// ErrMessageTooLarge is returned by Reader for a line over its limit.
var ErrMessageTooLarge = errors.New("jsonrpc: message too large")
