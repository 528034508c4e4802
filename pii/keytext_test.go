package pii

import (
	"encoding/base64"
	mrand "math/rand/v2"
	"strings"
	"testing"

	"github.com/moltgate/moltgate/keys"
)

// TestKeyTextsReadWhole: moltgate's public key and signature text forms
// are read whole, whatever their base64 spells by chance. Every token
// rule's prefix that base64 can spell is placed right after the scheme's
// colon and after a '/' or a '+' inside the body of an ed25519 key, an
// x25519 key and a signature: none is a finding, as a payload member or in
// text. The 32-byte forms after a private-key cue are still private seeds.
func TestKeyTextsReadWhole(t *testing.T) {
	s := mustNew(t, nil)
	rnd := mrand.New(mrand.NewChaCha8([32]byte{'k', 'e', 'y'}))
	b64 := func(p string) bool {
		for i := 0; i < len(p); i++ {
			if csTab[p[i]]&setB64 == 0 {
				return false
			}
		}
		return true
	}
	forms := []struct {
		scheme string
		n      int
		parse  func(string) error
	}{
		{keys.Ed25519Prefix, 32, func(v string) error { _, err := keys.ParseEd25519Public(v); return err }},
		{keys.X25519Prefix, 32, func(v string) error { _, err := keys.ParseX25519Public(v); return err }},
		{keys.Ed25519Prefix, 64, func(v string) error { _, err := keys.ParseSignature(v); return err }},
	}
	tried := 0
	for _, r := range tokenRules {
		if !b64(r.prefix) {
			continue
		}
		for _, f := range forms {
			for _, at := range []string{"", "/", "+"} {
				for range 4 {
					raw := make([]byte, f.n)
					for i := range raw {
						raw[i] = byte(rnd.Uint32())
					}
					body := []byte(base64.StdEncoding.EncodeToString(raw))
					pos := 0
					if at != "" {
						pos = 1 + rnd.IntN(len(body)-len(r.prefix)-8)
					}
					copy(body[pos:], at+r.prefix)
					// What base64 reads back is the form a key of these bytes has.
					dec, err := base64.StdEncoding.DecodeString(string(body))
					if err != nil {
						t.Fatal(err)
					}
					text := f.scheme + base64.StdEncoding.EncodeToString(dec)
					if !strings.Contains(text, at+r.prefix) {
						t.Fatalf("%q lost %q", text, at+r.prefix)
					}
					if err := f.parse(text); err != nil {
						t.Fatalf("%q: %v", text, err)
					}
					tried++
					if fs, err := s.ScanJSON("p", []byte(`{"issuer":"`+text+`","sig":"`+text+`"}`)); err != nil || len(fs) != 0 {
						t.Errorf("%s: %v %v", text, fs, err)
					}
					if fs := s.ScanText("signed by " + text + " at 10:14"); len(fs) != 0 {
						t.Errorf("in text %s: %v", text, fs)
					}
					if f.n == 32 && !hasType(s.ScanText("private seed "+text), TypePrivateKey) {
						t.Errorf("private seed %s not found", text)
					}
				}
			}
		}
	}
	if tried < 300 {
		t.Fatalf("only %d key texts tried", tried)
	}
}
