package localbridge_test

import (
	"bufio"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/moltgate/moltgate/events"
	"github.com/moltgate/moltgate/localbridge"
)

// script is a scenario of every event type, as the gateway emits them.
func script(s *events.Stream) {
	s.Emit(events.AgentRegistered, map[string]any{"id": "greeter", "name": "greeter", "status": "ok", "capabilities": []string{"greet"}})
	s.Emit(events.SessionUpdate, map[string]any{"peer": "acme", "session_id": "s-1", "state": "opened"})
	s.Emit(events.AgentUpdated, map[string]any{"id": "greeter", "name": "Greeter 2", "status": "ok"})
	s.Emit(events.ApprovalRequested, map[string]any{"execution_id": "x-1", "agent": "greeter", "tool": "delete", "risk": "high"})
	s.Emit(events.ApprovalResolved, map[string]any{"execution_id": "x-1", "status": "approved"})
	s.Emit(events.CallCompleted, map[string]any{"id": "m-1", "direction": "inbound", "from": "client@acme", "to": "greeter@globex", "tool": "greet", "status": "success", "duration_ms": 3})
	s.Emit(events.SessionUpdate, map[string]any{"peer": "acme", "session_id": "s-1", "state": "closed"})
	s.Emit(events.AgentRemoved, map[string]any{"id": "greeter", "reason": "removed"})
}

// TestEventFacesAgree holds that the JSON-RPC socket, Server-Sent Events and the WebSocket give
// one scripted scenario's events with the same ids, order and bytes.
func TestEventFacesAgree(t *testing.T) {
	stream := events.New(events.Config{})
	f := newFace(t, func(c *localbridge.RPCConfig) { c.Events = stream })
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/events/ws" {
			stream.ServeWebSocket(w, r)
			return
		}
		stream.ServeSSE(w, r)
	}))
	defer srv.Close()
	const n = 8

	rpc := f.raw(t, true)
	rpc.line(`{"jsonrpc":"2.0","id":1,"method":"events.subscribe","params":{}}`)
	m := rpc.msg()
	var sub localbridge.EventsSubscribed
	if m.Error != nil || json.Unmarshal(m.Result, &sub) != nil || !sub.Subscribed || sub.StreamID != stream.ID() || sub.Missed {
		t.Fatalf("events.subscribe: %s %v", m.Result, m.Error)
	}

	resp, err := http.Get(srv.URL + "/events")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("SSE content type %q", ct)
	}
	ws, _, err := websocket.DefaultDialer.Dial("ws"+strings.TrimPrefix(srv.URL, "http")+"/events/ws", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	// Each face has subscribed once its first read can begin: the SSE response's headers came
	// after the subscription, the WebSocket's handshake too.
	script(stream)

	var fromRPC, fromSSE, fromWS []string
	for len(fromRPC) < n {
		b, err := rpc.readLine()
		if err != nil {
			t.Fatal(err)
		}
		var note struct {
			Method string
			Params json.RawMessage
		}
		if err := json.Unmarshal(b, &note); err != nil || note.Method != localbridge.NotifyEvent {
			t.Fatalf("notification %s", b)
		}
		fromRPC = append(fromRPC, string(note.Params))
	}
	sc := bufio.NewScanner(resp.Body)
	var ids, names []string
	for len(fromSSE) < n && sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "id: "):
			ids = append(ids, strings.TrimPrefix(line, "id: "))
		case strings.HasPrefix(line, "event: "):
			names = append(names, strings.TrimPrefix(line, "event: "))
		case strings.HasPrefix(line, "data: "):
			fromSSE = append(fromSSE, strings.TrimPrefix(line, "data: "))
		}
	}
	ws.SetReadDeadline(time.Now().Add(20 * time.Second))
	for len(fromWS) < n {
		_, b, err := ws.ReadMessage()
		if err != nil {
			t.Fatal(err)
		}
		fromWS = append(fromWS, string(b))
	}
	if !slices.Equal(fromRPC, fromSSE) || !slices.Equal(fromRPC, fromWS) {
		t.Fatalf("the faces differ:\nrpc %q\nsse %q\nws  %q", fromRPC, fromSSE, fromWS)
	}
	wantTypes := []string{"agent.registered", "session.update", "agent.updated", "approval.requested", "approval.resolved", "call.completed", "session.update", "agent.removed"}
	for i, raw := range fromRPC {
		var e events.Event
		if err := json.Unmarshal([]byte(raw), &e); err != nil {
			t.Fatal(err)
		}
		if e.ID != ids[i] || e.Type != names[i] || e.Type != wantTypes[i] || e.SessionID != stream.ID() || e.CreatedAt == "" || e.Payload[0] != '{' {
			t.Fatalf("event %d: %s (SSE id %s, event %s)", i, raw, ids[i], names[i])
		}
		if want := []string{"1", "2", "3", "4", "5", "6", "7", "8"}[i]; e.ID != want {
			t.Fatalf("event %d has id %s, want %s", i, e.ID, want)
		}
	}
	if strings.Contains(fromRPC[5], "input") || strings.Contains(fromRPC[5], "output") {
		t.Fatalf("call.completed carries content: %s", fromRPC[5])
	}

	// Resuming on each face after id 6 replays 7 and 8.
	rpc.line(`{"jsonrpc":"2.0","id":2,"method":"events.subscribe","params":{"after":"6"}}`)
	if m := rpc.msg(); m.Error != nil {
		t.Fatal(m.Error)
	}
	for _, want := range fromRPC[6:] {
		b, _ := rpc.readLine()
		if !strings.Contains(string(b), want) {
			t.Fatalf("resumed notification %s, want %s", b, want)
		}
	}
	req, _ := http.NewRequest("GET", srv.URL+"/events", nil)
	req.Header.Set("Last-Event-ID", "6")
	resp2, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp2.Body.Close()
	sc = bufio.NewScanner(resp2.Body)
	var resumed []string
	for len(resumed) < 2 && sc.Scan() {
		if d, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
			resumed = append(resumed, d)
		}
	}
	if !slices.Equal(resumed, fromRPC[6:]) {
		t.Fatalf("SSE resumed with %q, want %q", resumed, fromRPC[6:])
	}
	ws2, _, err := websocket.DefaultDialer.Dial("ws"+strings.TrimPrefix(srv.URL, "http")+"/events/ws?after=6", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ws2.Close()
	for _, want := range fromRPC[6:] {
		ws2.SetReadDeadline(time.Now().Add(20 * time.Second))
		if _, b, err := ws2.ReadMessage(); err != nil || string(b) != want {
			t.Fatalf("WebSocket resumed with %s %v, want %s", b, err, want)
		}
	}
}

// TestRPCEventsContract holds events.subscribe and events.unsubscribe to their contract.
func TestRPCEventsContract(t *testing.T) {
	stream := events.New(events.Config{Keep: 2})
	f := newFace(t, func(c *localbridge.RPCConfig) { c.Events = stream })
	r := f.raw(t, false)
	r.line(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocol_version":"1.0.0","client_info":{"name":"raw","version":"0"}}}`)
	var init localbridge.InitializeResult
	json.Unmarshal(r.msg().Result, &init)
	if !slices.Contains(init.Methods, "events.subscribe") || !slices.Contains(init.Methods, "events.unsubscribe") || !slices.Contains(init.Capabilities, "events") {
		t.Fatalf("initialize: %+v", init)
	}
	r.line(`{"jsonrpc":"2.0","id":1,"method":"events.subscribe","params":{"after":"seven"}}`)
	if m := r.msg(); m.Error == nil || m.Error.Code != -32602 || errData(t, m.Error)["field"] != "after" {
		t.Fatalf("a malformed after: %+v", m.Error)
	}
	r.line(`{"jsonrpc":"2.0","id":2,"method":"events.unsubscribe"}`)
	if m := r.msg(); string(m.Result) != `{"unsubscribed":false}` {
		t.Fatalf("unsubscribe without a subscription: %s %v", m.Result, m.Error)
	}
	for i := 0; i < 4; i++ {
		stream.Emit(events.AgentUpdated, map[string]any{"id": "a", "status": "ok"})
	}
	// Only the last two are kept: after id 1 the face replays 3 and 4 and says it missed 2.
	r.line(`{"jsonrpc":"2.0","id":3,"method":"events.subscribe","params":{"after":"1"}}`)
	m := r.msg()
	var sub localbridge.EventsSubscribed
	if json.Unmarshal(m.Result, &sub); !sub.Missed {
		t.Fatalf("subscribe after an event no longer kept: %s", m.Result)
	}
	for _, id := range []string{`"id":"3"`, `"id":"4"`} {
		if b, _ := r.readLine(); !strings.Contains(string(b), id) {
			t.Fatalf("replayed %s, want %s", b, id)
		}
	}
	r.line(`{"jsonrpc":"2.0","id":4,"method":"events.unsubscribe"}`)
	if m := r.msg(); string(m.Result) != `{"unsubscribed":true}` {
		t.Fatalf("unsubscribe: %s %v", m.Result, m.Error)
	}
	stream.Emit(events.AgentUpdated, map[string]any{"id": "a", "status": "degraded"})
	r.line(`{"jsonrpc":"2.0","id":5,"method":"approvals.list"}`)
	if m := r.msg(); m.Method != "" || string(m.ID) != "5" {
		t.Fatalf("an event after unsubscribing: %+v", m)
	}
}
