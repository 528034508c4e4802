package agent_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/moltgate/moltgate/localbridge"
	"github.com/moltgate/moltgate/localbridge/agent"
)

// An agent with two tools, one of which streams its output. A real agent's main ends with
// a.Run(ctx): the gateway that launched it set OPENSENTIENCE_SOCKET, OPENSENTIENCE_TOKEN and
// OPENSENTIENCE_AGENT_ID. Here a gateway is started in-process to run it against.
func Example() {
	a := &agent.Agent{ID: "greeter", Version: "1.0.0"}
	a.Add(agent.Tool{
		Name:        "greet",
		Description: "Greets someone, a word at a time.",
		InputSchema: `{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`,
		Handler: func(ctx context.Context, c *agent.Call) (any, error) {
			var in struct{ Name string }
			if err := c.Bind(&in); err != nil {
				return nil, err
			}
			for _, word := range []string{"Hello,", in.Name} {
				if err := c.Stream(word); err != nil {
					return nil, err
				}
			}
			return map[string]string{"greeting": "Hello, " + in.Name}, nil
		},
	})
	a.Add(agent.Tool{
		Name:        "shout",
		Description: "Upper-cases text.",
		Handler: func(ctx context.Context, c *agent.Call) (any, error) {
			var in struct{ Text string }
			err := c.Bind(&in)
			return map[string]string{"text": strings.ToUpper(in.Text)}, err
		},
	})

	// The gateway's side, as the gateway would launch the agent.
	core, socket, token := startGateway("greeter")
	defer core.Close()
	os.Setenv("OPENSENTIENCE_SOCKET", socket)
	os.Setenv("OPENSENTIENCE_TOKEN", token)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go a.Run(ctx)
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(time.Millisecond) {
		if info, _ := core.Agent("greeter"); len(info.Tools) == 2 {
			break
		}
		if time.Now().After(deadline) {
			fmt.Println("the agent did not connect")
			return
		}
	}

	res, err := core.Call(ctx, localbridge.CallRequest{Agent: "greeter", Tool: "greet", Input: json.RawMessage(`{"name":"Ada"}`)},
		func(c localbridge.Chunk) error {
			fmt.Println(c.Text)
			return nil
		})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(string(res.Output))
	res, _ = core.Call(ctx, localbridge.CallRequest{Agent: "greeter", Tool: "shout", Input: json.RawMessage(`{"text":"quiet"}`)}, nil)
	fmt.Println(string(res.Output))
	// Output:
	// Hello,
	// Ada
	// {"greeting":"Hello, Ada"}
	// {"text":"QUIET"}
}

// startGateway serves a Core on a fresh socket and provisions a token for one agent.
func startGateway(agentID string) (core *localbridge.Core, socket, token string) {
	dir, err := os.MkdirTemp("", "agent-example")
	if err != nil {
		panic(err)
	}
	l, err := localbridge.ListenUnix(filepath.Join(dir, "core.sock"))
	if err != nil {
		panic(err)
	}
	core = localbridge.NewCore(localbridge.Config{Logger: slog.New(slog.DiscardHandler)})
	go core.Serve(l)
	core.AddAgent(localbridge.AgentSpec{ID: agentID})
	tok, err := core.ProvisionToken(agentID, time.Minute)
	if err != nil {
		panic(err)
	}
	return core, l.Addr().String(), tok.Reveal()
}
