package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/moltgate/moltgate/localbridge"
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
