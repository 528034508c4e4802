package localbridge_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/moltgate/moltgate/localbridge"
	"github.com/moltgate/moltgate/localbridge/agent"
	"github.com/moltgate/moltgate/localbridge/jsonrpc"
)

func TestRPCQueryStream(t *testing.T) {
	f := newFace(t, nil)
	r := f.raw(t, true)
	r.line(`{"jsonrpc":"2.0","id":"q","method":"agent.query","params":{"to":"echo@acme","tool":"echo","input":{"text":"hi","repeat":3},"context":{"cwd":"/"},"options":{"stream":true}}}`)
	m := r.msg()
	var started struct {
		QueryID string `json:"query_id"`
		Status  string `json:"status"`
	}
	json.Unmarshal(m.Result, &started)
	if string(m.ID) != `"q"` || !strings.HasPrefix(started.QueryID, "q-") || started.Status != "processing" {
		t.Fatalf("response %+v", m)
	}
	for i := range 3 {
		m := r.msg()
		var p struct {
			QueryID string `json:"query_id"`
			Token   string `json:"token"`
			Index   int    `json:"index"`
		}
		json.Unmarshal(m.Params, &p)
		if m.Method != "stream.token" || p.QueryID != started.QueryID || p.Token != "hi" || p.Index != i {
			t.Fatalf("token %d: %s %s", i, m.Method, m.Params)
		}
	}
	// A tool call's end comes first, then the query's.
	m = r.msg()
	var tc struct {
		ExecutionID string `json:"execution_id"`
		QueryID     string `json:"query_id"`
		Tool        string `json:"tool"`
		Status      string `json:"status"`
	}
	json.Unmarshal(m.Params, &tc)
	if m.Method != "tool.complete" || tc.ExecutionID != started.QueryID || tc.QueryID != started.QueryID || tc.Tool != "echo" || tc.Status != "success" {
		t.Fatalf("tool complete %s %s", m.Method, m.Params)
	}
	m = r.msg()
	var done struct {
		QueryID  string          `json:"query_id"`
		Status   string          `json:"status"`
		Result   json.RawMessage `json:"result"`
		Metadata struct {
			Tokens int `json:"tokens"`
		} `json:"metadata"`
	}
	json.Unmarshal(m.Params, &done)
	if m.Method != "stream.complete" || done.Status != "success" || string(done.Result) != `{"text":"hi"}` || done.Metadata.Tokens != 3 {
		t.Fatalf("complete %s %s", m.Method, m.Params)
	}

	// The Go client assembles the same, and a query without a tool goes to the agent's query tool.
	c := f.dial(t, localbridge.ClientOptions{})
	var got []string
	res, err := c.Query(context.Background(), localbridge.QueryRequest{To: "echo", Input: json.RawMessage(`{"text":"yo","repeat":2}`)}, func(e localbridge.StreamEvent) error {
		got = append(got, e.Channel+":"+e.Text)
		return nil
	})
	if err != nil || string(res) != `{"text":"yo"}` || strings.Join(got, ",") != "stdout:yo,stdout:yo" {
		t.Fatalf("%s %v %v", res, got, err)
	}
	if _, err := c.Query(context.Background(), localbridge.QueryRequest{To: "echo", Message: "no input"}, nil); err == nil {
		t.Fatal("the echo tool accepted a message without text")
	}
}

// partialAgent streams partial results, to see stream.block.
func partialAgent() *agent.Agent {
	a := &agent.Agent{}
	a.Add(agent.Tool{Name: "progress", Handler: func(ctx context.Context, c *agent.Call) (any, error) {
		for i := range 3 {
			if err := c.Partial(map[string]int{"done": i}); err != nil {
				return nil, err
			}
		}
		c.Status("finishing")
		return map[string]bool{"ok": true}, nil
	}})
	return a
}

func TestRPCQueryBlocksAndOrder(t *testing.T) {
	f := newFace(t, nil)
	f.runAgent(t, "prog", partialAgent())
	c := f.dial(t, localbridge.ClientOptions{})
	var events []localbridge.StreamEvent
	res, err := c.Query(context.Background(), localbridge.QueryRequest{To: "prog@acme", Tool: "progress"}, func(e localbridge.StreamEvent) error {
		events = append(events, e)
		return nil
	})
	if err != nil || string(res) != `{"ok":true}` || len(events) != 4 {
		t.Fatalf("%s %+v %v", res, events, err)
	}
	for i := range 3 {
		if string(events[i].Block) != fmt.Sprintf(`{"done":%d}`, i) || events[i].Channel != "partial_result" {
			t.Fatalf("block %d: %+v", i, events[i])
		}
	}
	if events[3].Text != "finishing" || events[3].Channel != "status" {
		t.Fatalf("status %+v", events[3])
	}

	// Many events to a slow reader arrive complete and in order.
	const n = 1000
	count := 0
	_, err = c.Query(context.Background(), localbridge.QueryRequest{To: "echo", Tool: "echo", Input: json.RawMessage(fmt.Sprintf(`{"text":"%s","repeat":%d}`, strings.Repeat("p", 300), n))},
		func(e localbridge.StreamEvent) error {
			count++
			if count%200 == 0 {
				time.Sleep(5 * time.Millisecond)
			}
			return nil
		})
	if err != nil || count != n {
		t.Fatalf("%d events, %v", count, err)
	}
}

func TestRPCQueryErrors(t *testing.T) {
	f := newFace(t, nil)
	c := f.dial(t, localbridge.ClientOptions{})
	ctx := context.Background()
	cases := []struct {
		name   string
		req    localbridge.QueryRequest
		code   int
		ms     string
		field  string
		status string
	}{
		{"invalid input", localbridge.QueryRequest{To: "echo@acme", Tool: "echo", Input: json.RawMessage(`{"repeat":1}`)}, jsonrpc.CodeInvalidParams, "E_INVALID_PARAM", "text", "error"},
		{"unknown agent", localbridge.QueryRequest{To: "ghost@acme", Tool: "echo", Input: json.RawMessage(`{}`)}, jsonrpc.CodeAgentError, "E_AGENT_NOT_FOUND", "", "error"},
		{"other organisation", localbridge.QueryRequest{To: "echo@beta", Tool: "echo", Input: json.RawMessage(`{}`)}, jsonrpc.CodeAgentError, "E_AGENT_NOT_FOUND", "", "error"},
		{"tool failure", localbridge.QueryRequest{To: "echo", Tool: "fail", Input: json.RawMessage(`{"code":"tool.broken"}`)}, jsonrpc.CodeToolError, "E_TASK_FAILED", "", "error"},
		{"timeout", localbridge.QueryRequest{To: "echo", Tool: "sleep", Input: json.RawMessage(`{"ms":600000}`), TimeoutMS: 50}, jsonrpc.CodeTimeout, "E_TIMEOUT", "", "timeout"},
		{"unknown tool", localbridge.QueryRequest{To: "echo", Tool: "nope", Input: json.RawMessage(`{}`)}, jsonrpc.CodeInvalidParams, "E_INVALID_PARAM", "tool", "error"},
	}
	for _, tc := range cases {
		_, err := c.Query(ctx, tc.req, nil)
		var re *localbridge.RPCError
		if !errors.As(err, &re) || re.Code != tc.code || re.MoltSpeakCode != tc.ms || re.Field != tc.field || re.Status != tc.status {
			t.Errorf("%s: got %#v", tc.name, err)
		}
	}
	params := []struct{ params, field string }{
		{`{"tool":"echo"}`, "to"},
		{`{"to":"a b","tool":"echo"}`, "to"},
		{`{"to":"echo","tool":"x y"}`, "tool"},
		{`{"to":"echo","input":[1]}`, "input"},
		{`{"to":"echo"}`, "message"},
		{`{"to":"echo","message":"m","cls":"top-secret"}`, "cls"},
		{`{"to":"echo","message":"m","timeout_ms":-1}`, "timeout_ms"},
		{`{"to":"echo","message":"m","from":"x@y"}`, "from"},
		{`{"to":7}`, "to"},
		{`[1]`, ""},
	}
	r := f.raw(t, true)
	for i, p := range params {
		r.line(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"agent.query","params":%s}`, i, p.params))
		m := r.msg()
		if m.Error == nil || m.Error.Code != jsonrpc.CodeInvalidParams {
			t.Errorf("%s: %+v", p.params, m)
			continue
		}
		if got, _ := errData(t, m.Error)["field"].(string); got != p.field {
			t.Errorf("%s: field %q, want %q", p.params, got, p.field)
		}
	}
}

func TestRPCCancel(t *testing.T) {
	f := newFace(t, nil)
	c := f.dial(t, localbridge.ClientOptions{})
	other := f.dial(t, localbridge.ClientOptions{})
	r := f.raw(t, true)
	r.line(`{"jsonrpc":"2.0","id":1,"method":"agent.query","params":{"to":"echo","tool":"sleep","input":{"ms":600000}}}`)
	var started struct {
		QueryID string `json:"query_id"`
	}
	json.Unmarshal(r.msg().Result, &started)
	waitFor(t, "call running", func() bool { a, _ := f.core.Agent("echo"); return a.InFlight == 1 })
	// Cancelled from another connection.
	if err := other.Cancel(context.Background(), started.QueryID); err != nil {
		t.Fatal(err)
	}
	var m jsonrpc.Message
	for m = r.msg(); m.Method == "stream.token" || m.Method == "tool.progress"; m = r.msg() {
	}
	var done struct{ Status string }
	json.Unmarshal(m.Params, &done)
	if m.Method != "tool.complete" || done.Status != "cancelled" {
		t.Fatalf("got %s %s", m.Method, m.Params)
	}
	m = r.msg()
	json.Unmarshal(m.Params, &done)
	if m.Method != "stream.complete" || done.Status != "cancelled" {
		t.Fatalf("got %s %s", m.Method, m.Params)
	}
	waitFor(t, "agent idle", func() bool { a, _ := f.core.Agent("echo"); return a.InFlight == 0 })
	var re *localbridge.RPCError
	if err := other.Cancel(context.Background(), started.QueryID); !errors.As(err, &re) || re.Code != jsonrpc.CodeInvalidParams || re.Field != "query_id" {
		t.Fatalf("cancel of a finished query: %v", err)
	}

	// The client's context ending cancels at the face, and the agent stops.
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		_, err := c.Query(ctx, localbridge.QueryRequest{To: "echo", Tool: "sleep", Input: json.RawMessage(`{"ms":600000}`)}, nil)
		errc <- err
	}()
	waitFor(t, "call running", func() bool { a, _ := f.core.Agent("echo"); return a.InFlight == 1 })
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v", err)
	}
	waitFor(t, "agent idle", func() bool { a, _ := f.core.Agent("echo"); return a.InFlight == 0 })

	// A closed connection cancels its queries too.
	r2 := f.raw(t, true)
	r2.line(`{"jsonrpc":"2.0","id":1,"method":"agent.query","params":{"to":"echo","tool":"sleep","input":{"ms":600000}}}`)
	r2.msg()
	waitFor(t, "call running", func() bool { a, _ := f.core.Agent("echo"); return a.InFlight == 1 })
	r2.conn.Close()
	waitFor(t, "agent idle", func() bool { a, _ := f.core.Agent("echo"); return a.InFlight == 0 })
}

// fixedResult is a Querier that answers every query with the same result.
type fixedResult json.RawMessage

func (r fixedResult) Query(context.Context, localbridge.QueryRequest, func(localbridge.StreamEvent) error) (json.RawMessage, error) {
	return json.RawMessage(r), nil
}

// TestRPCQueryResultShapes: a result is passed to the client as it is when
// it is one line of JSON, compacted when it spans lines, and refused with
// stream.error when it is not JSON, so that a bad result cannot break the
// client's line framing.
func TestRPCQueryResultShapes(t *testing.T) {
	for _, tc := range []struct{ result, want string }{
		{`{"a":[1,"x"]}`, `{"a":[1,"x"]}`},
		{"{\n  \"a\": [1,\n \"x\"]\n}", `{"a":[1,"x"]}`},
		{``, `{}`},
	} {
		f := newFace(t, func(c *localbridge.RPCConfig) { c.Query = fixedResult(tc.result) })
		got, err := f.dial(t, localbridge.ClientOptions{}).Query(context.Background(), localbridge.QueryRequest{To: "echo", Tool: "echo", Input: json.RawMessage(`{}`)}, nil)
		if err != nil || string(got) != tc.want {
			t.Errorf("result %q: got %s, %v; want %s", tc.result, got, err, tc.want)
		}
	}
	f := newFace(t, func(c *localbridge.RPCConfig) { c.Query = fixedResult(`{"a":`) })
	_, err := f.dial(t, localbridge.ClientOptions{}).Query(context.Background(), localbridge.QueryRequest{To: "echo", Tool: "echo", Input: json.RawMessage(`{}`)}, nil)
	var re *localbridge.RPCError
	if !errors.As(err, &re) {
		t.Fatalf("invalid result: got %v, want an RPCError", err)
	}
}
