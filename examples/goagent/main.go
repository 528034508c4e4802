// Command goagent is an agent with two tools, one of which streams: the Go
// counterpart of sdk/python/examples/agent.py. The gateway launches it
// (moltgate agent add --exec) with OPENSENTIENCE_SOCKET, OPENSENTIENCE_TOKEN
// and OPENSENTIENCE_AGENT_ID in its environment.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/moltgate/moltgate/localbridge/agent"
)

func main() {
	a := &agent.Agent{Version: "1.0.0"}
	a.Add(agent.Tool{
		Name:        "greet",
		Description: "Greets someone by name.",
		InputSchema: `{"type":"object","properties":{"name":{"type":"string","maxLength":100}},"required":["name"]}`,
		Handler: func(ctx context.Context, c *agent.Call) (any, error) {
			var in struct{ Name string }
			if err := c.Bind(&in); err != nil {
				return nil, err
			}
			return map[string]string{"greeting": "Hello, " + in.Name + "!"}, nil
		},
	})
	a.Add(agent.Tool{
		Name:        "count",
		Description: "Counts from 1 to n, streaming each number; stops when cancelled.",
		InputSchema: `{"type":"object","properties":{"n":{"type":"integer","minimum":1,"maximum":1000}},"required":["n"]}`,
		Handler: func(ctx context.Context, c *agent.Call) (any, error) {
			var in struct{ N int }
			if err := c.Bind(&in); err != nil {
				return nil, err
			}
			for i := 1; i <= in.N; i++ {
				if err := c.Stream(fmt.Sprintf("%d\n", i)); err != nil {
					return nil, err // the call was cancelled, or the gateway went away
				}
				select {
				case <-time.After(100 * time.Millisecond):
				case <-ctx.Done(): // a cancel from the caller ends ctx
					return nil, ctx.Err()
				}
			}
			return map[string]int{"counted": in.N}, nil
		},
	})
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := a.Run(ctx); err != nil && ctx.Err() == nil {
		fmt.Fprintln(os.Stderr, "goagent:", err)
		os.Exit(1)
	}
}
