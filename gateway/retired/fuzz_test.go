package retired

import (
	"bytes"
	"testing"
	"time"

	"github.com/moltgate/moltgate/keys"
)

// Whatever a retired key file holds, Unmarshal does not panic, and what
// it takes encodes to a file that decodes to the same key.
func FuzzUnmarshal(f *testing.F) {
	k, _ := keys.GenerateX25519(bytes.NewReader(bytes.Repeat([]byte{3}, 32)))
	good, _ := (&Key{Org: "acme", Key: k, Until: time.Date(2026, 5, 2, 12, 0, 0, 0, time.UTC)}).Marshal(keys.WriteOptions{})
	f.Add(good)
	f.Add([]byte(`{"moltgate_retired_key":1,"org":"acme","public":{"enc_key":""},"until":"x"}`))
	f.Add([]byte(`{}`))
	f.Add(bytes.Replace(good, []byte("2026-05-02T12:00:00Z"), []byte("0001-01-01T00:00:00Z"), 1))
	f.Fuzz(func(t *testing.T, b []byte) {
		got, err := Unmarshal(b, nil)
		if err != nil {
			return
		}
		again, err := got.Marshal(keys.WriteOptions{})
		if err != nil {
			t.Fatalf("a key read does not encode: %v", err)
		}
		back, err := Unmarshal(again, nil)
		if err != nil || back.Org != got.Org || !back.Key.Equal(got.Key) || !back.Until.Equal(got.Until) {
			t.Fatalf("round trip: %+v, %v", back, err)
		}
	})
}
