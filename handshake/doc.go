// Package handshake runs MoltSpeak's hello → hello_ack → verify →
// verify_response → session_established exchange as a mutual, authenticated
// key exchange, and keeps the sessions it makes.
//
// Both hellos carry a fresh X25519 key and a random nonce. Each side then
// signs the other's fresh 32-byte challenge together with the hash of the
// transcript so far, a label naming its role, and both identities, so that
// a proof cannot be reflected, replayed into another handshake, or passed
// off to a third party. The session keys, one per direction, come from
// HKDF-SHA256 over the ephemeral shared secret salted with the transcript
// hash: they depend on every byte exchanged, and die with the ephemeral keys
// (forward secrecy). Version, capabilities, classes and extensions are
// negotiated from the two signed hellos, so stripping an offer in transit
// breaks a signature. docs/protocol.md gives the bytes.
//
// An Initiator and a Responder each run once, over any Transport (a
// WebSocket, a gRPC stream, or an HTTP exchange through RoundTrip); an
// Acceptor answers handshakes that arrive one request at a time. Completed
// sessions go to a Store, which finds them by id for Session.Open and by
// peer for Session.Seal. Messages outside sessions go through the replay
// window of package replay instead.
package handshake
