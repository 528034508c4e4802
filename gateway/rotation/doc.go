// Package rotation is the gateway's room for handovers (package
// handover): the organisation's own signed statements, which it serves on
// its registry and pushes to every peer in a security_alert of type
// key_rotation, and the statements of its peers, which it verifies against
// their pinned org keys and takes without an operator acting.
//
// A peer's org key handover goes into the peer's pin (keys.PinStore): the
// new key verifies from its effective time, becomes the pinned key the
// first time the peer presents it, and the old key is refused once the
// overlap ends, when the sessions made under it end too. A TLS handover
// goes into the peer file: both pins are accepted until the overlap ends.
// A statement whose signatures do not hold under the key pinned for its
// organisation is refused and logged at ERROR as a security event.
//
// The room reaches peers through the peer table and rewrites peer files
// through hooks the gateway gives it; it knows no face, no storage backend
// and no local bridge.
package rotation
