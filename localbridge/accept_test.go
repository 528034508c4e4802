package localbridge_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/moltgate/moltgate/internal/logbuf"
	"github.com/moltgate/moltgate/localbridge"
	"github.com/moltgate/moltgate/localbridge/jsonrpc"
	"github.com/moltgate/moltgate/localbridge/osp"
)

// exhaustedListener fails its first accepts as a process out of file descriptors does.
type exhaustedListener struct {
	*net.UnixListener
	fails atomic.Int32
}

func (l *exhaustedListener) Accept() (net.Conn, error) {
	if l.fails.Add(-1) >= 0 {
		return nil, &net.OpError{Op: "accept", Net: "unix", Addr: l.Addr(), Err: os.NewSyscallError("accept4", syscall.EMFILE)}
	}
	return l.UnixListener.Accept()
}

func listenExhausted(t *testing.T, path string, fails int32) *exhaustedListener {
	t.Helper()
	l, err := localbridge.ListenUnix(path)
	if err != nil {
		t.Fatal(err)
	}
	el := &exhaustedListener{UnixListener: l}
	el.fails.Store(fails)
	return el
}

// TestAcceptOutOfDescriptors: a face whose accept fails for want of file descriptors waits and
// tries again, as the HTTPS face does, rather than end and take the gateway down with it. Any
// local process could bring that about by holding connections open.
func TestAcceptOutOfDescriptors(t *testing.T) {
	dir := shortDir(t)
	logs := &logbuf.Buffer{}
	cfg := localbridge.Config{Logger: slogTo(logs)}
	core := localbridge.NewCore(cfg)
	coreL := listenExhausted(t, filepath.Join(dir, "core.sock"), 3)
	served := make(chan error, 2)
	go func() { served <- core.Serve(coreL) }()

	if err := core.AddAgent(localbridge.AgentSpec{ID: "a"}); err != nil {
		t.Fatal(err)
	}
	tok, err := core.ProvisionToken("a", 0)
	if err != nil {
		t.Fatal(err)
	}
	r := dialRaw(t, filepath.Join(dir, "core.sock"))
	r.send(osp.TypeHello, hello(tok.Reveal(), "a"))
	if e := r.expect(osp.TypeWelcome); e.Error != nil {
		t.Fatalf("welcome error %v", e.Error)
	}

	rpc := localbridge.NewRPCServer(localbridge.RPCConfig{Ping: &localbridge.Local{Core: core, Org: "acme"}, Logger: slogTo(logs)})
	rpcL := listenExhausted(t, filepath.Join(dir, "rpc.sock"), 3)
	go func() { served <- rpc.Serve(rpcL) }()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := localbridge.Dial(ctx, filepath.Join(dir, "rpc.sock"), localbridge.ClientOptions{})
	if err != nil {
		t.Fatalf("the rpc face did not serve after running out of descriptors: %v", err)
	}
	c.Close()

	select {
	case err := <-served:
		t.Fatalf("a face ended: %v", err)
	default:
	}
	for _, face := range []string{"agent socket", "rpc socket"} {
		if n := strings.Count(logs.String(), "face=\""+face+"\""); n != 1 {
			t.Errorf("the %s logged its failed accepts %d times, want once", face, n)
		}
	}
	rpc.Close()
	core.Close()
	for range 2 {
		if err := <-served; err != localbridge.ErrServerClosed {
			t.Errorf("Serve returned %v", err)
		}
	}
}

func slogTo(b *logbuf.Buffer) *slog.Logger {
	return slog.New(slog.NewTextHandler(b, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

// TestRPCMaxConns: the face holds at most MaxConns connections, since each stays until its
// client closes it and costs a file descriptor; one more is told why, under a null id, and
// closed, and the client reports that rather than a lost connection.
func TestRPCMaxConns(t *testing.T) {
	f := newFace(t, func(c *localbridge.RPCConfig) { c.MaxConns = 2 })
	first := f.dial(t, localbridge.ClientOptions{})
	f.dial(t, localbridge.ClientOptions{})
	for range 3 {
		_, err := localbridge.Dial(context.Background(), f.rpcPath, localbridge.ClientOptions{})
		var re *localbridge.RPCError
		if !errors.As(err, &re) || re.MoltSpeakCode != "E_RATE_LIMIT" || !re.Recoverable || !strings.Contains(re.Message, "too many") {
			t.Fatalf("a connection over the limit: got %v, want E_RATE_LIMIT saying there are too many", err)
		}
	}
	if n := strings.Count(f.logs.String(), "too many connections"); n != 1 {
		t.Errorf("the refusals were logged %d times, want once", n)
	}
	first.Close()
	waitFor(t, "a connection served again", func() bool {
		c, err := localbridge.Dial(context.Background(), f.rpcPath, localbridge.ClientOptions{})
		if err == nil {
			c.Close()
		}
		return err == nil
	})
}

// TestRPCMaxBatch: a batch longer than MaxBatch is refused whole, under a null id, before any
// of it runs: a line of ten megabytes holds a hundred thousand discoveries, whose answers
// would take gigabytes. The connection stays usable.
func TestRPCMaxBatch(t *testing.T) {
	f := newFace(t, func(c *localbridge.RPCConfig) { c.MaxBatch = 3 })
	r := f.raw(t, true)
	ping := func(id int) string {
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"agent.ping","params":{"agent":"echo"}}`, id)
	}
	r.line("[" + ping(1) + "," + ping(2) + "," + ping(3) + "," + ping(4) + "]")
	if m := r.msg(); m.Error == nil || m.Error.Code != jsonrpc.CodeInvalidRequest || string(m.ID) != "null" || !strings.Contains(m.Error.Message, "more than 3") {
		t.Fatalf("a batch of 4: got %+v (id %s), want -32600 under null", m.Error, m.ID)
	}
	r.line("[" + ping(5) + "," + ping(6) + "," + ping(7) + "]")
	b, err := r.readLine()
	if err != nil {
		t.Fatal(err)
	}
	var resps []jsonrpc.Message
	if err := json.Unmarshal(b, &resps); err != nil || len(resps) != 3 {
		t.Fatalf("a batch of 3: got %s, %v", b, err)
	}
	for _, m := range resps {
		if m.Error != nil {
			t.Fatalf("a batch of 3: %+v", m.Error)
		}
	}
}
