// Package peers is the gateway's outbound side: the table of imported peer
// organisations and, for each, the means to call its gateway (a pooled HTTP
// client pinned to its TLS certificate, WebSocket and gRPC connections made
// on demand, each with the session its handshake made and renewed before
// it runs out), the circuit breaker and retries of calls, and the calls
// waiting for their replies.
//
// A call goes out through the gate (Gate, outbound), signed and sealed in
// its session, and each reply comes back opened, checked to be from the
// organisation called and addressed to the caller, and through the gate
// inbound. The package knows the gateway only through Config: no face,
// no storage and no local bridge.
package peers
