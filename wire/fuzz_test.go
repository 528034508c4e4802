package wire

import (
	"bytes"

	"github.com/moltgate/moltgate/keys"
	"testing"
)

func addSeeds(f *testing.F) {
	for _, p := range validPayloads {
		f.Add([]byte(msg("query", p, "int")))
	}
	for op, p := range validPayloads {
		f.Add([]byte(msg(string(op), p, "pub", `"ext":{"acme.x":{"a":[1.5,"\u00e9"]}}`)))
	}
	f.Add([]byte(`{"a":[1e21,-0,"\ud83d\ude00"],"b":{"\u20ac":1}}`))
	f.Add([]byte(`[[[[]]]]`))
	f.Add([]byte(msg("query", validPayloads[OpQuery], "int", `"sig":"`+testSig+`"`)))
	f.Add([]byte(`{"cls":"int","from":{"agent":"a","org":"o"},"id":"` + testID + `","op":"ping","p":{"nonce":"x"},"sig":"` + testSig + `","to":{"agent":"b","org":"p"},"ts":1703280000000,"v":"0.1"}`))
}

// FuzzParse: whatever parses has a canonical form that parses back to the
// same canonical form.
func FuzzParse(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, b []byte) {
		v, err := Parse(b, 0)
		if err != nil {
			if _, ok := err.(*Error); !ok {
				t.Fatalf("error of type %T", err)
			}
			return
		}
		c1 := AppendCanonical(nil, v)
		v2, err := Parse(c1, 0)
		if err != nil {
			t.Fatalf("canonical form does not parse: %v\n%s", err, c1)
		}
		if c2 := AppendCanonical(nil, v2); !bytes.Equal(c1, c2) {
			t.Fatalf("canonical form not stable:\n%s\n%s", c1, c2)
		}
		// The Python form is valid JSON too.
		if _, err := Parse(AppendPythonSorted(nil, v), 0); err != nil {
			t.Fatalf("python form does not parse: %v", err)
		}
	})
}

// FuzzDecode: decode → canonical → decode is stable, and a decoded message
// keeps everything it was given.
func FuzzDecode(f *testing.F) {
	addSeeds(f)
	c := NewCodec(Limits{})
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := c.Decode(b)
		if err != nil {
			if _, ok := err.(*Error); !ok {
				t.Fatalf("error of type %T", err)
			}
			return
		}
		w1, err := m.AppendWire(nil)
		if err != nil {
			t.Fatal(err)
		}
		m2, err := c.Decode(w1)
		if err != nil {
			t.Fatalf("wire form does not decode: %v\n%s", err, w1)
		}
		w2, _ := m2.AppendWire(nil)
		if !bytes.Equal(w1, w2) {
			t.Fatalf("wire form not stable:\n%s\n%s", w1, w2)
		}
		s1, _ := m.AppendSigningBytes(nil)
		s2, _ := m2.AppendSigningBytes(nil)
		if !bytes.Equal(s1, s2) {
			t.Fatal("signing bytes changed across a round trip")
		}
		// The fast path for canonical input agrees with serialising the
		// tree.
		if slow := appendTop(nil, m.tree, "sig", nil); !bytes.Equal(s1, slow) {
			t.Fatalf("signing bytes differ from the canonical form:\n%s\n%s", s1, slow)
		}
		if !m2.canon {
			t.Fatal("wire form not recognised as canonical")
		}
		// Signing splices "sig" into exactly the canonical form.
		var got []byte
		w3, err := m.SignWith(func(b []byte) keys.Signature { got = append(got[:0], b...); return m.Sig })
		if err != nil || !bytes.Equal(got, s1) {
			t.Fatalf("SignWith signed other bytes: %v\n%s\n%s", err, got, s1)
		}
		if m.Signed() && !bytes.Equal(w3, w1) {
			t.Fatalf("SignWith wire form differs:\n%s\n%s", w3, w1)
		}
	})
}

// FuzzDecodeEnvelope: no input panics, every error is a *Error.
func FuzzDecodeEnvelope(f *testing.F) {
	addSeeds(f)
	f.Add([]byte(`{"moltspeak":"0.1","envelope":{"encrypted":true,"algorithm":"x25519-xsalsa20-poly1305","sender_public":"` + testEnc + `","nonce":"base64:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"},"ciphertext":"base64:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"}`))
	c := NewCodec(Limits{})
	f.Fuzz(func(t *testing.T, b []byte) {
		env, err := c.DecodeEnvelope(b)
		if err != nil {
			if _, ok := err.(*Error); !ok {
				t.Fatalf("error of type %T", err)
			}
			return
		}
		if env.Encrypted == (env.Message != nil) {
			t.Fatal("envelope is both or neither sealed and clear")
		}
	})
}
