package localbridge_test

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/moltgate/moltgate/localbridge"
	"github.com/moltgate/moltgate/localbridge/agent"
	"github.com/moltgate/moltgate/localbridge/agent/echo"
	"github.com/moltgate/moltgate/localbridge/jsonrpc"
)

// testIssuer signs consent tokens with its own key, in the token format of the design.
type testIssuer struct{ key ed25519.PrivateKey }

func (i testIssuer) IssueConsent(ctx context.Context, req localbridge.ConsentRequest) (string, error) {
	claims, err := json.Marshal(map[string]any{
		"issuer":  "ed25519:" + base64.StdEncoding.EncodeToString(i.key.Public().(ed25519.PublicKey)),
		"grantee": req.Grantee, "purpose": req.Purpose, "data_types": req.DataTypes,
		"expires": time.Now().Add(req.TTL).UnixMilli(),
	})
	if err != nil {
		return "", err
	}
	return "consent-token:" + base64.RawURLEncoding.EncodeToString(claims) + "." + base64.RawURLEncoding.EncodeToString(ed25519.Sign(i.key, claims)), nil
}

type face struct {
	*bridge
	rpcPath   string
	server    *localbridge.RPCServer
	approvals *localbridge.Approvals
	issuer    testIssuer
}

// newFace starts a Core with the echo agent and the JSON-RPC face in front of it, served by
// the Core through Local: every request crosses both real sockets.
func newFace(t testing.TB, mod func(*localbridge.RPCConfig)) *face {
	t.Helper()
	approvals := &localbridge.Approvals{}
	b := newBridge(t, localbridge.Config{Approver: approvals})
	b.runAgent(t, "echo", echo.New(), localbridge.AgentSpec{QueryTool: "echo"})
	_, key, _ := ed25519.GenerateKey(nil)
	f := &face{bridge: b, approvals: approvals, issuer: testIssuer{key}}
	local := &localbridge.Local{Core: b.core, Org: "acme"}
	cfg := localbridge.RPCConfig{Query: local, Directory: local, Ping: local, Consent: f.issuer, Approvals: approvals, Logger: b.core.Config().Logger}
	if mod != nil {
		mod(&cfg)
	}
	f.rpcPath = filepath.Join(b.dir, "rpc.sock")
	l, err := localbridge.ListenUnix(f.rpcPath)
	if err != nil {
		t.Fatal(err)
	}
	f.server = localbridge.NewRPCServer(cfg)
	served := make(chan error, 1)
	go func() { served <- f.server.Serve(l) }()
	t.Cleanup(func() {
		f.server.Close()
		if err := <-served; err != localbridge.ErrServerClosed {
			t.Errorf("Serve returned %v", err)
		}
	})
	return f
}

func (f *face) dial(t testing.TB, opts localbridge.ClientOptions) *localbridge.Client {
	t.Helper()
	c, err := localbridge.Dial(context.Background(), f.rpcPath, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// rawRPC writes lines and reads messages, to see the face's exact output.
type rawRPC struct {
	t    testing.TB
	conn net.Conn
	r    *jsonrpc.Reader
}

func (f *face) raw(t testing.TB, initialize bool) *rawRPC {
	t.Helper()
	c, err := net.Dial("unix", f.rpcPath)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	r := &rawRPC{t: t, conn: c, r: jsonrpc.NewReader(c, 0)}
	if initialize {
		r.line(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocol_version":"1.0.0","client_info":{"name":"raw","version":"0"}}}`)
		if m := r.msg(); m.Error != nil {
			t.Fatalf("initialize: %v", m.Error)
		}
	}
	return r
}

func (r *rawRPC) line(s string) {
	r.t.Helper()
	r.conn.SetWriteDeadline(time.Now().Add(10 * time.Second))
	if _, err := r.conn.Write([]byte(s + "\n")); err != nil {
		r.t.Fatal(err)
	}
}

func (r *rawRPC) readLine() ([]byte, error) {
	r.conn.SetReadDeadline(time.Now().Add(20 * time.Second))
	return r.r.ReadLine()
}

func (r *rawRPC) msg() jsonrpc.Message {
	r.t.Helper()
	b, err := r.readLine()
	if err != nil {
		r.t.Fatalf("read: %v", err)
	}
	var m jsonrpc.Message
	if err := json.Unmarshal(b, &m); err != nil {
		r.t.Fatalf("%s: %v", b, err)
	}
	return m
}

func errData(t testing.TB, e *jsonrpc.Error) map[string]any {
	t.Helper()
	var d map[string]any
	if len(e.Data) > 0 {
		json.Unmarshal(e.Data, &d)
	}
	return d
}

func TestRPCInitialize(t *testing.T) {
	f := newFace(t, nil)
	r := f.raw(t, false)
	r.line(`{"jsonrpc":"2.0","id":1,"method":"agent.ping","params":{"agent":"echo"}}`)
	if m := r.msg(); m.Error == nil || m.Error.Code != jsonrpc.CodeInvalidRequest || string(m.ID) != "1" {
		t.Fatalf("before initialize: %+v", m)
	}
	r.line(`{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocol_version":"2.0.0"}}`)
	if m := r.msg(); m.Error == nil || m.Error.Code != jsonrpc.CodeInvalidParams || errData(t, m.Error)["field"] != "protocol_version" {
		t.Fatalf("version 2: %+v", m.Error)
	}
	r.line(`{"jsonrpc":"2.0","id":3,"method":"initialize","params":{"protocol_version":"1.0.0","client_info":{"name":"t"},"capabilities":["streaming"],"terminal_size":{"cols":80}}}`)
	var res localbridge.InitializeResult
	json.Unmarshal(r.msg().Result, &res)
	if res.Status != "ready" || res.ProtocolVersion != "1.0.0" || res.ServerInfo.Name != "moltgate" || len(res.Methods) != 8 || !strings.Contains(strings.Join(res.Capabilities, ","), "tool_approval") {
		t.Fatalf("result %+v", res)
	}
	r.line(`{"jsonrpc":"2.0","id":4,"method":"session.save","params":{}}`)
	if m := r.msg(); m.Error == nil || m.Error.Code != jsonrpc.CodeMethodNotFound {
		t.Fatalf("unknown method: %+v", m)
	}
	// Notifications get no answer, known or not; the next answer is for id 5.
	r.line(`{"jsonrpc":"2.0","method":"context.update","params":{"cwd":"/x"}}`)
	r.line(`{"jsonrpc":"2.0","method":"no.such.thing"}`)
	r.line(`{"jsonrpc":"2.0","id":5,"method":"agent.ping","params":{"agent":"echo@acme"}}`)
	if m := r.msg(); string(m.ID) != "5" || m.Error != nil {
		t.Fatalf("got %+v", m)
	}

	// A face without a dependency does not offer its methods.
	g := newFace(t, func(c *localbridge.RPCConfig) { c.Consent, c.Directory = nil, nil })
	c := g.dial(t, localbridge.ClientOptions{})
	if strings.Contains(strings.Join(c.Server().Methods, ","), "consent.issue") {
		t.Fatal("consent.issue offered without an issuer")
	}
	var re *localbridge.RPCError
	if _, err := c.IssueConsent(context.Background(), localbridge.ConsentRequest{Grantee: "a@b", Purpose: "p", DataTypes: []string{"email"}}); !errors.As(err, &re) || re.Code != jsonrpc.CodeMethodNotFound {
		t.Fatalf("got %v", err)
	}
}

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
	for m = r.msg(); m.Method == "stream.token"; m = r.msg() {
	}
	var done struct{ Status string }
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

func TestRPCApprovals(t *testing.T) {
	f := newFace(t, nil)
	notices := make(chan localbridge.ApprovalNotice, 10)
	terminal := f.dial(t, localbridge.ClientOptions{Name: "terminal", OnApproval: func(n localbridge.ApprovalNotice) { notices <- n }})
	caller := f.dial(t, localbridge.ClientOptions{})
	next := func() localbridge.ApprovalNotice {
		t.Helper()
		select {
		case n := <-notices:
			return n
		case <-time.After(20 * time.Second):
			t.Fatal("no approval notification")
		}
		panic("unreachable")
	}
	type out struct {
		res json.RawMessage
		err error
	}
	query := func(input string) chan out {
		ch := make(chan out, 1)
		go func() {
			res, err := caller.Query(context.Background(), localbridge.QueryRequest{To: "echo@acme", From: "cli", Tool: "count", Input: json.RawMessage(input), Class: "pii"}, nil)
			ch <- out{res, err}
		}()
		return ch
	}

	done := query(`{"by":3}`)
	n := next()
	req := n.Request
	if req == nil || req.Tool.Name != "count" || req.Agent != "echo" || string(req.Arguments) != `{"by":"[masked]"}` || req.Risk.Level != "critical" ||
		!strings.HasPrefix(req.QueryID, "q-") || req.Caller == nil || req.Caller.ID != "cli@acme" || req.Timeout <= 0 || req.Classification != "pii" {
		t.Fatalf("request %+v", req)
	}
	list, err := terminal.Approvals(context.Background())
	if err != nil || len(list) != 1 || list[0].ExecutionID != req.ExecutionID {
		t.Fatalf("list %+v %v", list, err)
	}
	if err := terminal.Approve(context.Background(), req.ExecutionID, true); err != nil {
		t.Fatal(err)
	}
	if o := <-done; o.err != nil || string(o.res) != `{"count":3}` {
		t.Fatalf("%s %v", o.res, o.err)
	}
	if n := next(); n.Resolved == nil || n.Resolved.Status != "approved" || n.Resolved.ExecutionID != req.ExecutionID {
		t.Fatalf("resolution %+v %+v first %+v", n, n.Request, req)
	}

	done = query(`{"by":1}`)
	req = next().Request
	if err := terminal.Approve(context.Background(), req.ExecutionID, false); err != nil {
		t.Fatal(err)
	}
	var re *localbridge.RPCError
	if o := <-done; !errors.As(o.err, &re) || re.Code != jsonrpc.CodePermissionDenied || re.MoltSpeakCode != "E_CAPABILITY" {
		t.Fatalf("denied: %v", o.err)
	}
	next()
	if err := terminal.Approve(context.Background(), req.ExecutionID, true); !errors.As(err, &re) || re.Field != "execution_id" {
		t.Fatalf("decided twice: %v", err)
	}

	// A terminal that connects later is shown what is already waiting.
	done = query(`{"by":1}`)
	req = next().Request
	late := make(chan localbridge.ApprovalNotice, 10)
	f.dial(t, localbridge.ClientOptions{OnApproval: func(n localbridge.ApprovalNotice) { late <- n }})
	select {
	case n := <-late:
		if n.Request == nil || n.Request.ExecutionID != req.ExecutionID {
			t.Fatalf("late terminal got %+v", n)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("late terminal not told")
	}
	terminal.Approve(context.Background(), req.ExecutionID, true)
	if o := <-done; o.err != nil {
		t.Fatal(o.err)
	}
}

func TestRPCDirectoryPingConsent(t *testing.T) {
	f := newFace(t, nil)
	f.runAgent(t, "prog", partialAgent())
	c := f.dial(t, localbridge.ClientOptions{})
	ctx := context.Background()
	res, err := c.Discover(ctx, localbridge.DiscoverRequest{Capability: "progress"})
	if err != nil {
		t.Fatal(err)
	}
	var d struct {
		Results []struct {
			AgentID             string   `json:"agent_id"`
			Org                 string   `json:"org"`
			CapabilitiesMatched []string `json:"capabilities_matched"`
			Status              string   `json:"status"`
		} `json:"results"`
		Total   int  `json:"total"`
		HasMore bool `json:"has_more"`
	}
	json.Unmarshal(res, &d)
	if d.Total != 1 || d.Results[0].AgentID != "prog" || d.Results[0].Org != "acme" || d.Results[0].Status != "alive" || d.HasMore {
		t.Fatalf("discover %s", res)
	}
	res, _ = c.Discover(ctx, localbridge.DiscoverRequest{Query: json.RawMessage(`{"capability":"*","limit":1,"filters":{"verified":true}}`)})
	json.Unmarshal(res, &d)
	if d.Total != 2 || len(d.Results) != 1 || !d.HasMore {
		t.Fatalf("discover all %s", res)
	}
	var re *localbridge.RPCError
	if _, err := c.Discover(ctx, localbridge.DiscoverRequest{Capability: "bad cap"}); !errors.As(err, &re) || re.Field != "capability" {
		t.Fatalf("bad capability: %v", err)
	}

	res, err = c.Ping(ctx, "echo@acme")
	var p struct {
		Status string   `json:"status"`
		Active []string `json:"capabilities_active"`
	}
	json.Unmarshal(res, &p)
	if err != nil || p.Status != "alive" || strings.Join(p.Active, ",") != "count,echo,fail,sleep" {
		t.Fatalf("ping %s %v", res, err)
	}
	if _, err := c.Ping(ctx, "echo@beta"); !errors.As(err, &re) || re.MoltSpeakCode != "E_AGENT_NOT_FOUND" {
		t.Fatalf("ping elsewhere: %v", err)
	}

	tok, err := c.IssueConsent(ctx, localbridge.ConsentRequest{Grantee: "bob@beta", Purpose: "support", DataTypes: []string{"email", "phone"}, TTL: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	claims, sig, _ := strings.Cut(strings.TrimPrefix(tok, "consent-token:"), ".")
	cb, _ := base64.RawURLEncoding.DecodeString(claims)
	sb, _ := base64.RawURLEncoding.DecodeString(sig)
	if !ed25519.Verify(f.issuer.key.Public().(ed25519.PublicKey), cb, sb) || !bytes.Contains(cb, []byte(`"grantee":"bob@beta"`)) {
		t.Fatalf("token %q does not verify", tok)
	}
	r := f.raw(t, true)
	for i, bad := range []struct{ params, field string }{
		{`{"purpose":"p","data_types":["email"]}`, "grantee"},
		{`{"grantee":"bob","purpose":"p","data_types":["email"]}`, "grantee"},
		{`{"grantee":"bob@beta","data_types":["email"]}`, "purpose"},
		{`{"grantee":"bob@beta","purpose":"p","data_types":[]}`, "data_types"},
		{`{"grantee":"bob@beta","purpose":"p","data_types":["E-MAIL"]}`, "data_types"},
		{`{"grantee":"bob@beta","purpose":"p","data_types":["email"],"ttl":"forever"}`, "ttl"},
		{`{"grantee":"bob@beta","purpose":"p","data_types":["email"],"ttl":"-1h"}`, "ttl"},
		{`{"grantee":"bob@beta","purpose":"p","data_types":["email"],"ttl":"1h","ttl_seconds":5}`, "ttl"},
		// A second to a year, as moltgate consent issue has it too.
		{`{"grantee":"bob@beta","purpose":"p","data_types":["email"],"ttl":"1ns"}`, "ttl"},
		{`{"grantee":"bob@beta","purpose":"p","data_types":["email"],"ttl":"8761h"}`, "ttl"},
		{`{"grantee":"bob@beta","purpose":"p","data_types":["email"],"ttl_seconds":31536001}`, "ttl"},
		// 2^55 + 3600 seconds is an hour once multiplied into nanoseconds and wrapped.
		{`{"grantee":"bob@beta","purpose":"p","data_types":["email"],"ttl_seconds":36028797018967568}`, "ttl"},
	} {
		r.line(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"consent.issue","params":%s}`, i, bad.params))
		m := r.msg()
		if m.Error == nil || m.Error.Code != jsonrpc.CodeInvalidParams || errData(t, m.Error)["field"] != bad.field {
			t.Errorf("%s: %+v", bad.params, m.Error)
		}
	}
	if strings.Contains(f.logs.String(), tok) {
		t.Fatal("the consent token reached the log")
	}
}

// TestRPCNastyInput feeds a corpus of bad lines to the face's reader. The face answers each
// as JSON-RPC 2.0 prescribes, or closes the offending connection, and keeps serving others.
func TestRPCNastyInput(t *testing.T) {
	f := newFace(t, func(c *localbridge.RPCConfig) { c.MaxMessageBytes = 64 << 10 })
	healthy := f.dial(t, localbridge.ClientOptions{})
	check := func(t *testing.T) {
		t.Helper()
		if _, err := healthy.Ping(context.Background(), "echo"); err != nil {
			t.Fatalf("the face stopped serving: %v", err)
		}
	}
	cases := []struct {
		name, line string
		code       int
		id         string
	}{
		{"invalid utf-8", "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"agent.ping\",\"params\":{\"agent\":\"\xc3\x28\"}}", jsonrpc.CodeParseError, "1"},
		{"truncated", `{"jsonrpc":"2.0","id":1,"method":"agent.ping","params":{"agent":`, jsonrpc.CodeParseError, "null"},
		{"not json", "\x00\x01garbage", jsonrpc.CodeParseError, "null"},
		{"deep nesting", `{"jsonrpc":"2.0","id":1,"method":"agent.query","params":{"input":` + strings.Repeat(`{"a":`, 100) + "1" + strings.Repeat("}", 100) + `}}`, jsonrpc.CodeInvalidRequest, "1"},
		{"deep arrays", strings.Repeat("[", 5000) + strings.Repeat("]", 5000), jsonrpc.CodeInvalidRequest, "null"},
		{"scalar", `"hello"`, jsonrpc.CodeInvalidRequest, "null"},
		{"wrong version", `{"jsonrpc":"1.0","id":9,"method":"agent.ping"}`, jsonrpc.CodeInvalidRequest, "9"},
		{"object id", `{"jsonrpc":"2.0","id":{},"method":"agent.ping"}`, jsonrpc.CodeInvalidRequest, "null"},
		{"method number", `{"jsonrpc":"2.0","id":8,"method":5}`, jsonrpc.CodeInvalidRequest, "8"},
		{"params string", `{"jsonrpc":"2.0","id":7,"method":"agent.ping","params":"echo"}`, jsonrpc.CodeInvalidRequest, "7"},
		{"params wrong type", `{"jsonrpc":"2.0","id":6,"method":"agent.ping","params":{"agent":["echo"]}}`, jsonrpc.CodeInvalidParams, "6"},
		{"huge number", `{"jsonrpc":"2.0","id":5,"method":"agent.query","params":{"to":"echo","message":"m","timeout_ms":1e400}}`, jsonrpc.CodeInvalidParams, "5"},
		{"empty batch", `[]`, jsonrpc.CodeInvalidRequest, "null"},
		{"unknown method", `{"jsonrpc":"2.0","id":4,"method":"rm.rf"}`, jsonrpc.CodeMethodNotFound, "4"},
		{"result as request", `{"jsonrpc":"2.0","id":3,"result":{}}`, jsonrpc.CodeInvalidRequest, "3"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := f.raw(t, true)
			r.line(c.line)
			m := r.msg()
			if m.Error == nil || m.Error.Code != c.code || string(m.ID) != c.id {
				t.Fatalf("got %+v (id %s), want %d", m.Error, m.ID, c.code)
			}
			if strings.Contains(m.Error.Message, "garbage") || strings.Contains(m.Error.Message, "\xc3") {
				t.Fatal("the error echoes the input")
			}
			// The same connection still works.
			r.line(`{"jsonrpc":"2.0","id":"after","method":"agent.ping","params":{"agent":"echo"}}`)
			if m := r.msg(); string(m.ID) != `"after"` || m.Error != nil {
				t.Fatalf("after: %+v", m)
			}
			check(t)
		})
	}
	t.Run("batch", func(t *testing.T) {
		r := f.raw(t, true)
		r.line(`[{"jsonrpc":"2.0","id":1,"method":"agent.ping","params":{"agent":"echo"}},{"bad":true},{"jsonrpc":"2.0","method":"context.update"},1]`)
		b, err := r.readLine()
		if err != nil {
			t.Fatal(err)
		}
		var resps []jsonrpc.Message
		if err := json.Unmarshal(b, &resps); err != nil || len(resps) != 3 {
			t.Fatalf("%s %v", b, err)
		}
		ok := 0
		for _, m := range resps {
			if m.Error == nil && string(m.ID) == "1" {
				ok++
			} else if m.Error == nil || m.Error.Code != jsonrpc.CodeInvalidRequest {
				t.Fatalf("member %+v", m)
			}
		}
		if ok != 1 {
			t.Fatalf("%s", b)
		}
	})
	t.Run("batch of notifications", func(t *testing.T) {
		r := f.raw(t, true)
		r.line(`[{"jsonrpc":"2.0","method":"context.update"},{"jsonrpc":"2.0","method":"x"}]`)
		r.line(`{"jsonrpc":"2.0","id":"next","method":"agent.ping","params":{"agent":"echo"}}`)
		if m := r.msg(); string(m.ID) != `"next"` {
			t.Fatalf("a batch of notifications was answered: %+v", m)
		}
	})
	t.Run("oversize line", func(t *testing.T) {
		r := f.raw(t, true)
		r.conn.Write([]byte(`{"jsonrpc":"2.0","id":1,"method":"agent.query","params":{"message":"` + strings.Repeat("x", 70<<10) + "\"}}\n"))
		m := r.msg()
		if m.Error == nil || m.Error.Code != jsonrpc.CodeInvalidRequest || string(m.ID) != "null" {
			t.Fatalf("got %+v", m)
		}
		if _, err := r.readLine(); err == nil {
			t.Fatal("the connection stayed open")
		}
		check(t)
	})
	t.Run("endless line", func(t *testing.T) {
		r := f.raw(t, true)
		go func() {
			chunk := bytes.Repeat([]byte("y"), 8<<10)
			for range 100 {
				if _, err := r.conn.Write(chunk); err != nil {
					return
				}
			}
		}()
		m := r.msg()
		if m.Error == nil || m.Error.Code != jsonrpc.CodeInvalidRequest {
			t.Fatalf("got %+v", m)
		}
		check(t)
	})
	t.Run("truncated at close", func(t *testing.T) {
		r := f.raw(t, true)
		r.conn.Write([]byte(`{"jsonrpc":"2.0","id":1,"meth`))
		r.conn.(*net.UnixConn).CloseWrite()
		m := r.msg()
		if m.Error == nil || m.Error.Code != jsonrpc.CodeParseError {
			t.Fatalf("got %+v", m)
		}
		check(t)
	})
}

func TestRPCPeerAndShutdown(t *testing.T) {
	f := newFace(t, func(c *localbridge.RPCConfig) { c.PeerUIDs = []uint32{uint32(os.Getuid() + 1)} })
	if _, err := localbridge.Dial(context.Background(), f.rpcPath, localbridge.ClientOptions{}); err == nil {
		t.Fatal("a peer of another uid was served")
	}
	if !strings.Contains(f.logs.String(), "rpc connection refused") {
		t.Fatal("refusal not logged")
	}

	g := newFace(t, nil)
	c := g.dial(t, localbridge.ClientOptions{})
	errc := make(chan error, 1)
	go func() {
		_, err := c.Query(context.Background(), localbridge.QueryRequest{To: "echo", Tool: "sleep", Input: json.RawMessage(`{"ms":150}`)}, nil)
		errc <- err
	}()
	waitFor(t, "call running", func() bool { a, _ := g.core.Agent("echo"); return a.InFlight == 1 })
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := g.server.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	if err := <-errc; err != nil {
		t.Fatalf("the running query was cut short: %v", err)
	}
	if _, err := localbridge.Dial(context.Background(), g.rpcPath, localbridge.ClientOptions{}); err == nil {
		t.Fatal("connected after shutdown")
	}
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

// askerFunc is a ConsentAsker from a function.
type askerFunc func(context.Context, localbridge.ConsentAsk) (localbridge.ConsentAnswer, error)

func (f askerFunc) AskConsent(ctx context.Context, req localbridge.ConsentAsk) (localbridge.ConsentAnswer, error) {
	return f(ctx, req)
}

// TestRPCConsentRequest: consent.request carries a local caller's request
// to the asker and its answer back, is offered only with an asker, and
// refuses malformed parameters by field before asking anyone.
func TestRPCConsentRequest(t *testing.T) {
	var (
		mu    sync.Mutex
		asked []localbridge.ConsentAsk
	)
	seen := func() []localbridge.ConsentAsk {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(asked)
	}
	f := newFace(t, func(c *localbridge.RPCConfig) {
		c.Asker = askerFunc(func(ctx context.Context, req localbridge.ConsentAsk) (localbridge.ConsentAnswer, error) {
			mu.Lock()
			asked = append(asked, req)
			mu.Unlock()
			if req.Purpose == "marketing" {
				return localbridge.ConsentAnswer{Reason: "not granted"}, nil
			}
			return localbridge.ConsentAnswer{Granted: true, Proof: "consent-token:x.y", DataTypes: req.DataTypes, Purpose: req.Purpose}, nil
		})
	})
	c := f.dial(t, localbridge.ClientOptions{})
	if !strings.Contains(strings.Join(c.Server().Methods, ","), "consent.request") {
		t.Fatalf("methods %v", c.Server().Methods)
	}
	ctx := context.Background()
	ans, err := c.AskConsent(ctx, localbridge.ConsentAsk{To: "echo@beta", From: "client", DataTypes: []string{"email"}, Purpose: "support", Human: "user:4711", Duration: "24h"})
	if err != nil || !ans.Granted || ans.Proof != "consent-token:x.y" {
		t.Fatalf("granted: %+v %v", ans, err)
	}
	if a := seen(); len(a) != 1 || a[0].Human != "user:4711" || a[0].Duration != "24h" || a[0].From != "client" {
		t.Fatalf("asked %+v", a)
	}
	if ans, err := c.AskConsent(ctx, localbridge.ConsentAsk{To: "echo@beta", DataTypes: []string{"email"}, Purpose: "marketing"}); err != nil || ans.Granted || ans.Reason != "not granted" {
		t.Fatalf("refused: %+v %v", ans, err)
	}
	r := f.raw(t, true)
	for i, bad := range []struct{ params, field string }{
		{`{"purpose":"p","data_types":["email"]}`, "to"},
		{`{"to":"echo","purpose":"p","data_types":["email"]}`, "to"},
		{`{"to":"echo@beta","from":"a@b","purpose":"p","data_types":["email"]}`, "from"},
		{`{"to":"echo@beta","data_types":["email"]}`, "purpose"},
		{`{"to":"echo@beta","purpose":"p","data_types":[]}`, "data_types"},
		{`{"to":"echo@beta","purpose":"p","data_types":["E-MAIL"]}`, "data_types"},
	} {
		r.line(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"consent.request","params":%s}`, i+1, bad.params))
		m := r.msg()
		if m.Error == nil || m.Error.Code != jsonrpc.CodeInvalidParams || errData(t, m.Error)["field"] != bad.field {
			t.Errorf("%s: %+v", bad.params, m.Error)
		}
	}
	if a := seen(); len(a) != 2 {
		t.Fatalf("malformed requests reached the asker: %+v", a[2:])
	}

	plain := newFace(t, nil).dial(t, localbridge.ClientOptions{})
	if _, err := plain.AskConsent(ctx, localbridge.ConsentAsk{To: "echo@beta", DataTypes: []string{"email"}, Purpose: "p"}); err == nil {
		t.Fatal("consent.request answered without an asker")
	}
}
