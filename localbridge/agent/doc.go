// Package agent is the Go SDK for local agents: programs a moltgate gateway launches and
// calls the tools of, over the OpenSentience runtime protocol on a Unix socket.
//
// An agent lists its tools, each with a Handler, and calls Run. Run finds the gateway through
// the environment the gateway launched it with (OPENSENTIENCE_SOCKET, OPENSENTIENCE_TOKEN,
// OPENSENTIENCE_AGENT_ID), authenticates, registers the tools and sends heartbeats. Each call
// runs in its own goroutine, with a context that ends when the gateway cancels the call or its
// timeout passes. Streamed output is written as it is produced: when the gateway reads slowly,
// Stream blocks, which slows the tool down instead of piling output up in memory.
//
// Run returns when the gateway says goodbye, the connection ends, or its context ends. The
// token is good for one connection, so an agent whose Run returned should exit; the gateway
// starts it again with a fresh token.
package agent
