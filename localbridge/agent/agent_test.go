package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/moltgate/moltgate/localbridge"
	"github.com/moltgate/moltgate/localbridge/agent"
	"github.com/moltgate/moltgate/localbridge/osp"
)

type gateway struct {
	core   *localbridge.Core
	socket string
}

func newGateway(t *testing.T, cfg localbridge.Config) *gateway {
	t.Helper()
	dir, err := os.MkdirTemp("", "agt")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	l, err := localbridge.ListenUnix(dir + "/core.sock")
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	g := &gateway{core: localbridge.NewCore(cfg), socket: l.Addr().String()}
	go g.core.Serve(l)
	t.Cleanup(func() { g.core.Close() })
	return g
}

// start runs a with a fresh token; the returned channel yields Serve's result.
func (g *gateway) start(t *testing.T, a *agent.Agent) (<-chan error, context.CancelFunc) {
	t.Helper()
	if _, ok := g.core.Agent(a.ID); !ok {
		g.core.AddAgent(localbridge.AgentSpec{ID: a.ID})
	}
	tok, err := g.core.ProvisionToken(a.ID, 0)
	if err != nil {
		t.Fatal(err)
	}
	return g.serve(t, a, tok.Reveal())
}

func (g *gateway) serve(t *testing.T, a *agent.Agent, token string) (<-chan error, context.CancelFunc) {
	conn, err := net.Dial("unix", g.socket)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- a.Serve(ctx, conn, token) }()
	t.Cleanup(cancel)
	return done, cancel
}

func (g *gateway) ready(t *testing.T, id string, tools int) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		info, _ := g.core.Agent(id)
		if info.Connected && len(info.Tools) == tools {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("agent %s not ready: %+v", id, info)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

func (g *gateway) call(tool, input string) (localbridge.Result, error) {
	return g.core.Call(context.Background(), localbridge.CallRequest{Agent: "a", Tool: tool, Input: json.RawMessage(input)}, nil)
}

func recv(t *testing.T, ch <-chan error) error {
	t.Helper()
	select {
	case err := <-ch:
		return err
	case <-time.After(20 * time.Second):
		t.Fatal("Serve did not return")
		return nil
	}
}

func TestHandshakeErrors(t *testing.T) {
	g := newGateway(t, localbridge.Config{})
	g.core.AddAgent(localbridge.AgentSpec{ID: "a"})
	a := &agent.Agent{ID: "a"}
	a.Add(agent.Tool{Name: "t", Handler: func(context.Context, *agent.Call) (any, error) { return nil, nil }})
	done, _ := g.serve(t, a, "ostok_not-a-token")
	if err := recv(t, done); !errors.Is(err, agent.ErrUnauthorized) {
		t.Fatalf("got %v", err)
	}

	bad := &agent.Agent{ID: "a"}
	bad.Add(agent.Tool{Name: "bad name", Handler: func(context.Context, *agent.Call) (any, error) { return nil, nil }})
	bad.Add(agent.Tool{Name: "ok", InputSchema: `{"type":"nonsense"}`, Handler: func(context.Context, *agent.Call) (any, error) { return nil, nil }})
	done, _ = g.start(t, bad)
	var re *agent.RegistrationError
	if err := recv(t, done); !errors.As(err, &re) || len(re.Rejected) != 2 || re.Rejected[0].Error.Code != osp.CodeInvalidToolID || re.Rejected[1].Error.Code != osp.CodeInvalidSchema {
		t.Fatalf("got %v", err)
	}

	noHandler := &agent.Agent{ID: "a"}
	noHandler.Add(agent.Tool{Name: "t"})
	done, _ = g.start(t, noHandler)
	if err := recv(t, done); err == nil || !strings.Contains(err.Error(), "no handler") {
		t.Fatalf("got %v", err)
	}
}

func TestRunEnvironment(t *testing.T) {
	g := newGateway(t, localbridge.Config{})
	a := &agent.Agent{}
	a.Add(agent.Tool{Name: "t", Handler: func(context.Context, *agent.Call) (any, error) { return nil, nil }})
	t.Setenv("OPENSENTIENCE_SOCKET", "")
	t.Setenv("OPENSENTIENCE_TOKEN", "")
	if err := a.Run(context.Background()); err == nil {
		t.Fatal("Run without a gateway's environment")
	}
	g.core.AddAgent(localbridge.AgentSpec{ID: "envy"})
	tok, _ := g.core.ProvisionToken("envy", 0)
	t.Setenv("OPENSENTIENCE_SOCKET", g.socket)
	t.Setenv("OPENSENTIENCE_TOKEN", tok.Reveal())
	t.Setenv("OPENSENTIENCE_AGENT_ID", "envy")
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- a.Run(ctx) }()
	g.ready(t, "envy", 1)
	if v, ok := os.LookupEnv("OPENSENTIENCE_TOKEN"); ok && v != "" {
		t.Fatal("the token stays in the environment")
	}
	cancel()
	if err := recv(t, done); err != nil {
		t.Fatalf("Run after cancel: %v", err)
	}
}

func TestGoodbye(t *testing.T) {
	g := newGateway(t, localbridge.Config{})
	a := &agent.Agent{ID: "a"}
	a.Add(agent.Tool{Name: "t", Handler: func(context.Context, *agent.Call) (any, error) { return nil, nil }})
	done, _ := g.start(t, a)
	g.ready(t, "a", 1)
	g.core.RemoveAgent("a")
	var ge *agent.GoodbyeError
	if err := recv(t, done); !errors.As(err, &ge) || ge.Reason != "removed" {
		t.Fatalf("got %v", err)
	}
	done, _ = g.start(t, a)
	g.ready(t, "a", 1)
	g.core.Close()
	if err := recv(t, done); err != nil {
		t.Fatalf("after shutdown: %v", err)
	}
}

func TestCallLifecycle(t *testing.T) {
	g := newGateway(t, localbridge.Config{})
	var canceled, sawDeadline atomic.Bool
	var running, peak atomic.Int32
	a := &agent.Agent{ID: "a", MaxConcurrent: 2}
	a.Add(agent.Tool{Name: "block", Handler: func(ctx context.Context, c *agent.Call) (any, error) {
		sawDeadline.Store(!c.Deadline.IsZero())
		<-ctx.Done()
		canceled.Store(true)
		return nil, ctx.Err()
	}})
	a.Add(agent.Tool{Name: "panic", Handler: func(context.Context, *agent.Call) (any, error) { panic("boom") }})
	a.Add(agent.Tool{Name: "scalar", Handler: func(context.Context, *agent.Call) (any, error) { return "just text", nil }})
	a.Add(agent.Tool{Name: "nothing", Handler: func(context.Context, *agent.Call) (any, error) { return nil, nil }})
	a.Add(agent.Tool{Name: "coded", Handler: func(context.Context, *agent.Call) (any, error) {
		return nil, agent.Errorf("tool.out_of_stock", "no more %s", "widgets")
	}})
	a.Add(agent.Tool{Name: "plain", Handler: func(context.Context, *agent.Call) (any, error) { return nil, errors.New("disk on fire") }})
	a.Add(agent.Tool{Name: "bind", InputSchema: `{"type":"object"}`, Handler: func(ctx context.Context, c *agent.Call) (any, error) {
		var in struct{ N int }
		return nil, c.Bind(&in)
	}})
	a.Add(agent.Tool{Name: "slow", Handler: func(ctx context.Context, c *agent.Call) (any, error) {
		n := running.Add(1)
		for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
		}
		time.Sleep(20 * time.Millisecond)
		running.Add(-1)
		return nil, nil
	}})
	g.start(t, a)
	g.ready(t, "a", 8)

	// Cancellation reaches the handler's context.
	ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
	errc := make(chan error, 1)
	go func() {
		_, err := g.core.Call(ctx, localbridge.CallRequest{Agent: "a", Tool: "block"}, nil)
		errc <- err
	}()
	for info, _ := g.core.Agent("a"); info.InFlight == 0; info, _ = g.core.Agent("a") {
		time.Sleep(time.Millisecond)
	}
	cancel()
	if err := <-errc; !localbridge.IsCanceled(err) {
		t.Fatalf("got %v", err)
	}
	for info, _ := g.core.Agent("a"); info.InFlight != 0; info, _ = g.core.Agent("a") {
		time.Sleep(time.Millisecond)
	}
	if !canceled.Load() || !sawDeadline.Load() {
		t.Fatalf("canceled %v, deadline %v", canceled.Load(), sawDeadline.Load())
	}

	codeOf := func(err error) string {
		var e *localbridge.Error
		if errors.As(err, &e) {
			return e.Code + ": " + e.Message
		}
		return "no error"
	}
	if _, err := g.call("panic", `{}`); codeOf(err) != "tool.internal: the tool failed unexpectedly" {
		t.Fatalf("panic: %v", err)
	}
	if res, err := g.call("scalar", `{}`); err != nil || string(res.Output) != `{"result":"just text"}` {
		t.Fatalf("scalar: %s %v", res.Output, err)
	}
	if res, err := g.call("nothing", `{}`); err != nil || string(res.Output) != `{}` {
		t.Fatalf("nothing: %s %v", res.Output, err)
	}
	if _, err := g.call("coded", `{}`); codeOf(err) != "tool.out_of_stock: no more widgets" {
		t.Fatalf("coded: %v", err)
	}
	if _, err := g.call("plain", `{}`); codeOf(err) != "tool.failed: disk on fire" {
		t.Fatalf("plain: %v", err)
	}
	if _, err := g.call("bind", `{"N":"not a number"}`); codeOf(err) != "tool.invalid_input: the input does not fit the tool's parameters" {
		t.Fatalf("bind: %v", err)
	}

	// MaxConcurrent holds calls back in the agent.
	done := make(chan error, 6)
	for range 6 {
		go func() { _, err := g.call("slow", `{}`); done <- err }()
	}
	for range 6 {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
	if p := peak.Load(); p > 2 {
		t.Fatalf("%d calls ran at once", p)
	}
}

// TestHeartbeatHealth: the status an agent reports in its heartbeats is
// what the gateway shows. The heartbeats come every 10 ms; the gateway is
// told to bear a silence of many intervals, since on a loaded machine the
// agent or the gateway may stall that long, and a silence is not what this
// test is about: its watchdog would mark the agent unhealthy or cut it off
// in the middle of a status change.
func TestHeartbeatHealth(t *testing.T) {
	g := newGateway(t, localbridge.Config{HeartbeatInterval: 10 * time.Millisecond, MissedHeartbeats: 1000})
	var status atomic.Value
	status.Store("degraded")
	a := &agent.Agent{ID: "a", Health: func() (string, map[string]any) {
		return status.Load().(string), map[string]any{"cache": "cold"}
	}}
	a.Add(agent.Tool{Name: "t", Handler: func(context.Context, *agent.Call) (any, error) { return nil, nil }})
	g.start(t, a)
	g.ready(t, "a", 1)
	wait := func(cond func(localbridge.AgentInfo) bool) {
		t.Helper()
		deadline := time.Now().Add(20 * time.Second)
		for info, _ := g.core.Agent("a"); !cond(info); info, _ = g.core.Agent("a") {
			if time.Now().After(deadline) {
				t.Fatalf("info %+v", info)
			}
			time.Sleep(2 * time.Millisecond)
		}
	}
	wait(func(i localbridge.AgentInfo) bool {
		return i.Status == localbridge.StatusDegraded && strings.Contains(string(i.Details), `"cache":"cold"`) && strings.Contains(string(i.Details), `"queue_depth":0`)
	})
	status.Store("unhealthy")
	wait(func(i localbridge.AgentInfo) bool { return !i.Healthy })
	status.Store("ok")
	// Heartbeats keep it healthy over many intervals.
	wait(func(i localbridge.AgentInfo) bool {
		return i.Status == localbridge.StatusOK && i.Uptime > 100*time.Millisecond
	})
}
