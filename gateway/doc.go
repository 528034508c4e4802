// Package gateway is the moltgate gateway: the directory an organisation's
// gateway lives in (configuration, keys, TLS material, peers, data), its
// HTTP, WebSocket and gRPC faces, and the routing of messages to local
// agents and to peer organisations. Every face hands what it reads to the
// one pipeline (package gateway/pipeline), which Open builds and connects
// to the rest.
package gateway
