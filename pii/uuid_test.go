package pii

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// TestIdentifiersAreNotPersonal scans random UUIDs, as every message id,
// stream id, nonce and task id is one: none may be taken for personal data,
// or messages that carry them would be blocked at random.
func TestIdentifiersAreNotPersonal(t *testing.T) {
	sc, err := New(nil)
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 20_000 {
		var b [16]byte
		for i := range b {
			b[i] = byte(r.Uint32())
		}
		b[6] = b[6]&0x0f | 0x40
		b[8] = b[8]&0x3f | 0x80
		id := fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:])
		if f := sc.ScanText(id); len(f) > 0 {
			t.Fatalf("UUID %s: %v", id, f)
		}
		if f := sc.ScanText("stream " + id + " ended"); len(f) > 0 {
			t.Fatalf("UUID in text %s: %v", id, f)
		}
	}
	// A phone number written with dashes is still one.
	for _, s := range []string{"call 555-0142-1234 now", "phone: 030-1234567", "+44-20-7946-0958"} {
		if f := sc.ScanText(s); len(f) == 0 {
			t.Errorf("%q: no phone number found", s)
		}
	}
}
