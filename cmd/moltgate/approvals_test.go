package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/moltgate/moltgate/gateway"
	"github.com/moltgate/moltgate/internal/freeport"
	"github.com/moltgate/moltgate/localbridge"
)

// TestApprovalsWatch follows held calls with `moltgate approvals --watch`
// while a gateway runs in process (its agent is the echoagent command that
// TestMain puts on PATH): the watcher shows a request as it is made, and
// its end once it is answered.
func TestApprovalsWatch(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a gateway")
	}
	root, err := os.MkdirTemp("", "mgw")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(root)
	port, err := freeport.Pair()
	if err != nil {
		t.Fatal(err)
	}
	addr, gaddr := fmt.Sprintf("127.0.0.1:%d", port), fmt.Sprintf("127.0.0.1:%d", port+1)
	d := gateway.Dir(filepath.Join(root, "acme"))
	if _, err := gateway.Init(d, gateway.InitOptions{Org: "acme", Listen: addr, GRPC: gaddr}); err != nil {
		t.Fatal(err)
	}
	if _, err := gateway.AddAgent(d, gateway.AddAgentOptions{ID: "echo", Exec: "echoagent"}); err != nil {
		t.Fatal(err)
	}
	s, err := gateway.Open(gateway.Options{Dir: d, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- s.Run(ctx) }()
	defer func() {
		stop()
		if err := <-served; err != nil && !errors.Is(err, gateway.ErrServerClosed) {
			t.Errorf("gateway: %v", err)
		}
	}()
	var c *localbridge.Client
	deadline := time.Now().Add(30 * time.Second)
	for {
		dctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		c, err = localbridge.Dial(dctx, d.RPCSocket(), localbridge.ClientOptions{})
		if err == nil {
			pong, perr := c.Ping(dctx, "echo")
			cancel()
			// Alive, and its tools registered.
			if perr == nil && strings.Contains(string(pong), `"alive"`) && strings.Contains(string(pong), `"count"`) {
				break
			}
			c.Close()
		} else {
			cancel()
		}
		if time.Now().After(deadline) {
			t.Fatalf("gateway not ready: %v", err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	defer c.Close()

	pr, pw := io.Pipe()
	wctx, wstop := context.WithCancel(ctx)
	watched := make(chan int, 1)
	go func() {
		var stderr strings.Builder
		code := run(wctx, &env{stdin: strings.NewReader(""), stdout: pw, stderr: &stderr, getenv: os.Getenv, now: time.Now},
			[]string{"approvals", "--dir", string(d), "--watch", "--json"})
		if code != 0 {
			t.Errorf("approvals --watch: exit %d: %s", code, stderr.String())
		}
		pw.Close()
		watched <- code
	}()
	called := make(chan error, 1)
	lines := make(chan []byte)
	go func() {
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			lines <- append([]byte(nil), sc.Bytes()...)
		}
		close(lines)
	}()
	// next reads the watcher's next line. Until the call is approved, it
	// must not end before the watcher shows it.
	next := func(what string, called <-chan error) []byte {
		t.Helper()
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatalf("the watcher ended before %s", what)
			}
			return l
		case err := <-called:
			t.Fatalf("the call ended (%v) before the watcher showed %s", err, what)
		case <-time.After(30 * time.Second):
			t.Fatalf("the watcher did not show %s", what)
		}
		return nil
	}

	go func() {
		_, err := c.Query(ctx, localbridge.QueryRequest{To: "echo", Tool: "count", Input: json.RawMessage(`{"by":3}`)}, nil)
		called <- err
	}()
	// The request, listed or announced: either way the watcher is
	// subscribed by the time it prints it.
	line := next("the request", called)
	var req localbridge.ApprovalInfo
	if err := json.Unmarshal(line, &req); err != nil || req.Tool.Name != "count" || req.ExecutionID == "" {
		t.Fatalf("request line %s: %v", line, err)
	}
	var out strings.Builder
	if code := run(ctx, &env{stdin: strings.NewReader(""), stdout: &out, stderr: io.Discard, getenv: os.Getenv, now: time.Now},
		[]string{"approvals", "--dir", string(d), "approve", req.ExecutionID}); code != 0 {
		t.Fatalf("approve: exit %d", code)
	}
	line = next("the decision", nil)
	var res localbridge.ApprovalResolved
	if err := json.Unmarshal(line, &res); err != nil || res.ExecutionID != req.ExecutionID || res.Status != "approved" {
		t.Fatalf("resolution line %s: %v", line, err)
	}
	if err := <-called; err != nil {
		t.Fatalf("the approved call: %v", err)
	}
	wstop()
	go func() {
		for range lines {
		}
	}()
	<-watched
}
