// Package keys holds moltgate's typed key material: Ed25519 signing keys,
// X25519 encryption keys, their strict text forms, the on-disk identity file
// that stores a pair of them, and a store of pinned peer keys.
//
// Every key has a text form made of an algorithm prefix and standard padded
// base64: "ed25519:" or "x25519:" followed by exactly 44 characters. Parsing
// refuses any other prefix, length or a non-canonical base64 encoding, so a
// key has exactly one spelling and can be compared as text.
//
// Private keys never print themselves: their String and LogValue methods give
// a redacted form, and the secret text is only available through the explicit
// Secret methods used to write identity files.
package keys
