package gateway

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/moltgate/moltgate/localbridge"
	"github.com/moltgate/moltgate/wire"
)

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
	g := start(t, d, ls, TransportWebSocket)
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
	g2 := start(t, d2, ls2, TransportWebSocket)
	g2.s.store.Close()
	if code, _, body := ready(g2.s); code != http.StatusServiceUnavailable || body["reason"] != "storage_unavailable" || len(body) != 2 {
		t.Fatalf("storage closed: %d %v", code, body)
	}
}

// TestShutdownBeforeServe: a Shutdown that comes before Serve has started
// its faces (a signal as the gateway starts) makes Serve return
// ErrServerClosed at once with its listeners closed, rather than serve
// with no one left to stop it.
func TestShutdownBeforeServe(t *testing.T) {
	d, ls := newTestDir(t, "globex")
	s, err := Open(Options{Dir: d, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	if ls.Core, err = localbridge.ListenUnix(d.CoreSocket()); err != nil {
		t.Fatal(err)
	}
	if ls.RPC, err = localbridge.ListenUnix(d.RPCSocket()); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := s.Shutdown(ctx); err != nil {
		t.Fatal(err)
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

// TestMetricsFrom: /metrics, which names the peers, is served to the
// networks of listen.metrics_from only: loopback by default, IPv4 that
// comes as IPv6 included, and nobody with an empty list.
func TestMetricsFrom(t *testing.T) {
	scrape := func(s *Server, from string) int {
		t.Helper()
		req := httptest.NewRequest(http.MethodGet, "/metrics", nil)
		req.RemoteAddr = from
		rec := httptest.NewRecorder()
		s.metricsHandler().ServeHTTP(rec, req)
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
	ctx, c, s := r.session(t, faceHTTP, "patient")
	// count has side effects: it waits for a person, who is not there.
	m := s.tool("count", `{"by":1}`, wire.Conf)
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, r.peer.Endpoint+"/moltspeak/v0.1/message", bytes.NewReader(sealed(t, c, s, m)))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(headerDeadline, strconv.FormatInt(time.Now().Add(300*time.Millisecond).UnixMilli(), 10))
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
