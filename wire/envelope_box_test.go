package wire

import (
	"bytes"
	"strings"
	"testing"

	"github.com/moltgate/moltgate/keys"
)

func sameBox(t *testing.T, a, b *Envelope) {
	t.Helper()
	sameEnvelope(t, a, b)
	if !a.SenderPublic.Equal(b.SenderPublic) || !bytes.Equal(a.Nonce, b.Nonce) {
		t.Fatalf("fast and general decoding differ in key or nonce:\n%+v\n%+v", a, b)
	}
}

func testBoxKey(t testing.TB) keys.X25519Public {
	k, err := keys.ParseX25519Public(testEnc)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func TestBoxEnvelopeFastPathMatchesGeneral(t *testing.T) {
	c := NewCodec(Limits{MaxMessage: 4096})
	pub := testBoxKey(t)
	nonce := bytes.Repeat([]byte{7}, 24)
	for _, n := range []int{BoxOverhead, 17, 18, 1000, 4096 + BoxOverhead} {
		b := AppendSealed(nil, pub, nonce, bytes.Repeat([]byte{byte(n)}, n))
		fast, ok := c.decodeBoxCanonical(b)
		if !ok {
			t.Fatalf("canonical envelope of %d bytes not taken by the fast path", n)
		}
		general, err := generalDecode(c, b)
		if err != nil {
			t.Fatal(err)
		}
		sameBox(t, fast, general)
	}
	ok := string(AppendSealed(nil, pub, nonce, make([]byte, 32)))
	for _, variant := range []string{
		ok + " ",
		strings.Replace(ok, `"encrypted":true,`, `"encrypted":true,"x":1,`, 1),
		strings.Replace(ok, `"nonce":"base64:`, `"nonce":"base64:AAAA`, 1),
		strings.Replace(ok, testEnc, "x25519:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=", 1), // low order
		strings.Replace(ok, `"ciphertext":"base64:AAAA`, "\"ciphertext\":\"base64:AA\nAA", 1),
		strings.Replace(ok, AlgBox, "rot13", 1),
	} {
		if _, taken := c.decodeBoxCanonical([]byte(variant)); taken {
			t.Fatalf("fast path took %q", variant)
		}
	}
}

func FuzzDecodeBoxEnvelope(f *testing.F) {
	f.Add(AppendSealed(nil, testBoxKey(f), make([]byte, 24), make([]byte, 20)))
	c := NewCodec(Limits{MaxMessage: 1 << 16})
	f.Fuzz(func(t *testing.T, b []byte) {
		if fast, ok := c.decodeBoxCanonical(b); ok {
			general, err := generalDecode(c, b)
			if err != nil {
				t.Fatalf("fast path accepted what the general path refuses: %v", err)
			}
			sameBox(t, fast, general)
		}
	})
}
