package gateway

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/moltgate/moltgate/gateway/face/frames"
	"github.com/moltgate/moltgate/gateway/pipeline"
	"github.com/moltgate/moltgate/localbridge"
	"github.com/moltgate/moltgate/wire"
)

// serveReady answers a request to /readyz as the HTTPS face does.
func (s *Server) serveReady(w http.ResponseWriter, r *http.Request) {
	s.faces.http(nil, s.faces.ws()).Handler().ServeHTTP(w, r)
}

// TestReadiness: /readyz answers JSON, and when the gateway should not be
// sent traffic it says 503 and which of the two reasons holds, never the
// storage's own error.
func TestReadiness(t *testing.T) {
	ready := func(s *Server) (int, string, map[string]string) {
		t.Helper()
		rec := httptest.NewRecorder()
		s.serveReady(rec, httptest.NewRequest(http.MethodGet, "/readyz", nil))
		var body map[string]string
		if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil {
			t.Fatalf("/readyz body %q: %v", rec.Body, err)
		}
		return rec.Code, rec.Header().Get("Content-Type"), body
	}

	d, ls := newTestDir(t, "globex")
	g := start(t, d, ls, TransportWebSocket, noDrainDelay)
	if code, ct, body := ready(g.s); code != http.StatusOK || ct != "application/json" || body["status"] != "ready" || len(body) != 1 {
		t.Fatalf("serving: %d %s %v", code, ct, body)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := g.s.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	if code, ct, body := ready(g.s); code != http.StatusServiceUnavailable || ct != "application/json" || body["status"] != "not ready" || body["reason"] != "shutting_down" {
		t.Fatalf("shut down: %d %s %v", code, ct, body)
	}

	d2, ls2 := newTestDir(t, "acme")
	g2 := start(t, d2, ls2, TransportWebSocket, noDrainDelay)
	g2.s.store.Close()
	if code, _, body := ready(g2.s); code != http.StatusServiceUnavailable || body["reason"] != "storage_unavailable" || len(body) != 2 {
		t.Fatalf("storage closed: %d %v", code, body)
	}
}

// TestShutdownBeforeServe: a Shutdown that comes before Serve has started
// its faces (a signal as the gateway starts) makes Serve return
// ErrServerClosed at once with its listeners closed, rather than serve
// with no one left to stop it. It takes no drain delay, even with /readyz
// asked: no balancer could have been sent here.
func TestShutdownBeforeServe(t *testing.T) {
	d, ls := newTestDir(t, "globex")
	s, err := Open(Options{Dir: d, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	s.cfg.Listen.DrainDelay = Duration(time.Minute)
	s.serveReady(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, "/readyz", nil))
	if ls.Core, err = localbridge.ListenUnix(d.CoreSocket()); err != nil {
		t.Fatal(err)
	}
	if ls.RPC, err = localbridge.ListenUnix(d.RPCSocket()); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	begun := time.Now()
	if err := s.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	if took := time.Since(begun); took > 5*time.Second {
		t.Fatalf("Shutdown before Serve took %v: it waited a drain delay", took)
	}
	done := make(chan error, 1)
	go func() { done <- s.Serve(ls) }()
	select {
	case err := <-done:
		if !errors.Is(err, ErrServerClosed) {
			t.Fatalf("Serve after Shutdown: %v, want ErrServerClosed", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Serve after Shutdown is still serving")
	}
	for name, l := range map[string]net.Listener{"https": ls.HTTP, "grpc": ls.GRPC, "core": ls.Core, "rpc": ls.RPC} {
		if c, err := l.Accept(); err == nil {
			c.Close()
			t.Errorf("%s listener still open", name)
		}
	}
}

// noDrainDelay is a start option: the gateway's Shutdown never waits,
// whoever asked /readyz.
func noDrainDelay(s *Server) { s.cfg.Listen.DrainDelay = 0 }

// withDrainDelay is a start option setting listen.drain_delay.
func withDrainDelay(d time.Duration) func(*Server) {
	return func(s *Server) { s.cfg.Listen.DrainDelay = Duration(d) }
}

// readyz asks g's /readyz on a connection of its own, as a load
// balancer's health check does.
func readyz(g *testGateway) (int, string) {
	g.t.Helper()
	code, _, body := g.do(http.MethodGet, "/readyz", nil)
	return code, string(body)
}

// shutdownAsync starts g's Shutdown under ctx and waits until /readyz
// answers 503, as a balancer would see it. The channel gets Shutdown's
// result.
func shutdownAsync(t *testing.T, ctx context.Context, g *testGateway) <-chan error {
	t.Helper()
	shut := make(chan error, 1)
	go func() { shut <- g.s.Shutdown(ctx) }()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		code, body := readyz(g)
		if code == http.StatusServiceUnavailable {
			if body != `{"status":"not ready","reason":"shutting_down"}`+"\n" {
				t.Fatalf("/readyz while draining: %q", body)
			}
			return shut
		}
		if time.Now().After(deadline) {
			t.Fatalf("/readyz still %d %q after Shutdown began", code, body)
		}
	}
}

// refused reports whether a new connection to the TLS face at addr is
// refused. One accepted completes its handshake, so that the face has no
// failed one to log; whose certificate it is does not matter here.
func refused(addr net.Addr) bool {
	c, err := tls.DialWithDialer(&net.Dialer{Timeout: 5 * time.Second}, "tcp", addr.String(),
		&tls.Config{InsecureSkipVerify: true, MinVersion: tls.VersionTLS13, NextProtos: []string{"h2"}})
	if err == nil {
		c.Close()
	}
	return err != nil
}

// TestDrainDelay: once Shutdown begins, a gateway whose /readyz is polled
// answers it 503 at once, and for listen.drain_delay serves everything
// else as before: new connections, /healthz, a peer's new call. Only then
// (here on SkipDrainDelay, as on a second signal) do its faces close.
func TestDrainDelay(t *testing.T) {
	da, la := newTestDir(t, "acme", AddAgentOptions{ID: "client", MaxCls: "pii"})
	db, lb := newTestDir(t, "globex", AddAgentOptions{ID: "echo", Capabilities: []string{"echo.text"}, QueryTool: "echo", MaxCls: "pii"})
	trustEachOther(t, da, db, "pii")
	acme := start(t, da, la, TransportHTTP)
	globex := start(t, db, lb, TransportHTTP, withDrainDelay(time.Minute))
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	call := func(text string) error {
		_, err := acme.s.local.Query(ctx, localbridge.QueryRequest{From: "client", To: "echo@globex", Tool: "echo",
			Input: json.RawMessage(`{"text":"` + text + `"}`)}, nil)
		return err
	}
	if err := call("before"); err != nil {
		t.Fatal(err)
	}
	if code, body := readyz(globex); code != http.StatusOK {
		t.Fatalf("/readyz before the shutdown: %d %q", code, body)
	}

	shut := shutdownAsync(t, ctx, globex)
	if code, _, body := globex.do(http.MethodGet, "/healthz", nil); code != http.StatusOK {
		t.Fatalf("/healthz while draining: %d %s", code, body)
	}
	// acme's HTTP client opens what connections it needs: new ones are
	// still accepted.
	acme.s.peers.Get("globex").CloseIdle()
	if err := call("while draining"); err != nil {
		t.Fatalf("a new call while draining: %v", err)
	}
	select {
	case err := <-shut:
		t.Fatalf("Shutdown returned during the drain delay: %v", err)
	default:
	}
	if refused(lb.HTTP.Addr()) || refused(lb.GRPC.Addr()) {
		t.Fatal("a face closed during the drain delay")
	}

	globex.s.SkipDrainDelay()
	select {
	case err := <-shut:
		if err != nil {
			t.Fatalf("Shutdown: %v", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("Shutdown still waiting after SkipDrainDelay")
	}
	if !refused(lb.HTTP.Addr()) || !refused(lb.GRPC.Addr()) {
		t.Fatal("a face still accepts connections after Shutdown")
	}
	logs := globex.logs()
	for _, want := range []string{`"msg":"gateway draining","drain_delay":"1m0s"`, `"msg":"drain delay skipped"`, `"msg":"gateway shutting down"`} {
		if !strings.Contains(logs, want) {
			t.Errorf("log has no %s", want)
		}
	}
}

// TestDrainDelayTaken: Shutdown waits the drain delay, all of it, only
// when a balancer could be polling: /readyz asked within the last minute,
// a delay that is not 0, no SkipDrainDelay beforehand.
func TestDrainDelayTaken(t *testing.T) {
	const short = 300 * time.Millisecond
	cases := []struct {
		name  string
		delay time.Duration
		ask   bool
		since time.Duration // how long ago /readyz was asked
		skip  bool          // SkipDrainDelay before Shutdown
		waits bool
	}{
		{name: "polled", delay: short, ask: true, waits: true},
		{name: "polled 50s ago", delay: short, ask: true, since: 50 * time.Second, waits: true},
		{name: "never polled", delay: time.Minute},
		{name: "polled 2m ago", delay: time.Minute, ask: true, since: 2 * time.Minute},
		{name: "zero", delay: 0, ask: true},
		{name: "skipped beforehand", delay: time.Minute, ask: true, skip: true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var ahead atomic.Int64
			now := func() time.Time { return time.Now().Add(time.Duration(ahead.Load())) }
			d, ls := newTestDir(t, "globex")
			g := startWith(t, d, ls, TransportWebSocket, Options{Now: now}, withDrainDelay(c.delay))
			// Serving: a balancer could have been sent here.
			if code, _, _ := g.do(http.MethodGet, "/healthz", nil); code != http.StatusOK {
				t.Fatalf("/healthz: %d", code)
			}
			if c.ask {
				readyz(g)
			}
			ahead.Store(int64(c.since))
			if c.skip {
				g.s.SkipDrainDelay()
			}
			ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
			defer cancel()
			begun := time.Now()
			if err := g.s.Shutdown(ctx); err != nil {
				t.Fatal(err)
			}
			took := time.Since(begun)
			if c.waits && took < c.delay {
				t.Fatalf("Shutdown took %v, less than the drain delay %v", took, c.delay)
			}
			if !c.waits && took > 20*time.Second {
				t.Fatalf("Shutdown took %v: it waited a drain delay of %v", took, c.delay)
			}
			if draining := strings.Contains(g.logs(), `"msg":"gateway draining"`); draining != c.waits {
				t.Fatalf("logged draining: %v, want %v", draining, c.waits)
			}
			if !refused(ls.HTTP.Addr()) {
				t.Fatal("the HTTPS face still accepts connections after Shutdown")
			}
		})
	}
}

// TestDrainDelayEndsWithContext: Shutdown's context ending cuts the drain
// delay short; the faces close all the same.
func TestDrainDelayEndsWithContext(t *testing.T) {
	d, ls := newTestDir(t, "globex")
	g := start(t, d, ls, TransportWebSocket, withDrainDelay(time.Minute))
	readyz(g)
	ctx, cancel := context.WithCancel(context.Background())
	shut := shutdownAsync(t, ctx, g)
	cancel()
	select {
	case <-shut:
	case <-time.After(20 * time.Second):
		t.Fatal("Shutdown still waiting after its context ended")
	}
	if !refused(ls.HTTP.Addr()) || !refused(ls.GRPC.Addr()) {
		t.Fatal("a face still accepts connections after Shutdown")
	}
	if !strings.Contains(g.logs(), `"msg":"drain delay cut short","err":"context canceled"`) {
		t.Fatalf("log does not say the delay was cut short:\n%s", g.logs())
	}
}

// TestMetricsFrom: /metrics, which names the peers, is served to the
// networks of listen.metrics_from only: loopback by default, IPv4 that
// comes as IPv6 included, and nobody with an empty list.
func TestMetricsFrom(t *testing.T) {
	scrape := func(s *Server, from string) int {
		t.Helper()
		req := httptest.NewRequest(http.MethodGet, "/metrics", nil)
		req.RemoteAddr = from
		rec := httptest.NewRecorder()
		s.faces.http(nil, s.faces.ws()).Handler().ServeHTTP(rec, req)
		if rec.Code == http.StatusOK && !strings.Contains(rec.Body.String(), "moltgate_in_flight") {
			t.Errorf("from %s: 200 without the metrics: %.200s", from, rec.Body)
		}
		return rec.Code
	}
	cases := []struct {
		setting string
		allowed []string
		refused []string
	}{
		{"", []string{"127.0.0.1:9090", "127.9.9.9:1", "[::1]:9090", "[::ffff:127.0.0.1]:9090"},
			[]string{"10.0.0.5:9090", "[2001:db8::1]:9090", "192.168.1.1:80", "not an address"}},
		{`["10.0.0.0/8", "2001:db8::7"]`, []string{"10.0.0.5:9090", "[::ffff:10.1.1.1]:1", "[2001:db8::7]:9090"},
			[]string{"127.0.0.1:9090", "[2001:db8::8]:9090", "11.0.0.1:1"}},
		{`[]`, nil, []string{"127.0.0.1:9090", "[::1]:9090", "10.0.0.5:9090"}},
	}
	for _, c := range cases {
		d, ls := newTestDir(t, "globex")
		if c.setting != "" {
			setConfig(t, d, `metrics_from = ["127.0.0.0/8", "::1/128"]`, "metrics_from = "+c.setting)
		}
		g := start(t, d, ls, TransportWebSocket)
		for _, from := range c.allowed {
			if code := scrape(g.s, from); code != http.StatusOK {
				t.Errorf("metrics_from %s: from %s: %d, want 200", c.setting, from, code)
			}
		}
		for _, from := range c.refused {
			if code := scrape(g.s, from); code != http.StatusForbidden {
				t.Errorf("metrics_from %s: from %s: %d, want 403", c.setting, from, code)
			}
		}
	}
}

// TestAcceptedNamesTheRequest: a reply not ready by the request's deadline
// is answered 202, naming the request that the late reply will refer to.
func TestAcceptedNamesTheRequest(t *testing.T) {
	r := newFaceRig(t)
	ctx, c, s := r.session(t, pipeline.FaceHTTP, "patient")
	// count has side effects: it waits for a person, who is not there.
	m := s.tool("count", `{"by":1}`, wire.Conf)
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, r.peer.Endpoint+"/moltspeak/v0.1/message", bytes.NewReader(sealed(t, c, s, m)))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(frames.HeaderDeadline, strconv.FormatInt(time.Now().Add(300*time.Millisecond).UnixMilli(), 10))
	resp, err := r.http.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var body struct {
		Status    string `json:"status"`
		RequestID string `json:"request_id"`
		Delivery  string `json:"delivery"`
	}
	b, _ := io.ReadAll(resp.Body)
	if err := json.Unmarshal(b, &body); err != nil {
		t.Fatalf("202 body %q: %v", b, err)
	}
	if resp.StatusCode != http.StatusAccepted || body.Status != "accepted" || body.RequestID != m.ID || body.Delivery == "" {
		t.Fatalf("%d %s, want 202 naming %s", resp.StatusCode, b, m.ID)
	}
}
