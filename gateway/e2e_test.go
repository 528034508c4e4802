package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/moltgate/moltgate/gateway/pipeline"
	"github.com/moltgate/moltgate/internal/logbuf"
	"github.com/moltgate/moltgate/localbridge"
	"github.com/moltgate/moltgate/localbridge/agent"
	"github.com/moltgate/moltgate/localbridge/agent/echo"
	"github.com/moltgate/moltgate/wire"
)

// testGateway is a gateway running in process on loopback, with one echo
// agent connected through its real OpenSentience socket.
type testGateway struct {
	t   testing.TB
	dir Dir
	s   *Server
	ls  *Listeners
	log *logbuf.Buffer
}

// newTestDir initialises a gateway directory bound to two fresh loopback
// ports. Socket paths must stay short, so the directory is not under the
// test's (long) temporary directory.
func newTestDir(t testing.TB, org string, agents ...AddAgentOptions) (Dir, *Listeners) {
	t.Helper()
	root, err := os.MkdirTemp("", "mg")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(root) })
	lh, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	lg, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	d := Dir(filepath.Join(root, org))
	if _, err := Init(d, InitOptions{Org: org, Listen: lh.Addr().String(), GRPC: lg.Addr().String()}); err != nil {
		t.Fatal(err)
	}
	for _, a := range agents {
		if _, err := AddAgent(d, a); err != nil {
			t.Fatal(err)
		}
	}
	return d, &Listeners{HTTP: lh, GRPC: lg}
}

// trustEachOther imports each gateway's peer document into the other.
func trustEachOther(t testing.TB, a, b Dir, maxCls string) {
	t.Helper()
	for _, p := range [][2]Dir{{a, b}, {b, a}} {
		doc, err := ExportPeer(p[0], nil, time.Now())
		if err != nil {
			t.Fatal(err)
		}
		if _, err := ImportPeer(p[1], doc, ImportOptions{MaxCls: maxCls}); err != nil {
			t.Fatal(err)
		}
	}
}

// start opens and serves a gateway, and connects an echo agent for each
// local agent it has.
// start serves the gateway of d. Scheduled registry sync is off, so that
// tests sync when they say; withSync turns it back on.
func start(t testing.TB, d Dir, ls *Listeners, transport string, opts ...func(*Server)) *testGateway {
	t.Helper()
	return startWith(t, d, ls, transport, Options{}, opts...)
}

// startWith is start with Options of the test's own (Dir and Logger are
// filled in).
func startWith(t testing.TB, d Dir, ls *Listeners, transport string, o Options, opts ...func(*Server)) *testGateway {
	t.Helper()
	return startAgents(t, d, ls, transport, o, nil, opts...)
}

// startAgents is startWith connecting, for the local agents that tools
// names, agents with those tools in place of the echo agent.
func startAgents(t testing.TB, d Dir, ls *Listeners, transport string, o Options, tools map[string][]agent.Tool, opts ...func(*Server)) *testGateway {
	t.Helper()
	g := &testGateway{t: t, dir: d, ls: ls, log: &logbuf.Buffer{}}
	logger := slog.New(slog.NewJSONHandler(g.log, &slog.HandlerOptions{Level: slog.LevelDebug}))
	o.Dir, o.Logger = d, logger
	s, err := Open(o)
	if err != nil {
		t.Fatal(err)
	}
	s.cfg.Peers.Transport = transport
	s.cfg.Directory.SyncInterval = -1
	for _, o := range opts {
		o(s)
	}
	g.s = s
	if ls.Core, err = localbridge.ListenUnix(d.CoreSocket()); err != nil {
		t.Fatal(err)
	}
	if ls.RPC, err = localbridge.ListenUnix(d.RPCSocket()); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- s.Serve(ls) }()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(func() {
		cancel()
		sctx, c2 := context.WithTimeout(context.Background(), 10*time.Second)
		defer c2()
		s.Shutdown(sctx)
		if err := <-done; !errors.Is(err, ErrServerClosed) {
			t.Errorf("Serve: %v", err)
		}
	})
	for id := range s.roster.All() {
		tok, err := s.core.ProvisionToken(id, time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		conn, err := net.Dial("unix", d.CoreSocket())
		if err != nil {
			t.Fatal(err)
		}
		a := echo.New()
		if ts, ok := tools[id]; ok {
			a = &agent.Agent{Version: "1.0.0"}
			for _, tool := range ts {
				a.Add(tool)
			}
		}
		a.ID = id
		a.Logger = logger
		go a.Serve(ctx, conn, tok.Reveal())
		deadline := time.Now().Add(10 * time.Second)
		for info, _ := s.core.Agent(id); len(info.Tools) == 0 || !info.Healthy; info, _ = s.core.Agent(id) {
			if time.Now().After(deadline) {
				t.Fatalf("agent %s did not register", id)
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	return g
}

func (g *testGateway) logs() string { return g.log.String() }

// withSync turns scheduled registry sync on, at the default interval.
func withSync(s *Server) { s.cfg.Directory.SyncInterval = Duration(5 * time.Minute) }

func twoGateways(t *testing.T, transport string) (*testGateway, *testGateway) {
	t.Helper()
	da, la := newTestDir(t, "acme", AddAgentOptions{ID: "client", MaxCls: "pii"})
	db, lb := newTestDir(t, "globex", AddAgentOptions{ID: "echo", Capabilities: []string{"echo.text"}, QueryTool: "echo", MaxCls: "pii"})
	trustEachOther(t, da, db, "pii")
	return start(t, da, la, transport), start(t, db, lb, transport)
}

func TestCrossOrgToolCall(t *testing.T) {
	for _, tr := range []string{TransportWebSocket, TransportGRPC, TransportHTTP} {
		t.Run(tr, func(t *testing.T) {
			acme, _ := twoGateways(t, tr)
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			var events []localbridge.StreamEvent
			out, err := acme.s.local.Query(ctx, localbridge.QueryRequest{From: "client", To: "echo@globex", Tool: "echo",
				Input: json.RawMessage(`{"text":"hello across orgs","repeat":3,"meta":true}`), Class: "conf"},
				func(ev localbridge.StreamEvent) error { events = append(events, ev); return nil })
			if err != nil {
				t.Fatalf("call: %v", err)
			}
			var res struct {
				Text   string `json:"text"`
				Caller struct {
					ID string `json:"id"`
				} `json:"caller"`
			}
			if err := json.Unmarshal(out, &res); err != nil {
				t.Fatal(err)
			}
			if res.Text != "hello across orgs" || res.Caller.ID != "client@acme" {
				t.Fatalf("result %s", out)
			}
			// The chunks give the text streamed, whole (the gateway may
			// cut them elsewhere than the agent did; see textStream).
			var streamed strings.Builder
			for _, ev := range events {
				streamed.WriteString(ev.Text)
			}
			if tr != TransportHTTP && streamed.String() != strings.Repeat("hello across orgs", 3) {
				t.Fatalf("streamed %q in %d chunks", streamed.String(), len(events))
			}
			// A second call reuses the session.
			if _, err := acme.s.local.Query(ctx, localbridge.QueryRequest{From: "client", To: "echo@globex", Tool: "echo",
				Input: json.RawMessage(`{"text":"again"}`)}, nil); err != nil {
				t.Fatalf("second call: %v", err)
			}
		})
	}
}

func TestCrossOrgRefusals(t *testing.T) {
	acme, globex := twoGateways(t, TransportWebSocket)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	call := func(req localbridge.QueryRequest) error {
		req.From, req.To = "client", "echo@globex"
		if req.Tool == "" {
			req.Tool = "echo"
		}
		_, err := acme.s.local.Query(ctx, req, nil)
		return err
	}
	wantCode := func(err error, c wire.Code) {
		t.Helper()
		if pipeline.Code(err) != c {
			t.Fatalf("got %v, want %s", err, c)
		}
	}
	// Personal data without a consent is stopped before it leaves.
	wantCode(call(localbridge.QueryRequest{Input: json.RawMessage(`{"text":"write to jane.doe@example.com"}`)}), wire.ErrConsent)
	// With a consent from acme for globex's agent it goes through.
	tok, err := acme.s.local.IssueConsent(ctx, localbridge.ConsentRequest{Grantee: "echo@globex", Purpose: "support", DataTypes: []string{"email"}, TTL: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	if err := call(localbridge.QueryRequest{Input: json.RawMessage(`{"text":"write to jane.doe@example.com"}`), Consent: tok}); err != nil {
		t.Fatalf("with consent: %v", err)
	}
	// A query (no tool: the agent's query tool) of personal data needs
	// level 4 as a tool call does; the capability certificates go with it,
	// and it reaches the agent, whose echo tool wants its text at the top
	// of the input rather than in the query's params.
	_, err = acme.s.local.Query(ctx, localbridge.QueryRequest{From: "client", To: "echo@globex",
		Input: json.RawMessage(`{"text":"write to jane.doe@example.com"}`), Consent: tok}, nil)
	if we := pipeline.AsWire(err); we == nil || we.Code != wire.ErrInvalidParam || we.Field != "p.input.text" {
		t.Fatalf("a query with consent: %v, want the agent's E_INVALID_PARAM on p.input.text", err)
	}
	// A secret never leaves outside sec.
	wantCode(call(localbridge.QueryRequest{Input: json.RawMessage(`{"text":"key AKIAIOSFODNN7EXAMPLF and secret wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"}`)}), wire.ErrClassification)
	// Above the peer's ceiling (pii).
	wantCode(call(localbridge.QueryRequest{Input: json.RawMessage(`{"text":"x"}`), Class: "sec"}), wire.ErrClassification)
	// An unknown tool is the agent's E_INVALID_PARAM.
	wantCode(call(localbridge.QueryRequest{Tool: "nope", Input: json.RawMessage(`{}`)}), wire.ErrInvalidParam)
	// Input that fails the tool's schema names the field.
	err = call(localbridge.QueryRequest{Input: json.RawMessage(`{"text":5}`)})
	wantCode(err, wire.ErrInvalidParam)
	// The logs of both gateways hold no message content.
	for _, g := range []*testGateway{acme, globex} {
		if l := g.logs(); strings.Contains(l, "jane.doe@example.com") || strings.Contains(l, "wJalrXUtnFEMI") {
			t.Fatalf("%s logged content:\n%s", g.s.Org(), l)
		}
	}
}

// TestGracefulShutdown: calls in flight when the peer gateway shuts down
// complete, over every transport, and the shutdown waits for them.
func TestGracefulShutdown(t *testing.T) {
	// Mostly waiting (on a slow call and the drain), so it runs beside the others that wait.
	t.Parallel()
	for _, tr := range []string{TransportWebSocket, TransportGRPC, TransportHTTP} {
		t.Run(tr, func(t *testing.T) {
			acme, globex := twoGateways(t, tr)
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			// Open the session first so that the slow call is the only
			// thing in flight.
			if _, err := acme.s.local.Query(ctx, localbridge.QueryRequest{From: "client", To: "echo@globex", Tool: "echo", Input: json.RawMessage(`{"text":"warm"}`)}, nil); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() {
				out, err := acme.s.local.Query(ctx, localbridge.QueryRequest{From: "client", To: "echo@globex", Tool: "sleep", Input: json.RawMessage(`{"ms":800}`)}, nil)
				if err == nil && !strings.Contains(string(out), `"slept_ms":800`) {
					err = errors.New("unexpected result " + string(out))
				}
				done <- err
			}()
			for wait := time.Now().Add(5 * time.Second); globex.s.flight.Count() == 0; {
				select {
				case err := <-done:
					t.Fatalf("the slow call ended before the shutdown: %v", err)
				default:
				}
				if time.Now().After(wait) {
					t.Fatal("the slow call never reached the peer")
				}
				time.Sleep(2 * time.Millisecond)
			}
			sctx, c2 := context.WithTimeout(context.Background(), 10*time.Second)
			defer c2()
			start := time.Now()
			if err := globex.s.Shutdown(sctx); err != nil {
				t.Fatalf("shutdown: %v", err)
			}
			if err := <-done; err != nil {
				t.Fatalf("call in flight: %v", err)
			}
			if time.Since(start) > 8*time.Second {
				t.Fatalf("shutdown took %v", time.Since(start))
			}
			// New calls are refused at once, not left hanging.
			qctx, c3 := context.WithTimeout(context.Background(), 5*time.Second)
			defer c3()
			if _, err := acme.s.local.Query(qctx, localbridge.QueryRequest{From: "client", To: "echo@globex", Tool: "echo", Input: json.RawMessage(`{"text":"late"}`)}, nil); err == nil {
				t.Fatal("a call to a gateway that shut down succeeded")
			}
		})
	}
}

// TestShutdownRefusesOnlyTheNewCall: while a gateway drains, a new call
// that arrives on a peer's connection still open (a WebSocket or gRPC
// stream carries many calls) is refused by itself, E_PEER_UNAVAILABLE; the
// call in flight on the same connection still gets its answer.
func TestShutdownRefusesOnlyTheNewCall(t *testing.T) {
	for _, tr := range []string{TransportWebSocket, TransportGRPC} {
		t.Run(tr, func(t *testing.T) {
			acme, globex := twoGateways(t, tr)
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			query := func(tool, input string) (json.RawMessage, error) {
				return acme.s.local.Query(ctx, localbridge.QueryRequest{From: "client", To: "echo@globex", Tool: tool, Input: json.RawMessage(input)}, nil)
			}
			if _, err := query("echo", `{"text":"warm"}`); err != nil {
				t.Fatal(err)
			}
			slow := make(chan error, 1)
			go func() {
				_, err := query("sleep", `{"ms":1000}`)
				slow <- err
			}()
			for wait := time.Now().Add(5 * time.Second); globex.s.flight.Count() == 0; time.Sleep(2 * time.Millisecond) {
				if time.Now().After(wait) {
					t.Fatal("the slow call never reached the peer")
				}
			}
			shut := make(chan error, 1)
			go func() {
				sctx, c2 := context.WithTimeout(context.Background(), 10*time.Second)
				defer c2()
				shut <- globex.s.Shutdown(sctx)
			}()
			for !globex.s.closing.Load() {
				time.Sleep(time.Millisecond)
			}
			if _, err := query("echo", `{"text":"late"}`); pipeline.Code(err) != wire.ErrPeerUnavailable {
				t.Fatalf("a new call while draining: %v, want E_PEER_UNAVAILABLE", err)
			}
			if err := <-slow; err != nil {
				t.Fatalf("the call in flight: %v", err)
			}
			if err := <-shut; err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestLocalCallerSeesSuggestions: a local caller on the JSON-RPC socket gets
// the code, field and recovery hint of a refusal, such as the data types a
// consent must cover.
func TestLocalCallerSeesSuggestions(t *testing.T) {
	acme, _ := twoGateways(t, TransportWebSocket)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	c, err := localbridge.Dial(ctx, acme.dir.RPCSocket(), localbridge.ClientOptions{Name: "test"})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_, err = c.Query(ctx, localbridge.QueryRequest{From: "client", To: "echo@globex", Tool: "echo",
		Input: json.RawMessage(`{"text":"mail jane.doe@example.com"}`)}, nil)
	var re *localbridge.RPCError
	if !errors.As(err, &re) || re.MoltSpeakCode != string(wire.ErrConsent) {
		t.Fatalf("got %v, want E_CONSENT", err)
	}
	var sg wire.Suggestion
	if err := json.Unmarshal(re.Suggestion, &sg); err != nil || sg.Action != wire.ActionRequestConsent || len(sg.DataTypes) != 1 || sg.DataTypes[0] != "email" {
		t.Fatalf("suggestion %s", re.Suggestion)
	}
	if strings.Contains(re.Error(), "jane.doe") {
		t.Fatal("the refusal echoes the content")
	}
}
