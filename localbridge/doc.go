// Package localbridge connects a moltgate gateway to its organisation's own agents and local
// callers.
//
// Core is the OpenSentience Core side of the runtime protocol v1 (package osp): it listens on
// a private Unix socket (or one shared with containers, ListenShared), launches the configured
// agents (AgentSpec) with a single-use token in their environment and keeps them running,
// admits agents started elsewhere with an operator's one-time token and then the key it binds
// (Credentials, package localbridge/credential), holds their tool registrations, health and
// display names (agent.update), and makes tool calls into them (Call, Start). Input is validated against each tool's JSON Schema before a call is
// sent; calls to tools with side effects wait for a human (Approver, Approvals). Failures are
// *Error values, and OutcomeOf maps them to MoltSpeak error codes.
//
// RPCServer is the JSON-RPC 2.0 face for local callers (the CLI, apps, terminals), in the
// conventions of the OpenAgent-Terminal IPC protocol; Client is its Go client. The face
// reaches the rest of the gateway through small interfaces (Querier, Discoverer, Syncer,
// Pinger, ConsentIssuer); Local implements them for the organisation's own agents from a Core.
// It also serves the gateway's event stream (package events) as notifications.
//
// Agents are written with package localbridge/agent.
package localbridge
