// Package retired keeps on disk the X25519 keys an organisation's key
// rotations replaced, each until the overlap of its rotation ends.
//
// Senders that have not yet taken a rotation's handover (a peer that was
// down, a client that seals outside a session) go on sealing to the key
// replaced until the overlap ends, and the gateway must open what they
// seal even if it restarts meanwhile. moltgate key rotate writes the key
// replaced to keys/retired/ in the gateway's directory, mode 0600, in a
// file like an identity file (in the clear, or sealed under the org key's
// passphrase) that says in the clear when its overlap ends. The gateway
// loads the files whose overlap has not ended when it starts, and removes
// each file once its overlap has ended: at its next start, or from its
// watch loop while it serves.
package retired
