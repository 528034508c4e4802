// Package orgkey holds an organisation's own key material as its gateway
// uses it while serving: the org key (gateway@org, with the X25519 key its
// local agents share), the gateway's identity certificate issued under it,
// and the TLS certificate its faces present, as one Set that is never
// changed once made, behind an atomic pointer.
//
// Everything that signs in the gateway's name, presents its certificate
// or its TLS certificate reads the Set at each use, without a lock, and
// uses what it read for the whole of one message or handshake: a rotation
// (moltgate key rotate, tls rotate) replaces the Set while the gateway
// serves, and takes effect for what starts after it while what started
// before finishes under the Set it read.
package orgkey
