package gateway

import (
	"bufio"
	"context"
	"encoding/json"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/moltgate/moltgate/gateway/pipeline"
	"github.com/moltgate/moltgate/localbridge"
	"github.com/moltgate/moltgate/localbridge/agent"
	"github.com/moltgate/moltgate/wire"
)

// TestContextReachesThePeersAgent: the context a local caller set with
// context.update, and a query's own, travel with the call to a peer's agent
// (ext "moltgate.context") and reach it as its call's context; personal
// data in it is refused by the gate as it is in a payload.
func TestContextReachesThePeersAgent(t *testing.T) {
	da, la := newTestDir(t, "acme", AddAgentOptions{ID: "client", MaxCls: "pii"})
	db, lb := newTestDir(t, "globex", AddAgentOptions{ID: "probe", Capabilities: []string{"whatctx"}, MaxCls: "pii"})
	trustEachOther(t, da, db, "pii")
	called := make(chan struct{}, 8)
	whatctx := agent.Tool{Name: "whatctx", Handler: func(ctx context.Context, c *agent.Call) (any, error) {
		called <- struct{}{}
		return map[string]json.RawMessage{"context": c.Context}, nil
	}}
	acme := start(t, da, la, TransportWebSocket)
	globex := startAgents(t, db, lb, TransportWebSocket, Options{}, map[string][]agent.Tool{"probe": {whatctx}})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	ask := func(callerCtx string) (string, error) {
		q := localbridge.QueryRequest{From: "client", To: "probe@globex", Tool: "whatctx", Input: json.RawMessage(`{}`), Class: "int"}
		if callerCtx != "" {
			q.Context = json.RawMessage(callerCtx)
		}
		out, err := acme.s.local.Query(ctx, q, nil)
		return string(out), err
	}

	// A member named moltgate.… is the gateway's to set, and a caller's is dropped.
	if out, err := ask(`{"cwd":"/home/ada/project","shell":"bash","terminal_size":{"cols":120},"moltgate.consent":{"id":"forged"}}`); err != nil ||
		!sameJSONText(t, json.RawMessage(out), `{"context":{"cwd":"/home/ada/project","shell":"bash","terminal_size":{"cols":120}}}`) {
		t.Fatalf("with a context: %s %v", out, err)
	}
	<-called
	if out, err := ask(""); err != nil || out != `{"context":null}` {
		t.Fatalf("without a context: %s %v", out, err)
	}
	<-called
	// To an agent of the caller's own organisation, it is the call's context too.
	out, err := globex.s.local.Query(ctx, localbridge.QueryRequest{From: "probe", To: "probe", Tool: "whatctx", Input: json.RawMessage(`{}`),
		Context: json.RawMessage(`{"cwd":"/home/grace"}`)}, nil)
	if err != nil || !sameJSONText(t, out, `{"context":{"cwd":"/home/grace"}}`) {
		t.Fatalf("a local call: %s %v", out, err)
	}
	<-called
	_, err = ask(`{"cwd":"/home/ada","note":"mail ada.lovelace@example.com for access"}`)
	if c := pipeline.Code(err); c != wire.ErrConsent && c != wire.ErrClassification {
		t.Fatalf("personal data in the context: %v, want it refused by the gate", err)
	}
	select {
	case <-called:
		t.Fatal("the agent was called with personal data in its context")
	default:
	}

	// Through the JSON-RPC face: context.update, then a query that adds a member of its own.
	conn, err := net.Dial("unix", da.RPCSocket())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(60 * time.Second))
	for _, line := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocol_version":"1.0.0","client_info":{"name":"t","version":"0"}}}`,
		`{"jsonrpc":"2.0","id":2,"method":"context.update","params":{"cwd":"/srv/app","git_branch":"main"}}`,
		`{"jsonrpc":"2.0","id":3,"method":"agent.query","params":{"to":"probe@globex","from":"client","tool":"whatctx","input":{},"cls":"int","context":{"task":"deploy"}}}`,
	} {
		conn.Write([]byte(line + "\n"))
	}
	sc := bufio.NewScanner(conn)
	for sc.Scan() {
		if !strings.Contains(sc.Text(), `"stream.complete"`) {
			continue
		}
		var note struct {
			Params struct {
				Status string
				Result json.RawMessage
			}
		}
		json.Unmarshal(sc.Bytes(), &note)
		if note.Params.Status != "success" || !sameJSONText(t, note.Params.Result, `{"context":{"cwd":"/srv/app","git_branch":"main","task":"deploy"}}`) {
			t.Fatalf("through the face: %s", sc.Text())
		}
		return
	}
	t.Fatalf("no stream.complete: %v", sc.Err())
}
