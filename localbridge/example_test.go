package localbridge_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/moltgate/moltgate/localbridge"
	"github.com/moltgate/moltgate/localbridge/agent/echo"
)

// A Core with one agent, admitted with a provisioned token, and a call that streams.
func ExampleCore_Call() {
	dir, _ := os.MkdirTemp("", "core")
	defer os.RemoveAll(dir)
	l, err := localbridge.ListenUnix(filepath.Join(dir, "core.sock"))
	if err != nil {
		fmt.Println(err)
		return
	}
	core := localbridge.NewCore(localbridge.Config{Logger: slog.New(slog.DiscardHandler)})
	go core.Serve(l)
	defer core.Close()

	// An agent started elsewhere: here, the echo agent in this process. A configured agent
	// with a Command would be launched by the Core instead.
	core.AddAgent(localbridge.AgentSpec{ID: "echo"})
	tok, _ := core.ProvisionToken("echo", time.Minute)
	os.Setenv("OPENSENTIENCE_SOCKET", l.Addr().String())
	os.Setenv("OPENSENTIENCE_TOKEN", tok.Reveal())
	os.Setenv("OPENSENTIENCE_AGENT_ID", "echo")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go echo.New().Run(ctx)
	if !waitForTools(core, "echo") {
		fmt.Println("the agent did not connect")
		return
	}

	res, err := core.Call(ctx, localbridge.CallRequest{Agent: "echo", Tool: "echo", Input: json.RawMessage(`{"text":"hi","repeat":2}`)},
		func(c localbridge.Chunk) error {
			fmt.Println(c.Seq, c.Text)
			return nil
		})
	fmt.Println(string(res.Output), err)

	_, err = core.Call(ctx, localbridge.CallRequest{Agent: "echo", Tool: "echo", Input: json.RawMessage(`{"repeat":2}`)}, nil)
	o := localbridge.OutcomeOf(err)
	fmt.Println(o.Code, o.Field)
	// Output:
	// 1 hi
	// 2 hi
	// {"text":"hi"} <nil>
	// E_INVALID_PARAM text
}

// The JSON-RPC face in front of a Core, and a local caller querying an agent through it.
func ExampleRPCServer() {
	dir, _ := os.MkdirTemp("", "face")
	defer os.RemoveAll(dir)
	quiet := slog.New(slog.DiscardHandler)
	l, _ := localbridge.ListenUnix(filepath.Join(dir, "core.sock"))
	core := localbridge.NewCore(localbridge.Config{Logger: quiet})
	go core.Serve(l)
	defer core.Close()
	core.AddAgent(localbridge.AgentSpec{ID: "echo"})
	tok, _ := core.ProvisionToken("echo", time.Minute)
	os.Setenv("OPENSENTIENCE_SOCKET", l.Addr().String())
	os.Setenv("OPENSENTIENCE_TOKEN", tok.Reveal())
	os.Setenv("OPENSENTIENCE_AGENT_ID", "echo")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go echo.New().Run(ctx)
	if !waitForTools(core, "echo") {
		fmt.Println("the agent did not connect")
		return
	}

	local := &localbridge.Local{Core: core, Org: "acme"}
	rl, _ := localbridge.ListenUnix(filepath.Join(dir, "rpc.sock"))
	face := localbridge.NewRPCServer(localbridge.RPCConfig{Query: local, Directory: local, Ping: local, Logger: quiet})
	go face.Serve(rl)
	defer face.Close()

	c, err := localbridge.Dial(ctx, filepath.Join(dir, "rpc.sock"), localbridge.ClientOptions{Name: "example"})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Close()
	res, err := c.Query(ctx, localbridge.QueryRequest{To: "echo@acme", Tool: "echo", Input: json.RawMessage(`{"text":"hello","upper":true}`)}, nil)
	fmt.Println(string(res), err)
	_, err = c.Query(ctx, localbridge.QueryRequest{To: "nobody@acme", Tool: "echo", Input: json.RawMessage(`{}`)}, nil)
	fmt.Println(err)
	// Output:
	// {"text":"HELLO"} <nil>
	// E_AGENT_NOT_FOUND: -32000 no local agent has that id
}

// waitForTools waits, for a while, until the agent has registered its tools.
func waitForTools(core *localbridge.Core, id string) bool {
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		if a, _ := core.Agent(id); len(a.Tools) > 0 {
			return true
		}
	}
	return false
}
