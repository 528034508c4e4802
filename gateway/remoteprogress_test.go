package gateway

import (
	"bufio"
	"context"
	"encoding/json"
	"net"
	"reflect"
	"testing"
	"time"

	"github.com/moltgate/moltgate/localbridge/agent"
)

// TestProgressFromThePeersAgent: what a peer's agent says on its status
// channel crosses both gateways and reaches the local caller's JSON-RPC
// face as the IPC protocol's notifications: tool.progress during a tool
// call, ended by tool.complete, and agent.thinking during a query by
// message (analyzing until the agent has written output, generating
// after), each beside the stream.token of the same note, in the order the
// agent said them.
func TestProgressFromThePeersAgent(t *testing.T) {
	da, la := newTestDir(t, "acme", AddAgentOptions{ID: "client", MaxCls: "pii"})
	db, lb := newTestDir(t, "globex", AddAgentOptions{ID: "worker", Capabilities: []string{"work"}, QueryTool: "work", MaxCls: "pii"})
	trustEachOther(t, da, db, "pii")
	work := agent.Tool{Name: "work", Handler: func(ctx context.Context, c *agent.Call) (any, error) {
		for _, step := range []func() error{
			func() error { return c.Status("reading the files") },
			// Ended by a newline: output text crosses to a peer at word
			// boundaries, and a word not yet ended would be held back
			// while the status note after it went on.
			func() error { return c.Stream("out\n") },
			func() error { return c.Status("checking") },
		} {
			if err := step(); err != nil {
				return nil, err
			}
		}
		return map[string]bool{"done": true}, nil
	}}
	start(t, da, la, TransportWebSocket)
	startAgents(t, db, lb, TransportWebSocket, Options{}, map[string][]agent.Tool{"worker": {work}})

	conn, err := net.Dial("unix", da.RPCSocket())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(60 * time.Second))
	sc := bufio.NewScanner(conn)
	type note struct {
		Method string
		Params map[string]any
	}
	// query sends an agent.query and returns the notifications of its
	// reply, up to its stream.complete.
	query := func(id, params string) []note {
		t.Helper()
		if _, err := conn.Write([]byte(`{"jsonrpc":"2.0","id":` + id + `,"method":"agent.query","params":` + params + "}\n")); err != nil {
			t.Fatal(err)
		}
		var out []note
		for sc.Scan() {
			var n note
			if err := json.Unmarshal(sc.Bytes(), &n); err != nil {
				t.Fatalf("%s: %v", sc.Text(), err)
			}
			if n.Method == "" {
				continue // the answer: query_id, processing
			}
			out = append(out, n)
			if n.Method == "stream.complete" {
				if n.Params["status"] != "success" {
					t.Fatalf("query %s: %s", params, sc.Text())
				}
				return out
			}
		}
		t.Fatalf("no stream.complete: %v", sc.Err())
		return nil
	}
	methods := func(ns []note) []string {
		var m []string
		for _, n := range ns {
			m = append(m, n.Method)
		}
		return m
	}
	conn.Write([]byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocol_version":"1.0.0","client_info":{"name":"t","version":"0"}}}` + "\n"))

	ns := query("2", `{"to":"worker@globex","from":"client","tool":"work","input":{},"cls":"int"}`)
	if got, want := methods(ns), []string{"stream.token", "tool.progress", "stream.token", "stream.token", "tool.progress", "tool.complete", "stream.complete"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("a tool call at a peer: %v, want %v: %v", got, want, ns)
	}
	q := ns[0].Params["query_id"]
	for i, msg := range map[int]string{1: "reading the files", 4: "checking"} {
		p := ns[i].Params
		progress, _ := p["progress"].(map[string]any)
		if p["execution_id"] != q || p["query_id"] != q || progress["message"] != msg || progress["status"] != "processing" {
			t.Fatalf("tool.progress %d: %v", i, p)
		}
	}
	if p := ns[5].Params; p["execution_id"] != q || p["tool"] != "work" || p["status"] != "success" {
		t.Fatalf("tool.complete: %v", p)
	}

	ns = query("3", `{"to":"worker@globex","from":"client","message":"what do you see?","cls":"int"}`)
	if got, want := methods(ns), []string{"stream.token", "agent.thinking", "stream.token", "stream.token", "agent.thinking", "stream.complete"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("a query at a peer: %v, want %v", got, want)
	}
	for i, want := range map[int][2]string{1: {"analyzing", "reading the files"}, 4: {"generating", "checking"}} {
		if p := ns[i].Params; p["phase"] != want[0] || p["message"] != want[1] || p["query_id"] != ns[0].Params["query_id"] {
			t.Fatalf("agent.thinking %d: %v, want %v", i, p, want)
		}
	}
}
