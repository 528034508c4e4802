// Package gateway is the moltgate gateway: the directory an organisation's
// gateway lives in (configuration, keys, TLS material, peers, data), its
// HTTP, WebSocket and gRPC faces, the one pipeline every face calls, and the
// routing of messages to local agents and to peer organisations.
package gateway
