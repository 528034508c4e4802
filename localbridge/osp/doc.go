// Package osp is the wire format of the OpenSentience runtime protocol v1, spoken between
// OpenSentience Core (the gateway) and local agent processes over a Unix socket.
//
// A message is one JSON object, encoded as UTF-8 and preceded by its length as a 4-byte
// unsigned big-endian integer:
//
//	+----------------+---------------------------------------------+
//	| len (uint32 BE)| len bytes of UTF-8 JSON: {"v":1,"type":...} |
//	+----------------+---------------------------------------------+
//
// Every message carries the envelope fields v, type, id, ts and payload, plus the optional
// correlation fields and a top-level error object. Reader enforces the frame size limit before
// it allocates anything, and Decode rejects frames that are not UTF-8, nest deeper than
// MaxDepth, or lack the required envelope fields. Unknown fields are ignored, as the
// protocol's additive evolution rule requires.
//
// The package holds no connection state: the Core side lives in package localbridge and the
// agent side in package localbridge/agent.
package osp
