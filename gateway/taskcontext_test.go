package gateway

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/json"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/moltgate/moltgate/gateway/pipeline"
	"github.com/moltgate/moltgate/localbridge/agent"
	"github.com/moltgate/moltgate/wire"
)

// TestContextReachesEveryCall: a caller's context reaches the peer's
// agent on every kind of call that runs it. Through acme's JSON-RPC face,
// the context set by context.update, and then the one a saved session
// brings back with session.load, ride on a query by message (the agent's
// query tool) as on a tool call; a task a peer creates with a context in
// ext moltgate.context hands it to the agent as the task's call context,
// less the members a caller may not set, and one that is not an object is
// refused naming it.
func TestContextReachesEveryCall(t *testing.T) {
	da, la := newTestDir(t, "acme", AddAgentOptions{ID: "client", MaxCls: "pii"})
	db, lb := newTestDir(t, "globex", AddAgentOptions{ID: "probe", Capabilities: []string{"whatctx"}, QueryTool: "whatctx", MaxCls: "pii"})
	trustEachOther(t, da, db, "pii")
	whatctx := agent.Tool{Name: "whatctx", Handler: func(ctx context.Context, c *agent.Call) (any, error) {
		return map[string]json.RawMessage{"context": c.Context}, nil
	}}
	acme := start(t, da, la, TransportWebSocket)
	startAgents(t, db, lb, TransportWebSocket, Options{}, map[string][]agent.Tool{"probe": {whatctx}})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()

	conn, err := net.Dial("unix", da.RPCSocket())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(60 * time.Second))
	sc := bufio.NewScanner(conn)
	sc.Buffer(nil, 1<<20)
	send := func(line string) {
		t.Helper()
		if _, err := conn.Write([]byte(line + "\n")); err != nil {
			t.Fatal(err)
		}
	}
	// answer reads up to the answer to request id; result reads up to a
	// query's stream.complete and returns its result.
	answer := func(id string) json.RawMessage {
		t.Helper()
		for sc.Scan() {
			var m struct {
				ID     json.RawMessage
				Result json.RawMessage
				Error  json.RawMessage
			}
			json.Unmarshal(sc.Bytes(), &m)
			if string(m.ID) == id {
				if m.Error != nil {
					t.Fatalf("request %s: %s", id, m.Error)
				}
				return m.Result
			}
		}
		t.Fatalf("no answer to %s: %v", id, sc.Err())
		return nil
	}
	result := func() json.RawMessage {
		t.Helper()
		for sc.Scan() {
			var n struct {
				Method string
				Params struct {
					Status string
					Result json.RawMessage
				}
			}
			json.Unmarshal(sc.Bytes(), &n)
			if n.Method != "stream.complete" {
				continue
			}
			if n.Params.Status != "success" {
				t.Fatalf("query: %s", sc.Text())
			}
			return n.Params.Result
		}
		t.Fatalf("no stream.complete: %v", sc.Err())
		return nil
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocol_version":"1.0.0","client_info":{"name":"t","version":"0"}}}`)
	answer("1")
	send(`{"jsonrpc":"2.0","id":2,"method":"context.update","params":{"cwd":"/srv/app","git_branch":"main"}}`)
	answer("2")
	send(`{"jsonrpc":"2.0","id":3,"method":"agent.query","params":{"to":"probe@globex","from":"client","message":"where am I?","cls":"int"}}`)
	answer("3")
	if got := result(); !sameJSONText(t, got, `{"context":{"cwd":"/srv/app","git_branch":"main"}}`) {
		t.Fatalf("a query by message: %s", got)
	}
	send(`{"jsonrpc":"2.0","id":4,"method":"session.save","params":{"id":"deploy"}}`)
	answer("4")
	send(`{"jsonrpc":"2.0","id":5,"method":"context.update","params":{"cwd":"/tmp","git_branch":null}}`)
	answer("5")
	send(`{"jsonrpc":"2.0","id":6,"method":"agent.query","params":{"to":"probe@globex","from":"client","tool":"whatctx","input":{},"cls":"int"}}`)
	answer("6")
	if got := result(); !sameJSONText(t, got, `{"context":{"cwd":"/tmp"}}`) {
		t.Fatalf("a tool call after context.update: %s", got)
	}
	send(`{"jsonrpc":"2.0","id":7,"method":"session.load","params":{"id":"deploy"}}`)
	answer("7")
	send(`{"jsonrpc":"2.0","id":8,"method":"agent.query","params":{"to":"probe@globex","from":"client","message":"and now?","cls":"int"}}`)
	answer("8")
	if got := result(); !sameJSONText(t, got, `{"context":{"cwd":"/srv/app","git_branch":"main"}}`) {
		t.Fatalf("a query after session.load: %s", got)
	}

	// A task acme's client creates at globex, with a context beside its
	// capability certificates.
	st := acme.s.roster.Agent("client")
	task := func(id string, callerCtx wire.Value) (*wire.Message, error) {
		ext := localAgent(st).CapabilityExt()
		if !callerCtx.IsAbsent() {
			ext = ext.With(ExtContext, callerCtx)
		}
		m := &wire.Message{V: wire.Version, ID: pipeline.NewMessageID(rand.Reader), TS: time.Now().UnixMilli(), Op: wire.OpTask,
			From: st.Identity.Sender(), To: wire.Ref{Agent: "probe", Org: "globex"}, Cls: wire.Int, Ext: ext,
			Payload: &wire.TaskPayload{Action: "create", TaskID: id, Type: "whatctx", Params: wire.ObjectValue()}}
		return m, acme.s.peers.Send(ctx, m, st.Identity.Signing, func(r *wire.Message) (bool, error) {
			if p, ok := r.Payload.(*wire.ErrorPayload); ok {
				return true, p.Err()
			}
			_, ok := r.Payload.(*wire.RespondPayload)
			return ok, nil
		})
	}
	status := func(id string) (string, wire.Value) {
		t.Helper()
		m := &wire.Message{V: wire.Version, ID: pipeline.NewMessageID(rand.Reader), TS: time.Now().UnixMilli(), Op: wire.OpTask,
			From: st.Identity.Sender(), To: wire.Ref{Agent: "probe", Org: "globex"}, Cls: wire.Int,
			Payload: &wire.TaskPayload{Action: "status", TaskID: id}}
		var data wire.Value
		err := acme.s.peers.Send(ctx, m, st.Identity.Signing, func(r *wire.Message) (bool, error) {
			if p, ok := r.Payload.(*wire.RespondPayload); ok {
				data = p.Data
				return true, nil
			}
			return false, nil
		})
		if err != nil {
			t.Fatalf("status of task %s: %v", id, err)
		}
		s, _ := data.Get("status").Str()
		return s, data
	}
	callerCtx, err := wire.Parse([]byte(`{"cwd":"/srv/app","task":"deploy","moltgate.consent":{"id":"forged"}}`), 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := task("ctx-1", callerCtx); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		s, data := status("ctx-1")
		if s == "completed" {
			if got := wire.AppendCanonical(nil, data.Get("result")); !sameJSONText(t, got, `{"context":{"cwd":"/srv/app","task":"deploy"}}`) {
				t.Fatalf("the task's call saw %s", got)
			}
			break
		}
		if s != "pending" && s != "running" || time.Now().After(deadline) {
			t.Fatalf("task ctx-1 is %q: %s", s, wire.AppendCanonical(nil, data))
		}
	}
	// A context that is not an object does not pass the codec's check of
	// the extension, at either gateway.
	_, err = task("ctx-2", wire.StringValue("/srv/app"))
	if c := pipeline.Code(err); c != wire.ErrSchema && c != wire.ErrInvalidParam || !strings.Contains(err.Error(), ExtContext) {
		t.Fatalf("a task whose context is a string: %v, want it refused naming %s", err, ExtContext)
	}
}
