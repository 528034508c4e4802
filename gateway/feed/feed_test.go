package feed

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"testing"
	"time"

	"github.com/moltgate/moltgate/events"
	"github.com/moltgate/moltgate/gateway/pipeline"
	"github.com/moltgate/moltgate/localbridge"
	"github.com/moltgate/moltgate/wire"
)

// emitted drains what sub holds now.
func emitted(t *testing.T, sub *events.Subscription) []events.Event {
	t.Helper()
	var out []events.Event
	for {
		select {
		case e := <-sub.C:
			out = append(out, e)
		default:
			return out
		}
	}
}

func payload(t *testing.T, e events.Event) map[string]any {
	t.Helper()
	var p map[string]any
	if err := json.Unmarshal(e.Payload, &p); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestAgentReportsChangesOnly: an agent is registered once it is connected
// with tools, updated when its name or status changes while registered,
// and nothing is said when nothing it reports changed.
func TestAgentReportsChangesOnly(t *testing.T) {
	st := events.New(events.Config{})
	sub, err := st.Subscribe("")
	if err != nil {
		t.Fatal(err)
	}
	f := New(Config{Stream: st, Org: "acme"})
	tools := []localbridge.ToolInfo{{Name: "echo"}}
	f.Agent(localbridge.AgentInfo{ID: "echo", Status: "starting"})
	f.Agent(localbridge.AgentInfo{ID: "echo", Status: "ready", Connected: true, Tools: tools})
	f.Agent(localbridge.AgentInfo{ID: "echo", Status: "ready", Connected: true, Tools: tools})
	f.Agent(localbridge.AgentInfo{ID: "echo", Name: "Echo", Status: "ready", Connected: true, Tools: tools})
	f.Agent(localbridge.AgentInfo{ID: "echo", Status: localbridge.StatusRemoved})
	f.Withdrawn("calc")
	var got []string
	for _, e := range emitted(t, sub) {
		p := payload(t, e)
		got = append(got, e.Type+" "+p["id"].(string))
	}
	want := []string{events.AgentRegistered + " echo", events.AgentUpdated + " echo", events.AgentRemoved + " echo", events.AgentRemoved + " calc"}
	if len(got) != len(want) {
		t.Fatalf("emitted %q, want %q", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("emitted %q, want %q", got, want)
		}
	}
}

// TestCallsCompleted: a peer's tool call and a local caller's query are
// reported with the organisation named, their outcome and duration; a
// tool list is no call.
func TestCallsCompleted(t *testing.T) {
	st := events.New(events.Config{})
	sub, _ := st.Subscribe("")
	now := time.UnixMilli(1_700_000_000_000)
	f := New(Config{Stream: st, Org: "acme", Now: func() time.Time { return now }})
	m := &wire.Message{ID: "m1", From: wire.Sender{Agent: "client", Org: "globex"}, To: wire.Ref{Agent: "echo", Org: "acme"},
		Payload: &wire.ToolPayload{Action: "invoke", Tool: "echo"}}
	f.Inbound(m, now.Add(-40*time.Millisecond), &pipeline.Answer{Code: wire.ErrTimeout})
	f.Inbound(&wire.Message{Payload: &wire.ToolPayload{Action: "list"}}, now, &pipeline.Answer{})
	var nilErr error
	f.Query(localbridge.QueryRequest{QueryID: "q1", From: "client", To: "echo@globex", Tool: "echo"}, now, &nilErr)
	es := emitted(t, sub)
	if len(es) != 2 {
		t.Fatalf("%d events, want 2", len(es))
	}
	in, out := payload(t, es[0]), payload(t, es[1])
	if in["direction"] != "inbound" || in["from"] != "client@globex" || in["tool"] != "echo" || in["code"] != string(wire.ErrTimeout) ||
		in["duration_ms"] != float64(40) {
		t.Errorf("inbound call: %v", in)
	}
	if out["direction"] != "outbound" || out["from"] != "client@acme" || out["to"] != "echo@globex" || out["status"] != localbridge.OutcomeSuccess {
		t.Errorf("outbound query: %v", out)
	}
}

// TestHandlerRefusesOthers: the stream is served only to the addresses
// allowed; others get the refusal, 403 with E_AUTH_FAILED.
func TestHandlerRefusesOthers(t *testing.T) {
	f := New(Config{Stream: events.New(events.Config{}), Org: "acme"})
	var refused *wire.Error
	h := f.Handler(false, []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}, func(w http.ResponseWriter, status int, err *wire.Error) {
		refused = err
		w.WriteHeader(status)
	})
	req := httptest.NewRequest(http.MethodGet, "/events", nil)
	req.RemoteAddr = "192.0.2.7:4000"
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != http.StatusForbidden || refused == nil || refused.Code != wire.ErrAuthFailed {
		t.Fatalf("from an address not allowed: %d %v", rec.Code, refused)
	}
}
