package main

import (
	"context"
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/moltgate/moltgate/gateway"
	"github.com/moltgate/moltgate/localbridge"
	"github.com/moltgate/moltgate/localbridge/jsonrpc"
)

// fakeConn is one connection to a fake gateway's JSON-RPC socket.
type fakeConn struct {
	t  *testing.T
	nc net.Conn
}

// send writes v as one line.
func (c *fakeConn) send(v any) {
	b, err := jsonrpc.Marshal(v)
	if err != nil {
		c.t.Error(err)
		return
	}
	c.nc.Write(b)
}

func (c *fakeConn) answer(r *jsonrpc.Request, result string) {
	c.send(jsonrpc.Response{JSONRPC: jsonrpc.Version, ID: r.ID, Result: json.RawMessage(result)})
}

func (c *fakeConn) fail(r *jsonrpc.Request, e *jsonrpc.Error) {
	c.send(jsonrpc.Response{JSONRPC: jsonrpc.Version, ID: r.ID, Error: e})
}

func (c *fakeConn) notify(method, params string) {
	c.send(jsonrpc.Request{JSONRPC: jsonrpc.Version, Method: method, Params: json.RawMessage(params)})
}

// fakeGateway makes a gateway directory (organisation acme) whose
// JSON-RPC socket the test answers by hand: lines that do not parse get
// the errors jsonrpc.Parse gives them, initialize is answered as the face
// answers it, and every other request goes to answer, on the
// connection's reading goroutine.
func fakeGateway(t *testing.T, answer func(c *fakeConn, r *jsonrpc.Request)) gateway.Dir {
	t.Helper()
	// Socket paths must stay short.
	root, err := os.MkdirTemp("", "mgf")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(root) })
	d := gateway.Dir(filepath.Join(root, "acme"))
	if _, err := gateway.Init(d, gateway.InitOptions{Org: "acme"}); err != nil {
		t.Fatal(err)
	}
	l, err := localbridge.ListenUnix(d.RPCSocket())
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	var conns []net.Conn
	t.Cleanup(func() {
		l.Close()
		mu.Lock()
		for _, nc := range conns {
			nc.Close()
		}
		mu.Unlock()
		wg.Wait()
	})
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			nc, err := l.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, nc)
			mu.Unlock()
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer nc.Close()
				c := &fakeConn{t: t, nc: nc}
				r := jsonrpc.NewReader(nc, 0)
				for {
					line, err := r.ReadLine()
					if err != nil {
						return
					}
					reqs, errs, _ := jsonrpc.Parse(line)
					for _, e := range errs {
						c.send(e)
					}
					for _, q := range reqs {
						if q.Method == localbridge.MethodInitialize {
							c.answer(q, `{"status":"ready","protocol_version":"1.0"}`)
							continue
						}
						answer(c, q)
					}
				}
			}()
		}
	}()
	return d
}

// runCLI runs the command line in process with args, and returns its exit
// status and what it wrote. A command that has not ended within a minute
// fails the test: the command line must never wait without bound.
func runCLI(t *testing.T, ctx context.Context, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut strings.Builder
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, &env{stdin: strings.NewReader(stdin), stdout: &out, stderr: &errOut, getenv: func(string) string { return "" }, now: time.Now}, args)
	}()
	select {
	case code = <-done:
	case <-time.After(time.Minute):
		t.Fatalf("moltgate %s did not end", strings.Join(args, " "))
	}
	return code, out.String(), errOut.String()
}
