// Command echoagent runs the echo agent. The gateway launches it with OPENSENTIENCE_SOCKET,
// OPENSENTIENCE_TOKEN and OPENSENTIENCE_AGENT_ID in its environment.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/moltgate/moltgate/localbridge/agent/echo"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := echo.New().Run(ctx); err != nil {
		fmt.Fprintln(os.Stderr, "echoagent:", err)
		os.Exit(1)
	}
}
