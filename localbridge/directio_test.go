package localbridge

import (
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/moltgate/moltgate/internal/sockio"
)

// Both local faces read and write their connections with direct system
// calls (internal/sockio). (That the peer credentials are still read through
// them, every test with an agent or a caller shows.)
func TestLocalSocketsReadDirectly(t *testing.T) {
	dir, err := os.MkdirTemp("", "lb")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	connOf := func(name string, serve func(net.Listener) error, held func() net.Conn) net.Conn {
		t.Helper()
		path := filepath.Join(dir, name)
		l, err := ListenUnix(path)
		if err != nil {
			t.Fatal(err)
		}
		go serve(l)
		c, err := net.Dial("unix", path)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
			if got := held(); got != nil {
				return got
			}
		}
		t.Fatalf("%s: the connection was not taken", name)
		return nil
	}

	rpc := NewRPCServer(RPCConfig{})
	defer rpc.Close()
	got := connOf("rpc.sock", rpc.Serve, func() net.Conn {
		rpc.mu.Lock()
		defer rpc.mu.Unlock()
		for c := range rpc.conns {
			return c.c
		}
		return nil
	})
	if _, ok := got.(*sockio.Conn); !ok {
		t.Errorf("the JSON-RPC face holds a %T, not a *sockio.Conn", got)
	}

	core := NewCore(Config{})
	defer core.Close()
	// An agent that has not said hello yet is held as pending.
	got = connOf("core.sock", core.Serve, func() net.Conn {
		core.mu.Lock()
		defer core.mu.Unlock()
		for c := range core.pending {
			return c
		}
		return nil
	})
	if _, ok := got.(*sockio.Conn); !ok {
		t.Errorf("the OpenSentience socket holds a %T, not a *sockio.Conn", got)
	}
}
