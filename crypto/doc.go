// Package crypto signs and verifies MoltSpeak messages and seals and opens
// their envelopes.
//
// A signature is Ed25519 over the RFC 8785 canonical bytes of the message
// object without "sig", computed from the parsed message as received, so
// whitespace and member order on the wire do not matter and unknown fields
// are covered. For interoperability a verifier also accepts the form the
// reference Python SDK signs (sorted keys, ASCII-escaped).
//
// Sealing encrypts the signed message's bytes with NaCl box
// (x25519-xsalsa20-poly1305). Opening checks that the inner message names
// the recipient and that its sender's enc_key is the key that sealed it, so
// a signed message cannot be re-sealed to someone else.
package crypto
