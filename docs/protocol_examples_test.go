// Package docs holds the project's documentation; its tests hold the
// examples of docs/protocol.md to the code that speaks the protocols.
package docs

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"reflect"
	"strings"
	"testing"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/moltgate/moltgate/localbridge"
	"github.com/moltgate/moltgate/localbridge/jsonrpc"
	"github.com/moltgate/moltgate/localbridge/osp"
)

// fenced returns the code blocks of protocol.md whose info string is info,
// with the line each starts on.
func fenced(t *testing.T, info string) (blocks []string, lines []int) {
	t.Helper()
	b, err := os.ReadFile("protocol.md")
	if err != nil {
		t.Fatal(err)
	}
	var cur *strings.Builder
	sc := bufio.NewScanner(bytes.NewReader(b))
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		switch {
		case cur == nil && line == "```"+info:
			cur = new(strings.Builder)
			lines = append(lines, n+1)
		case cur != nil && line == "```":
			blocks = append(blocks, cur.String())
			cur = nil
		case cur != nil:
			cur.WriteString(line + "\n")
		}
	}
	if cur != nil {
		t.Fatalf("protocol.md: the block at line %d is not closed", lines[len(lines)-1])
	}
	return blocks, lines
}

// agentPayload returns the payload type of each message of the agent socket.
func agentPayload(typ string) any {
	switch typ {
	case osp.TypeHello:
		return new(osp.Hello)
	case osp.TypeWelcome:
		return new(osp.Welcome)
	case osp.TypeGoodbye:
		return new(osp.Goodbye)
	case osp.TypeToolsRegister:
		return new(osp.ToolsRegister)
	case osp.TypeToolsRegistered:
		return new(osp.ToolsRegistered)
	case osp.TypeToolsUnregister:
		return new(osp.ToolsUnregister)
	case osp.TypeToolsUnregistered:
		return new(osp.ToolsUnregistered)
	case osp.TypeToolCall:
		return new(osp.ToolCall)
	case osp.TypeToolStream:
		return new(osp.ToolStream)
	case osp.TypeToolResult:
		return new(osp.ToolResult)
	case osp.TypeToolCancel:
		return new(osp.ToolCancel)
	case osp.TypeCancelAck:
		return new(osp.CancelAck)
	case osp.TypeHeartbeat:
		return new(osp.Heartbeat)
	case osp.TypeAgentUpdate, osp.TypeAgentUpdated:
		return new(osp.AgentUpdate)
	case osp.TypePing, osp.TypePong, osp.TypeError:
		return new(struct{})
	}
	return nil
}

// strict decodes b into v, refusing a member v has no field for: a name
// the documentation spells differently from the code.
func strict(b []byte, v any) error {
	return jsonv2.Unmarshal(b, v, jsonv2.RejectUnknownMembers(true))
}

// sameJSON reports whether a and b are the same JSON value.
func sameJSON(t *testing.T, a, b []byte) bool {
	t.Helper()
	var x, y any
	if err := json.Unmarshal(a, &x); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &y); err != nil {
		t.Fatal(err)
	}
	return reflect.DeepEqual(x, y)
}

// TestAgentSocketExamples decodes every example of the agent socket with the
// gateway's decoder, holds each member to a field of the code, and encodes
// it again to the same value: the examples are messages moltgate reads and
// writes as shown. Every message type has an example.
func TestAgentSocketExamples(t *testing.T) {
	blocks, lines := fenced(t, "json agent")
	seen := map[string]bool{}
	for i, text := range blocks {
		var frame bytes.Buffer
		if err := json.Compact(&frame, []byte(text)); err != nil {
			t.Errorf("line %d: not one JSON value: %v", lines[i], err)
			continue
		}
		env, err := osp.Decode(frame.Bytes())
		if err != nil {
			t.Errorf("line %d: the gateway's decoder refuses it: %v", lines[i], err)
			continue
		}
		seen[env.Type] = true
		payload := agentPayload(env.Type)
		if env.Error != nil {
			payload = new(struct{}) // a refusal's payload is empty, whatever its type
		}
		if payload == nil {
			t.Errorf("line %d: %s is not a message of the agent socket", lines[i], env.Type)
			continue
		}
		var whole struct {
			osp.Header
			Payload jsontext.Value `json:"payload"`
		}
		if err := strict(frame.Bytes(), &whole); err != nil {
			t.Errorf("line %d: envelope: %v", lines[i], err)
		}
		if err := strict(env.Payload, payload); err != nil {
			t.Errorf("line %d: %s payload: %v", lines[i], env.Type, err)
			continue
		}
		if err := env.DecodePayload(agentPayload(env.Type)); err != nil {
			t.Errorf("line %d: %s payload: %v", lines[i], env.Type, err)
		}
		again, err := osp.Marshal(&env.Header, reflect.ValueOf(payload).Elem().Interface())
		if err != nil {
			t.Errorf("line %d: encode: %v", lines[i], err)
			continue
		}
		if !sameJSON(t, again, frame.Bytes()) {
			t.Errorf("line %d: moltgate writes this message as\n%s\nnot\n%s", lines[i], again, frame.Bytes())
		}
	}
	for _, typ := range []string{osp.TypeHello, osp.TypeWelcome, osp.TypeGoodbye, osp.TypeToolsRegister,
		osp.TypeToolsRegistered, osp.TypeToolsUnregister, osp.TypeToolsUnregistered, osp.TypeToolCall,
		osp.TypeToolStream, osp.TypeToolResult, osp.TypeToolCancel, osp.TypeCancelAck, osp.TypeHeartbeat,
		osp.TypePing, osp.TypePong, osp.TypeError} {
		if !seen[typ] {
			t.Errorf("protocol.md has no example of %s", typ)
		}
	}
}

// rpcParams returns the parameter type of the methods and notifications
// whose parameters the face decodes into a type of its own, and of the
// results the client decodes so.
func rpcParams(method string) any {
	switch method {
	case localbridge.MethodInitialize:
		return new(localbridge.InitializeParams)
	case localbridge.MethodQuery:
		return new(localbridge.QueryRequest)
	case localbridge.MethodPing:
		return new(localbridge.PingRequest)
	case localbridge.MethodSync:
		return new(localbridge.SyncRequest)
	case localbridge.MethodConsentAsk:
		return new(localbridge.ConsentAsk)
	case localbridge.NotifyRequestApproval:
		return new(localbridge.ApprovalInfo)
	case localbridge.NotifyApprovalResolved:
		return new(localbridge.ApprovalResolved)
	case localbridge.NotifyToolProgress:
		return new(localbridge.ToolProgress)
	case localbridge.NotifyToolComplete:
		return new(localbridge.ToolComplete)
	case localbridge.NotifyThinking:
		return new(localbridge.Thinking)
	}
	return nil
}

func rpcResult(method string) any {
	switch method {
	case localbridge.MethodInitialize:
		return new(localbridge.InitializeResult)
	case localbridge.MethodConsentAsk:
		return new(localbridge.ConsentAnswer)
	}
	return nil
}

// TestRPCExamples reads every line of the JSON-RPC examples as the face and
// its client do, holds parameters and results to their types where the code
// has one, and checks that every method and notification has an example.
func TestRPCExamples(t *testing.T) {
	blocks, lines := fenced(t, "json rpc")
	methods := map[any]string{} // request id -> method, for the response that follows
	seen := map[string]bool{}
	for i, text := range blocks {
		for j, line := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
			at := lines[i] + j
			var m jsonrpc.Message
			if err := jsonrpc.Unmarshal([]byte(line), &m); err != nil || m.JSONRPC != jsonrpc.Version {
				t.Errorf("line %d: not a JSON-RPC 2.0 message: %v", at, err)
				continue
			}
			if m.Method != "" {
				reqs, errs, _ := jsonrpc.Parse([]byte(line))
				if len(errs) > 0 || len(reqs) != 1 {
					t.Errorf("line %d: the face refuses the request: %+v", at, errs)
					continue
				}
				seen[m.Method] = true
				if m.ID != nil {
					methods[string(m.ID)] = m.Method
				}
				if p := rpcParams(m.Method); p != nil {
					if err := strict(m.Params, p); err != nil {
						t.Errorf("line %d: %s params: %v", at, m.Method, err)
					}
				}
				continue
			}
			method, ok := methods[string(m.ID)]
			if !ok {
				t.Errorf("line %d: a response to no request above it", at)
				continue
			}
			if m.Error != nil {
				continue
			}
			if r := rpcResult(method); r != nil {
				if err := strict(m.Result, r); err != nil {
					t.Errorf("line %d: %s result: %v", at, method, err)
				}
			}
		}
	}
	for _, method := range []string{localbridge.MethodInitialize, localbridge.MethodQuery, localbridge.MethodCancel,
		localbridge.MethodPing, localbridge.MethodApprove, localbridge.MethodApprovalsList, localbridge.MethodDiscover,
		localbridge.MethodSync, localbridge.MethodConsentIssue, localbridge.MethodConsentAsk, localbridge.MethodContextUpdate,
		localbridge.NotifyToken, localbridge.NotifyBlock, localbridge.NotifyComplete, localbridge.NotifyError,
		localbridge.NotifyRequestApproval, localbridge.NotifyApprovalResolved, localbridge.MethodSessionSave,
		localbridge.MethodSessionLoad, localbridge.NotifyToolProgress, localbridge.NotifyToolComplete, localbridge.NotifyThinking,
		localbridge.MethodEventsSubscribe, localbridge.MethodEventsUnsubscribe, localbridge.NotifyEvent} {
		if !seen[method] {
			t.Errorf("protocol.md has no example of %s", method)
		}
	}
}
