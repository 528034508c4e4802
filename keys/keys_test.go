package keys

import (
	"bytes"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"
)

type wycheproofFile struct {
	TestGroups []struct {
		PublicKey struct {
			PK string `json:"pk"`
		} `json:"publicKey"`
		Tests []struct {
			TcID    int      `json:"tcId"`
			Comment string   `json:"comment"`
			Flags   []string `json:"flags"`
			Msg     string   `json:"msg"`
			Sig     string   `json:"sig"`
			Public  string   `json:"public"`
			Private string   `json:"private"`
			Shared  string   `json:"shared"`
			Result  string   `json:"result"`
		} `json:"tests"`
	} `json:"testGroups"`
}

func loadWycheproof(t *testing.T, name string) wycheproofFile {
	t.Helper()
	b, err := os.ReadFile("testdata/wycheproof/" + name)
	if err != nil {
		t.Fatal(err)
	}
	var f wycheproofFile
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	return f
}

func unhex(t *testing.T, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestWycheproofEd25519 runs every vector through the text forms and Verify.
func TestWycheproofEd25519(t *testing.T) {
	f := loadWycheproof(t, "ed25519_test.json")
	n := 0
	v := NewVerifier(0)
	for _, g := range f.TestGroups {
		pk, err := ParseEd25519Public(Ed25519Prefix + base64.StdEncoding.EncodeToString(unhex(t, g.PublicKey.PK)))
		if err != nil {
			t.Fatalf("public key: %v", err)
		}
		for _, tc := range g.Tests {
			n++
			sigBytes := unhex(t, tc.Sig)
			ok := false
			if sig, err := ParseSignature(Ed25519Prefix + base64.StdEncoding.EncodeToString(sigBytes)); err == nil {
				ok = pk.Verify(unhex(t, tc.Msg), sig)
				// And through a Verifier, whose cache holds the group's
				// key once a vector has signed validly with it.
				if cached := v.Verify(pk, unhex(t, tc.Msg), sig); cached != ok {
					t.Errorf("tc %d (%s): Verifier says %v, Verify %v", tc.TcID, tc.Comment, cached, ok)
				}
			} else if len(sigBytes) == ed25519.SignatureSize {
				t.Fatalf("tc %d: well-sized signature refused: %v", tc.TcID, err)
			}
			if want := tc.Result == "valid"; ok != want {
				t.Errorf("tc %d (%s): verify = %v, want %v", tc.TcID, tc.Comment, ok, want)
			}
		}
	}
	if n != 151 {
		t.Fatalf("ran %d vectors, want 151", n)
	}
}

// TestWycheproofX25519 runs every vector through X25519PublicFromBytes,
// X25519FromBytes and ECDH. Low-order public keys must be refused; every
// other vector must produce the expected shared secret.
func TestWycheproofX25519(t *testing.T) {
	f := loadWycheproof(t, "x25519_test.json")
	n, refused := 0, 0
	for _, g := range f.TestGroups {
		for _, tc := range g.Tests {
			n++
			lowOrder := false
			for _, fl := range tc.Flags {
				lowOrder = lowOrder || fl == "LowOrderPublic" || fl == "ZeroSharedSecret"
			}
			priv, err := X25519FromBytes(unhex(t, tc.Private))
			if err != nil {
				t.Fatalf("tc %d: private key: %v", tc.TcID, err)
			}
			pub, err := X25519PublicFromBytes(unhex(t, tc.Public))
			if err != nil {
				if !lowOrder || tc.Result == "valid" || !errors.Is(err, ErrLowOrder) {
					t.Errorf("tc %d (%s, %v): public key refused: %v", tc.TcID, tc.Comment, tc.Flags, err)
				}
				refused++
				// The text form must refuse it too.
				if _, err := ParseX25519Public(X25519Prefix + base64.StdEncoding.EncodeToString(unhex(t, tc.Public))); !errors.Is(err, ErrLowOrder) {
					t.Errorf("tc %d: text form accepted a low-order key", tc.TcID)
				}
				continue
			}
			shared, err := priv.ECDH(pub)
			if lowOrder {
				// A low-order point outside the table must still fail here.
				if err == nil {
					t.Errorf("tc %d (%v): low-order key gave a shared secret", tc.TcID, tc.Flags)
				}
				refused++
				continue
			}
			if err != nil {
				t.Errorf("tc %d (%s): ECDH: %v", tc.TcID, tc.Comment, err)
				continue
			}
			if !bytes.Equal(shared, unhex(t, tc.Shared)) {
				t.Errorf("tc %d (%s): wrong shared secret", tc.TcID, tc.Comment)
			}
		}
	}
	if n != 518 {
		t.Fatalf("ran %d vectors, want 518", n)
	}
	if refused == 0 {
		t.Fatal("no low-order key was refused")
	}
}

func TestParseStrict(t *testing.T) {
	k, _ := GenerateEd25519(bytes.NewReader(make([]byte, 32)))
	good := k.Public().String()
	if len(good) != len(Ed25519Prefix)+44 {
		t.Fatalf("text form %q has the wrong length", good)
	}
	if p, err := ParseEd25519Public(good); err != nil || !p.Equal(k.Public()) {
		t.Fatalf("round trip: %v", err)
	}
	// A key whose last base64 character carries non-zero padding bits
	// decodes to the same bytes under a lax decoder; it must be refused.
	last := good[len(good)-2]
	idx := strings.IndexByte("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/", last)
	alt := "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"[idx^1]
	nonCanonical := good[:len(good)-2] + string(alt) + "="

	cases := []struct {
		name, in string
		want     error
	}{
		{"x25519 prefix", "x25519:" + good[len(Ed25519Prefix):], ErrPrefix},
		{"upper-case prefix", "ED25519:" + good[len(Ed25519Prefix):], ErrPrefix},
		{"no prefix", good[len(Ed25519Prefix):], ErrPrefix},
		{"short", good[:len(good)-4], ErrLength},
		{"long", good + "AAAA", ErrLength},
		{"unpadded", good[:len(good)-1] + "A", ErrEncoding},
		{"url alphabet", strings.NewReplacer("+", "-", "/", "_").Replace(good[:8]) + "-_" + good[10:], ErrEncoding},
		{"non-canonical padding bits", nonCanonical, ErrEncoding},
		{"whitespace", good[:20] + " " + good[21:], ErrEncoding},
	}
	for _, c := range cases {
		if _, err := ParseEd25519Public(c.in); !errors.Is(err, c.want) {
			t.Errorf("%s: got %v, want %v", c.name, err, c.want)
		}
	}
	if _, err := ParseX25519Public("x25519:" + base64.StdEncoding.EncodeToString(make([]byte, 32))); !errors.Is(err, ErrLowOrder) {
		t.Errorf("all-zero x25519 key: got %v", err)
	}
	if _, err := ParseSignature("ed25519:" + base64.StdEncoding.EncodeToString(make([]byte, 63))); !errors.Is(err, ErrLength) {
		t.Errorf("63-byte signature: got %v", err)
	}
}

func TestEqualAndRedaction(t *testing.T) {
	a, _ := GenerateEd25519(bytes.NewReader(bytes.Repeat([]byte{1}, 32)))
	b, _ := GenerateEd25519(bytes.NewReader(bytes.Repeat([]byte{2}, 32)))
	if !a.Public().Equal(a.Public()) || a.Public().Equal(b.Public()) {
		t.Fatal("Ed25519Public.Equal is wrong")
	}
	if !a.Equal(a) || a.Equal(b) {
		t.Fatal("Ed25519Private.Equal is wrong")
	}
	x, _ := GenerateX25519(bytes.NewReader(bytes.Repeat([]byte{3}, 32)))
	seed := base64.StdEncoding.EncodeToString(a.Seed())
	xs := base64.StdEncoding.EncodeToString(x.Bytes())
	var buf bytes.Buffer
	for _, v := range []any{a, x, &a, &x} {
		buf.Reset()
		for _, f := range []string{"%v", "%+v", "%#v", "%s"} {
			buf.WriteString(strings.ReplaceAll(f, "%", "%%"))
			buf.WriteString(sprintf(f, v))
		}
		if strings.Contains(buf.String(), seed) || strings.Contains(buf.String(), xs) {
			t.Fatalf("private key printed: %s", buf.String())
		}
	}
	if got, err := ParseEd25519Private(a.Secret()); err != nil || !got.Equal(a) {
		t.Fatalf("Secret round trip: %v", err)
	}
	if got, err := ParseX25519Private(x.Secret()); err != nil || !got.Equal(x) {
		t.Fatalf("Secret round trip: %v", err)
	}
}

func FuzzParseKeys(f *testing.F) {
	k, _ := GenerateEd25519(bytes.NewReader(make([]byte, 32)))
	x, _ := GenerateX25519(bytes.NewReader(bytes.Repeat([]byte{9}, 32)))
	f.Add(k.Public().String())
	f.Add(x.Public().String())
	f.Add(k.Sign(nil).String())
	f.Add("ed25519:")
	f.Add("x25519:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=")
	f.Fuzz(func(t *testing.T, s string) {
		// Whatever parses must print back to exactly the input: one
		// spelling per key.
		if p, err := ParseEd25519Public(s); err == nil && p.String() != s {
			t.Fatalf("ed25519 %q re-encodes as %q", s, p.String())
		}
		if p, err := ParseX25519Public(s); err == nil {
			if p.String() != s {
				t.Fatalf("x25519 %q re-encodes as %q", s, p.String())
			}
			if hasLowOrder((*[32]byte)(&p)) {
				t.Fatalf("low-order key accepted")
			}
		}
		if sig, err := ParseSignature(s); err == nil && sig.String() != s {
			t.Fatalf("signature %q re-encodes as %q", s, sig.String())
		}
		if b, err := DecodeBytes(s, 0); err == nil && EncodeBytes(b) != s {
			t.Fatalf("bytes %q re-encode as %q", s, EncodeBytes(b))
		}
	})
}

func TestDecodeBytesStrict(t *testing.T) {
	for _, n := range []int{0, 1, 2, 3, 24, 31, 32, 33, 100, 1000, 4099} {
		b := bytes.Repeat([]byte{0xA5, 0x3C, 0xFF}, n)[:n]
		s := EncodeBytes(b)
		got, err := DecodeBytes(s, 0)
		if err != nil || !bytes.Equal(got, b) {
			t.Fatalf("%d bytes: round trip failed: %v", n, err)
		}
		if n == 0 {
			continue
		}
		// Every way of spelling the same bytes differently is refused.
		rest := s[len(Base64Prefix):]
		for _, bad := range []string{
			Base64Prefix + rest[:len(rest)/2] + "\n" + rest[len(rest)/2:],
			Base64Prefix + rest[:len(rest)/2] + "\r\n" + rest[len(rest)/2:],
			Base64Prefix + strings.TrimRight(rest, "="),
			Base64Prefix + strings.NewReplacer("+", "-", "/", "_").Replace(rest),
			"BASE64:" + rest,
		} {
			if bad == s {
				continue
			}
			if _, err := DecodeBytes(bad, 0); err == nil {
				t.Fatalf("%d bytes: accepted %q", n, bad)
			}
		}
	}
	if _, err := DecodeBytes(EncodeBytes(make([]byte, 100)), 50); !errors.Is(err, ErrLength) {
		t.Fatalf("max: %v", err)
	}
}
