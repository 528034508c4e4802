package localbridge_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/moltgate/moltgate/localbridge"
	"github.com/moltgate/moltgate/localbridge/agent"
	"github.com/moltgate/moltgate/localbridge/jsonrpc"
)

// probeAgent is an agent whose tools show what the face passed on: about returns the call's
// context; work streams a status note, output and another note; it is also the agent's query
// tool.
func probeAgent() *agent.Agent {
	a := &agent.Agent{Version: "1.0.0"}
	a.Add(agent.Tool{Name: "about", Handler: func(ctx context.Context, c *agent.Call) (any, error) {
		return map[string]any{"context": c.Context}, nil
	}})
	a.Add(agent.Tool{Name: "work", Handler: func(ctx context.Context, c *agent.Call) (any, error) {
		for _, step := range []func() error{
			func() error { return c.Status("reading the files") },
			func() error { return c.Stream("out") },
			func() error { return c.Status("checking") },
		} {
			if err := step(); err != nil {
				return nil, err
			}
		}
		return map[string]bool{"done": true}, nil
	}})
	return a
}

// newProbeFace is newFace with the probe agent beside echo.
func newProbeFace(t *testing.T, mod func(*localbridge.RPCConfig)) *face {
	f := newFace(t, mod)
	f.runAgent(t, "probe", probeAgent(), localbridge.AgentSpec{QueryTool: "work"})
	return f
}

// untilComplete reads a query's messages up to its stream.complete, and returns them.
func (r *rawRPC) untilComplete() []jsonrpc.Message {
	r.t.Helper()
	var all []jsonrpc.Message
	for {
		m := r.msg()
		all = append(all, m)
		if m.Method == localbridge.NotifyComplete {
			return all
		}
	}
}

// queryResult runs a query on r and returns its result.
func (r *rawRPC) queryResult(id int, params string) json.RawMessage {
	r.t.Helper()
	r.line(`{"jsonrpc":"2.0","id":` + jsonInt(id) + `,"method":"agent.query","params":` + params + `}`)
	if m := r.msg(); m.Error != nil {
		r.t.Fatalf("agent.query %s: %+v", params, m.Error)
	}
	msgs := r.untilComplete()
	var done struct {
		Status string
		Result json.RawMessage
	}
	json.Unmarshal(msgs[len(msgs)-1].Params, &done)
	if done.Status != "success" {
		r.t.Fatalf("agent.query %s: %s", params, msgs[len(msgs)-1].Params)
	}
	return done.Result
}

// answer reads up to the next answer, past the notifications of queries running.
func (r *rawRPC) answer() jsonrpc.Message {
	r.t.Helper()
	for {
		if m := r.msg(); m.ID != nil {
			return m
		}
	}
}

func jsonInt(n int) string { b, _ := json.Marshal(n); return string(b) }

func contextSeen(t *testing.T, result json.RawMessage) map[string]any {
	t.Helper()
	var out struct{ Context map[string]any }
	if err := json.Unmarshal(result, &out); err != nil {
		t.Fatalf("%s: %v", result, err)
	}
	return out.Context
}

// context.update sets the connection's context, merged member by member (null drops one);
// later queries carry it to the agent as the call's context, overlaid by a query's own for
// that query alone. Another connection has a context of its own.
func TestRPCContextUpdate(t *testing.T) {
	f := newProbeFace(t, nil)
	r := f.raw(t, true)
	if got := contextSeen(t, r.queryResult(1, `{"to":"probe","tool":"about","input":{}}`)); got != nil {
		t.Fatalf("before any context.update the agent saw %v", got)
	}
	r.line(`{"jsonrpc":"2.0","method":"context.update","params":{"cwd":"/home/ada/p","env":{"PWD":"/home/ada/p"},"terminal_size":{"cols":100,"rows":30}}}`)
	r.line(`{"jsonrpc":"2.0","id":2,"method":"context.update","params":{"shell":"bash","terminal_size":null}}`)
	if m := r.msg(); m.Error != nil || string(m.Result) != `{"members":3,"ok":true}` {
		t.Fatalf("context.update: %s %+v", m.Result, m.Error)
	}
	want := map[string]any{"cwd": "/home/ada/p", "env": map[string]any{"PWD": "/home/ada/p"}, "shell": "bash"}
	if got := contextSeen(t, r.queryResult(3, `{"to":"probe","tool":"about","input":{}}`)); !reflect.DeepEqual(got, want) {
		t.Fatalf("the agent saw %v, want %v", got, want)
	}
	overlaid := map[string]any{"env": map[string]any{"PWD": "/home/ada/p"}, "shell": "zsh", "open_files": []any{"main.go"}}
	if got := contextSeen(t, r.queryResult(4, `{"to":"probe","tool":"about","input":{},"context":{"shell":"zsh","cwd":null,"open_files":["main.go"]}}`)); !reflect.DeepEqual(got, overlaid) {
		t.Fatalf("with the query's own context the agent saw %v, want %v", got, overlaid)
	}
	if got := contextSeen(t, r.queryResult(5, `{"to":"probe","tool":"about","input":{}}`)); !reflect.DeepEqual(got, want) {
		t.Fatalf("after a query's own context the agent saw %v, want %v", got, want)
	}
	if got := contextSeen(t, f.raw(t, true).queryResult(1, `{"to":"probe","tool":"about","input":{}}`)); got != nil {
		t.Fatalf("another connection's query carried %v", got)
	}

	// Bad input is refused naming the field, and the context stays as it was.
	for _, c := range []struct{ params, field string }{
		{`[1]`, "params"},
		{`{"blob":"` + strings.Repeat("x", localbridge.MaxContextBytes) + `"}`, "params"},
	} {
		r.line(`{"jsonrpc":"2.0","id":6,"method":"context.update","params":` + c.params + `}`)
		m := r.msg()
		if m.Error == nil || m.Error.Code != jsonrpc.CodeInvalidParams || errData(t, m.Error)["field"] != c.field {
			t.Fatalf("context.update %.40s: %+v", c.params, m.Error)
		}
	}
	// A notification has no answer to refuse with: the next answer is the next request's.
	r.line(`{"jsonrpc":"2.0","method":"context.update","params":{"blob":"` + strings.Repeat("x", localbridge.MaxContextBytes) + `"}}`)
	if got := contextSeen(t, r.queryResult(7, `{"to":"probe","tool":"about","input":{}}`)); !reflect.DeepEqual(got, want) {
		t.Fatalf("after refusals the agent saw %v, want %v", got, want)
	}
	r.line(`{"jsonrpc":"2.0","id":8,"method":"agent.query","params":{"to":"probe","tool":"about","context":{"blob":"` + strings.Repeat("x", localbridge.MaxContextBytes) + `"}}}`)
	if m := r.msg(); m.Error == nil || errData(t, m.Error)["field"] != "context" {
		t.Fatalf("a query whose context overflows: %+v", m.Error)
	}
}

// session.save keeps a connection's context and recent queries in the session store, a file
// per session, mode 0600; session.load makes them another connection's.
func TestRPCSessionSaveLoad(t *testing.T) {
	store := filepath.Join(t.TempDir(), "sessions")
	f := newProbeFace(t, func(c *localbridge.RPCConfig) { c.SessionDir = store })
	r := f.raw(t, false)
	r.line(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocol_version":"1.0.0","capabilities":["session_persistence"]}}`)
	var res localbridge.InitializeResult
	json.Unmarshal(r.msg().Result, &res)
	if !strings.Contains(strings.Join(res.Methods, ","), "session.save,session.load") || !strings.Contains(strings.Join(res.Capabilities, ","), "session_persistence") {
		t.Fatalf("initialize: %+v", res)
	}
	r.line(`{"jsonrpc":"2.0","method":"context.update","params":{"cwd":"/srv/app"}}`)
	r.queryResult(1, `{"to":"echo","tool":"echo","input":{"text":"hi"}}`)
	r.line(`{"jsonrpc":"2.0","id":2,"method":"session.save","params":{"id":"work-1","include_history":true,"include_blocks":true}}`)
	m := r.msg()
	var saved struct {
		Saved         bool
		ID            string
		Size          int64
		MessagesCount int `json:"messages_count"`
	}
	json.Unmarshal(m.Result, &saved)
	fi, err := os.Stat(filepath.Join(store, "work-1.json"))
	if err != nil || !saved.Saved || saved.ID != "work-1" || saved.MessagesCount != 1 || fi.Size() != saved.Size || fi.Mode().Perm() != 0o600 {
		t.Fatalf("session.save: %s %+v; file %v %v", m.Result, m.Error, fi, err)
	}
	var sv localbridge.SavedSession
	b, _ := os.ReadFile(filepath.Join(store, "work-1.json"))
	if err := json.Unmarshal(b, &sv); err != nil || string(sv.Context) != `{"cwd":"/srv/app"}` || len(sv.Queries) != 1 ||
		sv.Queries[0].To != "echo" || sv.Queries[0].Tool != "echo" || sv.Queries[0].Status != "success" || !strings.HasPrefix(sv.Queries[0].QueryID, "q-") {
		t.Fatalf("saved %s", b)
	}
	if strings.Contains(string(b), `"hi"`) {
		t.Fatalf("the session holds a query's content: %s", b)
	}

	// Another connection takes it up: its queries carry the context.
	r2 := f.raw(t, true)
	r2.line(`{"jsonrpc":"2.0","id":1,"method":"session.load","params":{"id":"work-1"}}`)
	m = r2.msg()
	var loaded struct {
		Loaded  bool
		Session struct {
			ID            string
			Created       int64
			BlocksCount   int `json:"blocks_count"`
			MessagesCount int `json:"messages_count"`
			Context       map[string]any
			Queries       []localbridge.SessionQuery
		}
	}
	json.Unmarshal(m.Result, &loaded)
	if s := loaded.Session; !loaded.Loaded || s.ID != "work-1" || s.Created != sv.Created || s.MessagesCount != 1 || s.BlocksCount != 0 ||
		s.Context["cwd"] != "/srv/app" || len(s.Queries) != 1 || s.Queries[0] != sv.Queries[0] {
		t.Fatalf("session.load: %s %+v", m.Result, m.Error)
	}
	if got := contextSeen(t, r2.queryResult(2, `{"to":"probe","tool":"about","input":{}}`)); got["cwd"] != "/srv/app" {
		t.Fatalf("after session.load the agent saw %v", got)
	}
	// Saved again without its history: the queries are left out, the first save's time kept.
	r2.line(`{"jsonrpc":"2.0","id":3,"method":"session.save","params":{"id":"work-1","include_history":false}}`)
	if m := r2.msg(); m.Error != nil || !strings.Contains(string(m.Result), `"messages_count":0`) {
		t.Fatalf("session.save without history: %s %+v", m.Result, m.Error)
	}
	b, _ = os.ReadFile(filepath.Join(store, "work-1.json"))
	var again localbridge.SavedSession
	if json.Unmarshal(b, &again); again.Created != sv.Created || len(again.Queries) != 0 {
		t.Fatalf("saved again: %s", b)
	}

	// Bad input: one error naming the field, and nothing written.
	os.WriteFile(filepath.Join(store, "broken.json"), []byte(`{"id":"broken","context":[`), 0o600)
	os.WriteFile(filepath.Join(store, "huge.json"), []byte(`{"id":"huge","context":{"x":"`+strings.Repeat("x", localbridge.MaxSessionBytes)+`"}}`), 0o600)
	for _, c := range []struct {
		method, params string
		code           int
		field          string
	}{
		{"session.save", `{}`, jsonrpc.CodeInvalidParams, "id"},
		{"session.save", `{"id":"../escape"}`, jsonrpc.CodeInvalidParams, "id"},
		{"session.save", `{"id":".hidden"}`, jsonrpc.CodeInvalidParams, "id"},
		{"session.save", `{"path":"/home/ada/.openagent/sessions/s.json"}`, jsonrpc.CodeInvalidParams, "path"},
		{"session.save", `{"id":"x","include_history":"yes"}`, jsonrpc.CodeInvalidParams, "include_history"},
		{"session.load", `{"id":"nope"}`, jsonrpc.CodeInvalidParams, "id"},
		{"session.load", `{"path":"/etc/passwd"}`, jsonrpc.CodeInvalidParams, "path"},
		{"session.load", `{"id":"broken"}`, jsonrpc.CodeInternalError, ""},
		{"session.load", `{"id":"huge"}`, jsonrpc.CodeInternalError, ""},
	} {
		r2.line(`{"jsonrpc":"2.0","id":9,"method":"` + c.method + `","params":` + c.params + `}`)
		m := r2.msg()
		if m.Error == nil || m.Error.Code != c.code || (c.field != "" && errData(t, m.Error)["field"] != c.field) {
			t.Errorf("%s %s: %s %+v", c.method, c.params, m.Result, m.Error)
		}
	}
	entries, _ := os.ReadDir(store)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if !reflect.DeepEqual(names, []string{"broken.json", "huge.json", "work-1.json"}) {
		t.Fatalf("the store holds %v", names)
	}
	// The refused loads left the connection's session as it was.
	if got := contextSeen(t, r2.queryResult(10, `{"to":"probe","tool":"about","input":{}}`)); got["cwd"] != "/srv/app" {
		t.Fatalf("after refused loads the agent saw %v", got)
	}
}

// The agent's status notes map to tool.progress during a tool call and to agent.thinking
// during a query; a tool call ends with tool.complete before stream.complete. The stream.token
// of each note still comes, for clients that know no more.
func TestRPCProgressNotifications(t *testing.T) {
	f := newProbeFace(t, nil)
	r := f.raw(t, true)
	methods := func(msgs []jsonrpc.Message) []string {
		var out []string
		for _, m := range msgs {
			out = append(out, m.Method)
		}
		return out
	}

	r.line(`{"jsonrpc":"2.0","id":1,"method":"agent.query","params":{"to":"probe","tool":"work","input":{}}}`)
	var started struct {
		QueryID string `json:"query_id"`
	}
	json.Unmarshal(r.msg().Result, &started)
	msgs := r.untilComplete()
	if got, want := methods(msgs), []string{"stream.token", "tool.progress", "stream.token", "stream.token", "tool.progress", "tool.complete", "stream.complete"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("a tool call sent %v, want %v", got, want)
	}
	q := started.QueryID
	for i, want := range map[int]string{
		1: `{"execution_id":"` + q + `","progress":{"message":"reading the files","status":"processing"},"query_id":"` + q + `"}`,
		4: `{"execution_id":"` + q + `","progress":{"message":"checking","status":"processing"},"query_id":"` + q + `"}`,
	} {
		if !sameJSON(msgs[i].Params, want) {
			t.Errorf("message %d: %s, want %s", i, msgs[i].Params, want)
		}
	}
	var done struct {
		ExecutionID string `json:"execution_id"`
		QueryID     string `json:"query_id"`
		Tool        string
		Status      string
		Result      struct {
			DurationMS *int64 `json:"duration_ms"`
		}
	}
	json.Unmarshal(msgs[5].Params, &done)
	if done.ExecutionID != q || done.QueryID != q || done.Tool != "work" || done.Status != "success" || done.Result.DurationMS == nil {
		t.Errorf("tool.complete %s", msgs[5].Params)
	}

	// A query (its text to the agent's query tool): the notes are the agent thinking, before
	// its output and after.
	r.line(`{"jsonrpc":"2.0","id":2,"method":"agent.query","params":{"to":"probe","message":"check my files"}}`)
	json.Unmarshal(r.msg().Result, &started)
	msgs = r.untilComplete()
	if got, want := methods(msgs), []string{"stream.token", "agent.thinking", "stream.token", "stream.token", "agent.thinking", "stream.complete"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("a query sent %v, want %v", got, want)
	}
	q = started.QueryID
	for i, want := range map[int]string{
		1: `{"query_id":"` + q + `","phase":"analyzing","message":"reading the files"}`,
		4: `{"query_id":"` + q + `","phase":"generating","message":"checking"}`,
	} {
		if !sameJSON(msgs[i].Params, want) {
			t.Errorf("message %d: %s, want %s", i, msgs[i].Params, want)
		}
	}

	// A tool call that fails or is cancelled ends its tool.complete so too.
	r.line(`{"jsonrpc":"2.0","id":3,"method":"agent.query","params":{"to":"echo","tool":"fail","input":{"code":"tool.broken"}}}`)
	r.msg()
	msgs = r.untilComplete()
	if got := methods(msgs); !reflect.DeepEqual(got, []string{"tool.complete", "stream.error", "stream.complete"}) || !strings.Contains(string(msgs[0].Params), `"status":"error"`) {
		t.Fatalf("a failed tool call sent %v: %s", got, msgs[0].Params)
	}
}

func sameJSON(got json.RawMessage, want string) bool {
	var a, b any
	return json.Unmarshal(got, &a) == nil && json.Unmarshal([]byte(want), &b) == nil && reflect.DeepEqual(a, b)
}

// A connection runs at most MaxQueries queries at once, 3 unless configured as the IPC
// protocol says; one more is refused as a rate limit, and goes once one has ended.
func TestRPCConcurrentQueryLimit(t *testing.T) {
	for _, c := range []struct {
		configured, want int
	}{{0, 3}, {5, 5}} {
		f := newFace(t, func(cfg *localbridge.RPCConfig) { cfg.MaxQueries = c.configured })
		r := f.raw(t, true)
		var ids []string
		for i := range c.want {
			r.line(`{"jsonrpc":"2.0","id":` + jsonInt(i+1) + `,"method":"agent.query","params":{"to":"echo","tool":"sleep","input":{"ms":600000}}}`)
			var started struct {
				QueryID string `json:"query_id"`
			}
			m := r.answer()
			if m.Error != nil {
				t.Fatalf("query %d of %d: %+v", i+1, c.want, m.Error)
			}
			json.Unmarshal(m.Result, &started)
			ids = append(ids, started.QueryID)
		}
		r.line(`{"jsonrpc":"2.0","id":100,"method":"agent.query","params":{"to":"echo","tool":"echo","input":{"text":"x"}}}`)
		m := r.answer()
		if m.Error == nil || m.Error.Code != jsonrpc.CodeAgentError || errData(t, m.Error)["moltspeak_code"] != "E_RATE_LIMIT" || errData(t, m.Error)["recoverable"] != true {
			t.Fatalf("query %d with a limit of %d: %s %+v", c.want+1, c.want, m.Result, m.Error)
		}
		other := f.dial(t, localbridge.ClientOptions{})
		if err := other.Cancel(context.Background(), ids[0]); err != nil {
			t.Fatal(err)
		}
		for m := r.msg(); m.Method != localbridge.NotifyComplete; m = r.msg() {
		}
		if got := r.queryResult(101, `{"to":"echo","tool":"echo","input":{"text":"x"}}`); string(got) != `{"text":"x"}` {
			t.Fatalf("after one ended: %s", got)
		}
	}
}

// The socket at the IPC protocol's path: $XDG_RUNTIME_DIR/openagent-terminal-PID.sock, or
// in /tmp without it (or with a relative one), made 0600, and served by the face.
func TestTerminalSocket(t *testing.T) {
	env := func(v string) func(string) string {
		return func(k string) string {
			if k == "XDG_RUNTIME_DIR" {
				return v
			}
			return ""
		}
	}
	for _, c := range []struct{ xdg, want string }{
		{"/run/user/1000", "/run/user/1000/openagent-terminal-42.sock"},
		{"", "/tmp/openagent-terminal-42.sock"},
		{"run/user", "/tmp/openagent-terminal-42.sock"},
	} {
		if got := localbridge.TerminalSocketPath(env(c.xdg), 42); got != c.want {
			t.Errorf("XDG_RUNTIME_DIR=%q: %s, want %s", c.xdg, got, c.want)
		}
	}
	dir := shortDir(t)
	l, err := localbridge.ListenTerminal(env(dir), os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	path := localbridge.TerminalSocketPath(env(dir), os.Getpid())
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("%s: %v %v", path, fi, err)
	}
	s := localbridge.NewRPCServer(localbridge.RPCConfig{})
	go s.Serve(l)
	defer s.Close()
	c, err := localbridge.Dial(context.Background(), path, localbridge.ClientOptions{})
	if err != nil {
		t.Fatalf("dial %s: %v", path, err)
	}
	c.Close()
	// A directory open to others is not a runtime directory.
	os.Chmod(dir, 0o755)
	if _, err := localbridge.ListenTerminal(env(dir), os.Getpid()+1); err == nil || !strings.Contains(err.Error(), "chmod 700") {
		t.Fatalf("listen in a 0755 directory: %v", err)
	}
}
