package grpcface

import "google.golang.org/protobuf/encoding/protowire"

// The protobuf framing of proto/moltgate/v1/gateway.proto: a message
// Envelope whose field 1 (bytes) is the envelope. A generated client sends
// exactly the field's tag (0x0a), its length as a varint and the bytes;
// an envelope sent raw is JSON, which starts with '{' or, at the most, with
// white space before it, and no JSON envelope is short enough for a
// newline and a length to frame the rest of it exactly.

// ProtoFile is the .proto file that describes the service, under proto/.
const ProtoFile = "moltgate/v1/gateway.proto"

// protoOverhead is the most the framing adds to an envelope: the tag and a
// length of up to 2^35.
const protoOverhead = 1 + 5

// envelopeField is field 1 of Envelope, of wire type bytes.
const envelopeField protowire.Number = 1

// fromProto returns the envelope b frames as an Envelope, or false if b is
// not one (it is then the envelope itself).
func fromProto(b []byte) ([]byte, bool) {
	num, typ, n := protowire.ConsumeTag(b)
	if n <= 0 || num != envelopeField || typ != protowire.BytesType {
		return nil, false
	}
	env, m := protowire.ConsumeBytes(b[n:])
	if m < 0 || n+m != len(b) {
		return nil, false
	}
	return env, true
}

// unframeInPlace moves the envelope b frames to the start of b, so that
// the buffer b was received into is still the one given back.
func unframeInPlace(b []byte) []byte {
	env, _ := fromProto(b)
	return b[:copy(b, env)]
}

// toProto frames env as an Envelope. An empty one is the empty message.
func toProto(env []byte) []byte {
	if len(env) == 0 {
		return []byte{}
	}
	b := make([]byte, 0, protoOverhead+len(env))
	b = protowire.AppendTag(b, envelopeField, protowire.BytesType)
	return protowire.AppendBytes(b, env)
}
