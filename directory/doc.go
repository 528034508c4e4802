// Package directory is the registry every moltgate serves for its
// organisation: agents register with a profile (endpoint, keys,
// capabilities, metadata, visibility), other agents discover them by
// capability, and liveness records feed each agent's uptime.
//
// This package holds the entry model, the search and liveness semantics,
// the Store interface that persists them, and the Registry: the service in
// front of a Store that checks signed register messages (signature,
// identity certificate, authority, profile, ttl), answers discovery with
// records the registry attests (Attested, VerifyAttestation), records
// liveness from pongs, and exports and imports entries for registry sync. The backends live in
// subpackages: sqlitestore (an embedded SQLite file, the default) and
// pgstore (PostgreSQL, for several replicas of one gateway). Both pass the
// conformance suite in storetest.
//
// # Visibility
//
// A public entry is searchable; an unlisted entry is found only by its exact
// id; a private entry never leaves the gateway. Beyond the discovery
// specification, an entry may name the peer organisations allowed to see
// it (AllowedOrgs); every other organisation is answered as if the entry did
// not exist. Who is asking is a Viewer, passed with every read.
//
// # Personal data and secrets
//
// What a registry holds it publishes, so it holds nothing the gateway's
// gate would stop: a registration in which the scanner (package pii, with
// the gate's rules) finds personal data or secret material is refused,
// whatever its class (see Registry.CheckContent), and an entry that holds
// some all the same is withheld from every answer to another organisation.
//
// # Ordering of registrations
//
// Each registration carries the timestamp of the signed message that
// created it (SignedAt) and that message's bytes (Registration). A store
// refuses a write older than what it holds (ErrStale); when two writes carry
// the same timestamp the one with the greater bytes wins, so every registry
// that sees the same writes converges on the same entry whatever the order
// of arrival. Removals are kept as tombstones with their own signed bytes so
// that registry sync can pass them on and peers can check them.
package directory
