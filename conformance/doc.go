// Package conformance checks a MoltSpeak gateway's security properties from
// the outside, over the network, as a peer organisation would meet them.
//
// It needs no access to the gateway under test beyond what any partner
// organisation gets: its peer document (the signed output of `moltgate peer
// export`: org key, endpoints, TLS pin) and the trust of one test
// organisation. Init makes that organisation in a directory of its own: an
// org key and the peer document to give to the gateway's operator, who
// imports it (`moltgate peer import`) like any partner's. Run then plays the
// test organisation's gateway and agents against the gateway under test:
// handshakes with every message tampered, reflected, replayed or
// downgraded; identities that claim what their keys cannot show; replays on
// the HTTP message and batch routes, the WebSocket and gRPC; senders that
// are forged, uncertified or from an organisation the gateway never
// imported; data above the class ceiling or personal data without consent;
// oversize and malformed input.
//
// Each case sends the altered message and requires the refusal
// docs/protocol.md names for it: the error code, the HTTP status (or gRPC
// status) that goes with it, and a refusal signed by the gateway's org key
// or sealed to the sender. Each case also sends, or has just sent, the
// genuine form of the same message and requires it to be served, so that a
// gateway which refuses everything fails. Where the protocol does not order
// two checks that an altered message fails at once (a field with a rule of
// its own, changed after signing, breaks both that rule and the signature),
// the case names both codes and accepts either.
//
// The suite respects the gateway's rate limits: an E_RATE_LIMIT answer is
// waited out and the case's message built again, never counted as a pass or
// a failure. A run sends a few hundred messages and takes seconds.
package conformance
