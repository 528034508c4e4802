package grpcconn

import (
	"testing"

	"google.golang.org/grpc/mem"
)

// TestRawCodecReceivesIntoRoom: a gRPC message is copied into the buffer
// given, when it has the room, and into a new one otherwise.
func TestRawCodecReceivesIntoRoom(t *testing.T) {
	msg := mem.BufferSlice{mem.SliceBuffer([]byte("sealed ")), mem.SliceBuffer([]byte("envelope"))}
	room := make([]byte, 0, 64)
	b := room
	if err := (Codec{}).Unmarshal(msg, &b); err != nil {
		t.Fatal(err)
	}
	if string(b) != "sealed envelope" || &b[0] != &room[:1][0] {
		t.Fatalf("got %q, in the given buffer: %v", b, &b[0] == &room[:1][0])
	}
	small := make([]byte, 0, 4)
	b = small
	if err := (Codec{}).Unmarshal(msg, &b); err != nil {
		t.Fatal(err)
	}
	if string(b) != "sealed envelope" {
		t.Fatalf("got %q", b)
	}
	var none []byte
	if err := (Codec{}).Unmarshal(msg, &none); err != nil || string(none) != "sealed envelope" {
		t.Fatalf("into nil: %q, %v", none, err)
	}
}
