package bench

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestFloorPath runs the floor's path in one process: a caller through two
// relays (the second hop over TLS) to the echo, with calls from several
// goroutines, each answered with its own frame.
func TestFloorPath(t *testing.T) {
	inAddr, stop := floorChain(t)
	ctx := context.Background()
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
			// A bound against a hang, not a measure: 80 MiB through
			// three hops under the race detector on a busy machine can
			// take more than 10 s.
			cctx, ccancel := context.WithTimeout(ctx, 2*time.Minute)
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
	if !stop() {
		t.Fatal("the relays and the echo did not stop")
	}
}

// TestFloorRelayEndsWithItsCaller: a caller that goes away while the path
// is full in both directions, its echoes still on their way back, ends the
// relays' connections all the way to the echo; none waits for ever on a
// peer that no longer reads.
func TestFloorRelayEndsWithItsCaller(t *testing.T) {
	inAddr, stop := floorChain(t)
	c, err := floorDial(context.Background(), inAddr, "")
	if err != nil {
		t.Fatal(err)
	}
	var written atomic.Int64
	go func() {
		buf := make([]byte, 64<<10)
		for {
			n, err := c.Write(buf)
			written.Add(int64(n))
			if err != nil {
				return
			}
		}
	}()
	// Nothing reads the echoes, so the writes stall once every buffer on
	// the way there and back is full.
	for last := int64(-1); written.Load() != last; {
		last = written.Load()
		time.Sleep(300 * time.Millisecond)
	}
	c.Close()
	if !stop() {
		t.Fatal("a relay or the echo still waits on a connection whose caller went away")
	}
}

// floorChain serves the floor's path in this process: the echo and two
// relays, the second hop over TLS. It returns the address a caller dials,
// and stop, which ends the servers and reports whether every one of them
// returned within 20 s.
func floorChain(t *testing.T) (inAddr string, stop func() bool) {
	// A short directory: a Unix socket's path is at most 107 bytes.
	dir, err := os.MkdirTemp("", "mgf")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := floorCert(dir); err != nil {
		t.Fatal(err)
	}
	ports, err := freePorts(1)
	if err != nil {
		t.Fatal(err)
	}
	echoAddr, midAddr := "unix:"+filepath.Join(dir, "e.sock"), "tls:"+ports[0]
	inAddr = "unix:" + filepath.Join(dir, "i.sock")
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
	stopped := make(chan struct{})
	var once sync.Once
	stop = func() bool {
		once.Do(func() {
			cancel()
			go func() {
				servers.Wait()
				close(stopped)
			}()
		})
		select {
		case <-stopped:
			return true
		case <-time.After(20 * time.Second):
			return false
		}
	}
	t.Cleanup(func() { stop() })
	return inAddr, stop
}

// testErrors fails the test with whatever is written to it.
type testErrors struct{ t *testing.T }

func (w testErrors) Write(p []byte) (int, error) {
	w.t.Errorf("%s", p)
	return len(p), nil
}
