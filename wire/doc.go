// Package wire models MoltSpeak messages and envelopes: the strict decoder,
// the typed payload of each operation, canonical bytes (RFC 8785), and the
// protocol's error codes.
//
// Decoding is strict by design: a message that is not exactly valid is not
// processed. The decoder refuses duplicate keys, trailing data, invalid
// UTF-8, lone surrogates, nesting deeper than the limit, oversize input,
// malformed ids and timestamps and unknown classifications, and every
// refusal is an *Error carrying the protocol error code and the JSON path of
// the offending field. Fields the decoder does not know are kept in the
// parsed tree, so they round-trip and stay covered by the signature.
package wire
