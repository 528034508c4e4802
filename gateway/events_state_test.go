package gateway

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/moltgate/moltgate/events"
	"github.com/moltgate/moltgate/localbridge"
	"github.com/moltgate/moltgate/localbridge/agent"
	"github.com/moltgate/moltgate/localbridge/credential"
)

// sseReader reads a gateway's event stream as Server-Sent Events.
type sseReader struct {
	t    *testing.T
	ctx  context.Context
	seen chan events.Event
}

// sseEvents subscribes to g's event stream as Server-Sent Events on its
// HTTP face, from now on. A subscriber that falls behind is dropped (a
// loaded machine may be slow to read); the reader then resumes after the
// last event it saw, as a client does with Last-Event-ID, and fails the
// test only if the gateway says events were lost.
func sseEvents(t *testing.T, ctx context.Context, g *testGateway) *sseReader {
	t.Helper()
	open := func(last string) (*http.Response, error) {
		req, _ := http.NewRequestWithContext(ctx, "GET", "https://"+g.s.cfg.Listen.Address+"/events", nil)
		if last != "" {
			req.Header.Set("Last-Event-ID", last)
		}
		resp, err := g.httpClient().Do(req)
		if err == nil && resp.StatusCode != 200 {
			resp.Body.Close()
			err = fmt.Errorf("GET /events: %s", resp.Status)
		}
		return resp, err
	}
	resp, err := open("")
	if err != nil {
		t.Fatal(err)
	}
	seen := make(chan events.Event, 256)
	// The stream's first line, a comment, says the subscription is in place:
	// what is emitted after it is seen.
	ready := make(chan struct{})
	done := make(chan struct{})
	// The reader ends when ctx does, which the test cancels before its
	// cleanups run.
	t.Cleanup(func() { <-done })
	go func() {
		defer close(done)
		defer close(seen)
		first, last := true, ""
		for {
			sc := bufio.NewScanner(resp.Body)
			hello := true
			for sc.Scan() {
				if first {
					first = false
					close(ready)
				}
				if hello {
					hello = false
					if sc.Text() == ": missed" {
						t.Errorf("the event stream resumed after %s had lost events", last)
						return
					}
				}
				if id, ok := strings.CutPrefix(sc.Text(), "id: "); ok {
					last = id
				}
				if d, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
					var e events.Event
					if err := json.Unmarshal([]byte(d), &e); err != nil {
						t.Errorf("an event that is not JSON: %s", d)
						continue
					}
					select {
					case seen <- e:
					case <-ctx.Done():
						return
					}
				}
			}
			resp.Body.Close()
			if ctx.Err() != nil || first {
				return
			}
			r, err := open(last)
			if err != nil {
				return
			}
			resp = r
		}
	}()
	select {
	case <-ready:
	case <-ctx.Done():
		t.Fatal("the event stream did not open")
	}
	return &sseReader{t: t, ctx: ctx, seen: seen}
}

// next returns the next event of type typ and its payload, skipping the
// others.
func (r *sseReader) next(typ string) (events.Event, map[string]any) {
	r.t.Helper()
	e, p, _ := r.read(typ, true)
	return e, p
}

// poll is next without waiting: ok is false when no event of type typ has
// come yet.
func (r *sseReader) poll(typ string) (e events.Event, p map[string]any, ok bool) {
	r.t.Helper()
	return r.read(typ, false)
}

func (r *sseReader) read(typ string, wait bool) (events.Event, map[string]any, bool) {
	r.t.Helper()
	for {
		var e events.Event
		var ok bool
		if wait {
			select {
			case e, ok = <-r.seen:
			case <-r.ctx.Done():
				r.t.Fatalf("no %s event", typ)
			}
		} else {
			// Everything that has come is looked at before saying none has.
			select {
			case e, ok = <-r.seen:
			default:
				return events.Event{}, nil, false
			}
		}
		if !ok {
			r.t.Fatalf("the event stream ended before a %s event", typ)
		}
		if e.Type != typ {
			continue
		}
		var p map[string]any
		if err := json.Unmarshal(e.Payload, &p); err != nil {
			r.t.Fatalf("%s payload %s: %v", typ, e.Payload, err)
		}
		return e, p, true
	}
}

// checkSessionEvent holds a session.update payload to its form: the
// peer's organisation and gateway, a session id, the state and when the
// session expires, in the future.
func checkSessionEvent(t *testing.T, p map[string]any, state string) string {
	t.Helper()
	id, _ := p["session_id"].(string)
	peerAgent, _ := p["peer_agent"].(string)
	exp, err := time.Parse(time.RFC3339, fmt.Sprint(p["expires_at"]))
	if p["state"] != state || p["peer"] != "acme" || !strings.HasSuffix(peerAgent, "@acme") || id == "" || err != nil || !exp.After(time.Now()) || len(p) != 5 {
		t.Fatalf("session.update %v, want a session with acme %s", p, state)
	}
	return id
}

// TestSessionEvents: globex's event stream says when a session with acme
// is opened, when acme renews it (a new session replacing the live one,
// here once half of its bytes are spent), and when each is closed because
// acme is no longer a peer: each session.update names its session, and
// every session announced is closed once.
func TestSessionEvents(t *testing.T) {
	da, la := newTestDir(t, "acme", AddAgentOptions{ID: "client", MaxCls: "pii"})
	db, lb := newTestDir(t, "globex", AddAgentOptions{ID: "echo", Capabilities: []string{"echo.text"}, QueryTool: "echo", MaxCls: "pii"})
	trustEachOther(t, da, db, "pii")
	for _, d := range []Dir{da, db} {
		// Sessions of 1 MiB (100 MiB by default), so that a few calls wear one out.
		editConfig(t, d, "session_bytes = 104857600", "session_bytes = 1048576",
			"agent_per_second = 50.0", "agent_per_second = 100000.0",
			"peer_org_per_second = 200.0", "peer_org_per_second = 100000.0")
	}
	acme, globex := start(t, da, la, TransportHTTP), start(t, db, lb, TransportHTTP)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	ev := sseEvents(t, ctx, globex)
	callEcho := func(text string) {
		t.Helper()
		in, _ := json.Marshal(map[string]any{"text": text})
		if _, err := acme.s.local.Query(ctx, localbridge.QueryRequest{From: "client", To: "echo@globex", Tool: "echo", Input: in}, nil); err != nil {
			t.Fatal(err)
		}
	}

	callEcho("hello")
	_, p := ev.next(events.SessionUpdate)
	opened := checkSessionEvent(t, p, "opened")

	// About 64 KiB a call, request and reply: the session is worn after
	// eight or so, and the call after that makes a new one. Calls go on
	// until the renewal is announced.
	big := strings.Repeat("renew me ", 3600)
	var second string
	for i := 0; second == ""; i++ {
		if i == 64 {
			t.Fatalf("%d calls of 64 KiB and no renewal of a 1 MiB session", i)
		}
		callEcho(big)
		if _, p, ok := ev.poll(events.SessionUpdate); ok {
			second = checkSessionEvent(t, p, "renewed")
		}
	}
	if second == opened {
		t.Fatalf("renewed session %s is the one opened", second)
	}
	if got, err := globex.s.sessions.Get(second); err != nil || got.ID() != second {
		t.Fatalf("the renewed session %s is not globex's live one: %v", second, err)
	}

	// acme is no longer a peer: its sessions end, each announced. Calls
	// made before the renewal was read may have renewed it again: those
	// renewals come first.
	announced := map[string]bool{opened: true, second: true}
	if _, err := RemovePeer(db, "acme"); err != nil {
		t.Fatal(err)
	}
	if err := globex.s.ReloadPeers(ctx); err != nil {
		t.Fatal(err)
	}
	for len(announced) > 0 {
		_, p := ev.next(events.SessionUpdate)
		if p["state"] == "renewed" {
			announced[checkSessionEvent(t, p, "renewed")] = true
			continue
		}
		id := checkSessionEvent(t, p, "closed")
		if !announced[id] {
			t.Fatalf("session %s closed, which was not announced or was closed before", id)
		}
		delete(announced, id)
	}
	if n := globex.s.sessions.CountByOrg()["acme"]; n != 0 {
		t.Fatalf("%d sessions with acme left after it was removed", n)
	}
}

// TestAgentHealthEvents: an agent's status, as its heartbeats report its
// health, is announced as agent.updated each time it changes (ok →
// degraded → ok), and so is its going offline when its connection ends;
// heartbeats that say nothing new are not announced. Away for longer than
// local.withdraw_after, it is announced removed (withdrawn), and registered
// again when it comes back with its key.
func TestAgentHealthEvents(t *testing.T) {
	// Mostly waiting (on heartbeats, every 5 s), so it runs beside the others that wait.
	t.Parallel()
	db, lb := newTestDir(t, "globex")
	editConfig(t, db, `withdraw_after = "2m"`, `withdraw_after = "1s"`)
	globex := start(t, db, lb, TransportWebSocket)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	ev := sseEvents(t, ctx, globex)

	// Added while serving, so that no agent of the test harness takes its place.
	if _, err := AddAgent(db, AddAgentOptions{ID: "moody", Capabilities: []string{"mood"}}); err != nil {
		t.Fatal(err)
	}
	if err := globex.s.ReloadAgents(ctx); err != nil {
		t.Fatal(err)
	}
	tok, err := (&credential.Store{Dir: db.CredentialsDir()}).Issue("moody", time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	var status atomic.Value
	status.Store("ok")
	beats := make(chan string, 64)
	keyFile := filepath.Join(t.TempDir(), "key")
	a := &agent.Agent{ID: "moody", KeyFile: keyFile, Health: func() (string, map[string]any) {
		s := status.Load().(string)
		select {
		case beats <- s:
		default:
		}
		return s, nil
	}}
	a.Add(agent.Tool{Name: "mood", Handler: func(ctx context.Context, c *agent.Call) (any, error) { return status.Load(), nil }})
	run := func(secret string) (stop func()) {
		conn, err := net.Dial("unix", db.CoreSocket())
		if err != nil {
			t.Fatal(err)
		}
		actx, cancel := context.WithCancel(ctx)
		served := make(chan struct{})
		go func() { a.Serve(actx, conn, secret); close(served) }()
		return func() { cancel(); <-served }
	}
	stopAgent := run(tok)
	defer func() { stopAgent() }()

	_, p := ev.next(events.AgentRegistered)
	if p["id"] != "moody" || p["status"] != "ok" {
		t.Fatalf("agent.registered %v", p)
	}
	// change sets the health the next heartbeat reports, and waits for the
	// event that announces it.
	change := func(to string) events.Event {
		t.Helper()
		status.Store(to)
		e, p := ev.next(events.AgentUpdated)
		if len(p) != 3 || p["id"] != "moody" || p["name"] != "moody" || p["status"] != to {
			t.Fatalf("agent.updated %v, want moody %s", p, to)
		}
		return e
	}
	first := change("degraded")
	// A heartbeat that repeats the status is no change: the next event is
	// the one after the status changes again.
	for s := range beats {
		if s == "degraded" {
			break
		}
	}
	for s := range beats {
		if s == "degraded" {
			break
		}
	}
	back := change("ok")
	if n, m := eventNumber(t, first), eventNumber(t, back); m != n+1 {
		t.Fatalf("agent.updated %d then %d: events came between, %d", n, m, m-n-1)
	}
	stopAgent()
	if _, p := ev.next(events.AgentUpdated); p["id"] != "moody" || p["status"] != "offline" {
		t.Fatalf("agent.updated %v, want moody offline", p)
	}
	if _, p := ev.next(events.AgentRemoved); len(p) != 2 || p["id"] != "moody" || p["reason"] != "withdrawn" {
		t.Fatalf("agent.removed %v, want moody withdrawn", p)
	}
	key, err := os.ReadFile(keyFile)
	if err != nil {
		t.Fatal(err)
	}
	stopAgent = run(strings.TrimSpace(string(key)))
	if _, p := ev.next(events.AgentRegistered); p["id"] != "moody" || p["status"] != "ok" || fmt.Sprint(p["capabilities"]) != "[mood]" {
		t.Fatalf("agent.registered %v, want moody back", p)
	}
}

func eventNumber(t *testing.T, e events.Event) int {
	t.Helper()
	var n int
	if _, err := fmt.Sscan(e.ID, &n); err != nil {
		t.Fatalf("event id %q: %v", e.ID, err)
	}
	return n
}
