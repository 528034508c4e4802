// Package revoke is the gateway's room for revoked keys: the
// organisation's own signed revocation list, which it serves on its
// registry and pushes to every peer in a security_alert, and the book of
// its peers' lists, which it enforces on every message a peer sends.
//
// A peer's list is learnt before the first of its messages is taken after
// start, pulled from every peer each minute, and taken from a peer's
// security_alert when its org key signed it. Taking a list that revokes
// something new ends the sessions with that peer and removes the revoked
// agents' entries from the directory.
//
// The room reaches peers through the peer table, sessions through its own
// Sessions interface and the directory through directory.Store; it knows
// no face, no storage backend and no local bridge.
package revoke
