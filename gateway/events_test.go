package gateway

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/moltgate/moltgate/events"
	"github.com/moltgate/moltgate/localbridge"
	"github.com/moltgate/moltgate/localbridge/agent"
	"github.com/moltgate/moltgate/localbridge/credential"
)

// TestEventStream runs a scenario through two gateways and holds globex's
// event stream, read as Server-Sent Events from its HTTP face, to what
// happened: an agent started elsewhere registers and renames itself (the
// name reaches acme's directory through the signed registry entry), acme
// calls it in a session, a held call is approved, and the agent is
// removed.
func TestEventStream(t *testing.T) {
	da, la := newTestDir(t, "acme", AddAgentOptions{ID: "client", MaxCls: "pii"})
	db, lb := newTestDir(t, "globex")
	trustEachOther(t, da, db, "pii")
	acme, globex := start(t, da, la, TransportWebSocket), start(t, db, lb, TransportWebSocket)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	req, _ := http.NewRequestWithContext(ctx, "GET", "https://"+globex.s.cfg.Listen.Address+"/events", nil)
	resp, err := globex.httpClient().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("GET /events: %s %s", resp.Status, resp.Header.Get("Content-Type"))
	}
	seen := make(chan events.Event, 64)
	go func() {
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			if d, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
				var e events.Event
				json.Unmarshal([]byte(d), &e)
				seen <- e
			}
		}
	}()
	// next returns the next event of type typ, skipping others (agent.updated of the
	// agent's health, the sessions' renewals) but for those in must, which fail the test.
	next := func(typ string) map[string]any {
		t.Helper()
		for {
			select {
			case e := <-seen:
				if e.Type != typ {
					continue
				}
				var p map[string]any
				json.Unmarshal(e.Payload, &p)
				return p
			case <-time.After(30 * time.Second):
				t.Fatalf("no %s event", typ)
			}
		}
	}

	// Added while serving, so that no agent of the test harness takes its place.
	if _, err := AddAgent(db, AddAgentOptions{ID: "handy", Capabilities: []string{"greet"}, MaxCls: "pii"}); err != nil {
		t.Fatal(err)
	}
	if err := globex.s.ReloadAgents(ctx); err != nil {
		t.Fatal(err)
	}
	tok, err := (&credential.Store{Dir: db.CredentialsDir()}).Issue("handy", time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	a := &agent.Agent{ID: "handy"}
	a.Add(agent.Tool{Name: "greet", Handler: func(ctx context.Context, c *agent.Call) (any, error) { return map[string]string{"hi": "there"}, nil }})
	a.Add(agent.Tool{Name: "delete", SideEffects: true, Handler: func(ctx context.Context, c *agent.Call) (any, error) { return map[string]bool{"deleted": true}, nil }})
	conn, err := net.Dial("unix", db.CoreSocket())
	if err != nil {
		t.Fatal(err)
	}
	actx, stopAgent := context.WithCancel(ctx)
	served := make(chan error, 1)
	go func() { served <- a.Serve(actx, conn, tok) }()
	defer func() { stopAgent(); <-served }()

	if p := next(events.AgentRegistered); p["id"] != "handy" || p["name"] != "handy" || p["status"] != "ok" || fmt.Sprint(p["capabilities"]) != "[delete greet]" {
		t.Fatalf("agent.registered %v", p)
	}
	if err := a.Rename("Handy Helper"); err != nil {
		t.Fatal(err)
	}
	if p := next(events.AgentUpdated); p["id"] != "handy" || p["name"] != "Handy Helper" {
		t.Fatalf("agent.updated %v", p)
	}
	eventually(t, "the new name in acme's directory", func() error {
		if _, err := acme.s.registry.SyncDirectory(ctx, localbridge.SyncRequest{Peer: "globex"}); err != nil {
			return err
		}
		out, err := acme.s.local.Discover(ctx, localbridge.DiscoverRequest{Capability: "greet", Org: "globex"})
		if err != nil {
			return err
		}
		if !strings.Contains(string(out), `"name":"Handy Helper"`) {
			return errors.New(string(out))
		}
		return nil
	})

	if _, err := acme.s.local.Query(ctx, localbridge.QueryRequest{From: "client", To: "handy@globex", Tool: "greet", Input: json.RawMessage(`{}`), Class: "int"}, nil); err != nil {
		t.Fatal(err)
	}
	if p := next(events.SessionUpdate); p["peer"] != "acme" || p["state"] != "opened" || p["session_id"] == "" {
		t.Fatalf("session.update %v", p)
	}
	p := next(events.CallCompleted)
	if p["direction"] != "inbound" || p["from"] != "client@acme" || p["to"] != "handy@globex" || p["tool"] != "greet" || p["status"] != "success" {
		t.Fatalf("call.completed %v", p)
	}
	for k := range p {
		if k != "id" && k != "direction" && k != "from" && k != "to" && k != "tool" && k != "status" && k != "duration_ms" {
			t.Fatalf("call.completed carries %s: %v", k, p)
		}
	}

	held := make(chan error, 1)
	go func() {
		_, err := acme.s.local.Query(ctx, localbridge.QueryRequest{From: "client", To: "handy@globex", Tool: "delete", Input: json.RawMessage(`{}`), Class: "int"}, nil)
		held <- err
	}()
	p = next(events.ApprovalRequested)
	if p["agent"] != "handy" || p["tool"] != "delete" || p["execution_id"] == "" || p["arguments"] != nil {
		t.Fatalf("approval.requested %v", p)
	}
	if err := globex.s.approvals.Decide(p["execution_id"].(string), true); err != nil {
		t.Fatal(err)
	}
	if r := next(events.ApprovalResolved); r["execution_id"] != p["execution_id"] || r["status"] != "approved" {
		t.Fatalf("approval.resolved %v", r)
	}
	if err := <-held; err != nil {
		t.Fatal(err)
	}

	if _, err := RemoveAgent(db, "handy"); err != nil {
		t.Fatal(err)
	}
	if err := globex.s.ReloadAgents(ctx); err != nil {
		t.Fatal(err)
	}
	if p := next(events.AgentRemoved); p["id"] != "handy" || p["reason"] != "removed" {
		t.Fatalf("agent.removed %v", p)
	}
}
