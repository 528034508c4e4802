package pii

import (
	"crypto/rand"
	"fmt"
	"strings"
	"testing"
)

// TestUUIDsAreNotPersonalData: random UUIDs, alone or in text or JSON, are
// never findings. Before they were recognised, about one in thirty read as
// a phone number.
func TestUUIDsAreNotPersonalData(t *testing.T) {
	sc, err := New(nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 20000; i++ {
		var b [16]byte
		rand.Read(b[:])
		b[6] = b[6]&0x0f | 0x40
		b[8] = b[8]&0x3f | 0x80
		u := fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
		for _, s := range []string{u, strings.ToUpper(u), "task " + u + " is done", "id=" + u} {
			if f := sc.ScanText(s); len(f) != 0 {
				t.Fatalf("%q: %v", s, f)
			}
		}
		js := []byte(`{"stream_id":"` + u + `","re":"` + u + `"}`)
		if f, err := sc.ScanJSON("p", js); err != nil || len(f) != 0 {
			t.Fatalf("%s: %v %v", js, f, err)
		}
	}
	// Personal data next to a UUID is still found.
	if f := sc.ScanText("ticket 550e8400-e29b-41d4-a716-446655440000 from jane.doe@example.com"); len(f) != 1 || f[0].Type != TypeEmail {
		t.Fatalf("e-mail beside a UUID: %v", f)
	}
	// A digit group that only looks like part of a UUID is not skipped.
	if f := sc.ScanText("call +1 415 555 2671 now"); len(f) != 1 || f[0].Type != TypePhone {
		t.Fatalf("phone: %v", f)
	}
}
