package gateway

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/moltgate/moltgate/gateway/face/grpcface"
	"github.com/moltgate/moltgate/gateway/face/httpface"
	"github.com/moltgate/moltgate/gateway/face/wsface"
)

// face is what every face package's Face is.
type face interface {
	Serve(net.Listener) error
	Shutdown(context.Context) error
}

// TestFacesServeUntilShutdown: each face, built as the gateway builds it,
// serves a listener of its own until Shutdown, and then Serve returns its
// package's ErrServerClosed, as net/http's Server does; a Serve after
// Shutdown returns it at once and closes the listener.
func TestFacesServeUntilShutdown(t *testing.T) {
	d, _ := newTestDir(t, "globex")
	s, err := Open(Options{Dir: d, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Shutdown(context.Background())
	ws := s.faces.ws()
	for _, c := range []struct {
		name   string
		f      face
		closed error
	}{
		{"https", s.faces.http(nil, ws), httpface.ErrServerClosed},
		{"websocket", ws, wsface.ErrServerClosed},
		{"grpc", s.faces.grpc(nil), grpcface.ErrServerClosed},
	} {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		served := make(chan error, 1)
		go func() { served <- c.f.Serve(l) }()
		// Serving: the face answers on the port (an HTTP response, or
		// the server's HTTP/2 settings, which gRPC sends first).
		within(t, 10*time.Second, c.name+" serving", func() bool {
			if c.name != "grpc" {
				resp, err := http.Get("http://" + l.Addr().String() + "/moltspeak/v0.1/stream")
				if err == nil {
					resp.Body.Close()
				}
				return err == nil
			}
			conn, err := net.Dial("tcp", l.Addr().String())
			if err != nil {
				return false
			}
			defer conn.Close()
			conn.SetReadDeadline(time.Now().Add(time.Second))
			_, err = conn.Read(make([]byte, 1))
			return err == nil
		})
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		if err := c.f.Shutdown(ctx); err != nil {
			t.Fatalf("%s: Shutdown: %v", c.name, err)
		}
		cancel()
		if err := <-served; !errors.Is(err, c.closed) {
			t.Fatalf("%s: Serve returned %v after Shutdown, want %v", c.name, err, c.closed)
		}
		again, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		if err := c.f.Serve(again); !errors.Is(err, c.closed) {
			t.Fatalf("%s: Serve after Shutdown returned %v", c.name, err)
		}
		if _, err := again.Accept(); !errors.Is(err, net.ErrClosed) {
			t.Fatalf("%s: Serve after Shutdown left its listener open (%v)", c.name, err)
		}
	}
}
