package bench

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// TestFloorPath runs the floor's path in one process: a caller through two
// relays (the second hop over TLS) to the echo, with calls from several
// goroutines, each answered with its own frame.
func TestFloorPath(t *testing.T) {
	dir, err := os.MkdirTemp("", "mgf")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	if err := floorCert(dir); err != nil {
		t.Fatal(err)
	}
	ports, err := freePorts(1)
	if err != nil {
		t.Fatal(err)
	}
	echoAddr, midAddr, inAddr := "unix:"+filepath.Join(dir, "e.sock"), "tls:"+ports[0], "unix:"+filepath.Join(dir, "i.sock")
	ctx, cancel := context.WithCancel(context.Background())
	var servers sync.WaitGroup
	serve := func(addr string, handle func(c net.Conn)) {
		l, err := floorListen(addr, dir)
		if err != nil {
			t.Fatal(err)
		}
		servers.Add(1)
		go func() {
			defer servers.Done()
			if err := serveFloor(ctx, l, handle); err != nil {
				t.Error(err)
			}
		}()
	}
	serve(echoAddr, echoBytes)
	serve(midAddr, relayTo(ctx, echoAddr, dir, testErrors{t}))
	serve(inAddr, relayTo(ctx, midAddr, dir, testErrors{t}))

	c, err := floorDial(ctx, inAddr, "")
	if err != nil {
		t.Fatal(err)
	}
	// Frames of a size well past what one read or write carries.
	fc := newFloorConn(c, 200<<10)
	var callers sync.WaitGroup
	for g := range 8 {
		callers.Add(1)
		go func() {
			defer callers.Done()
			ch := make(chan struct{}, 1)
			cctx, ccancel := context.WithTimeout(ctx, 10*time.Second)
			defer ccancel()
			for i := range 50 {
				if err := fc.call(cctx, ch); err != nil {
					t.Errorf("caller %d, call %d: %v", g, i, err)
					return
				}
			}
		}()
	}
	callers.Wait()
	fc.mu.Lock()
	left := len(fc.pending)
	fc.mu.Unlock()
	if left != 0 {
		t.Errorf("%d calls still pending", left)
	}
	// A connection that ends fails the calls waiting on it.
	c.Close()
	if err := fc.call(ctx, make(chan struct{}, 1)); err == nil {
		t.Error("a call on a closed connection succeeded")
	}
	cancel()
	servers.Wait()
}

// testErrors fails the test with whatever is written to it.
type testErrors struct{ t *testing.T }

func (w testErrors) Write(p []byte) (int, error) {
	w.t.Errorf("%s", p)
	return len(p), nil
}
