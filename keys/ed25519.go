package keys

import (
	"crypto/ed25519"
	"crypto/subtle"
	"fmt"
	"io"
	"log/slog"

	voi "github.com/oasisprotocol/curve25519-voi/primitives/ed25519"
)

// stdlibRules makes voi verify exactly as crypto/ed25519 does: S must be
// canonical (below the group order), A and R may be any encoding of a
// point, small-order points are allowed, and the equation is the
// cofactorless [S]B = R + [k]A with R compared as bytes. Signatures that
// crypto/ed25519 accepts are accepted, and only those; the Wycheproof vectors
// and a differential fuzz test against crypto/ed25519 hold the two together.
// It is never modified.
var stdlibRules = &voi.Options{Verify: voi.VerifyOptionsStdLib}

// Ed25519Public is an Ed25519 public key. The zero value means "no key".
type Ed25519Public [ed25519.PublicKeySize]byte

// ParseEd25519Public parses "ed25519:" + 44 base64 characters.
func ParseEd25519Public(s string) (Ed25519Public, error) {
	var k Ed25519Public
	if err := decodeFixed(k[:], s, Ed25519Prefix, "ed25519 public key"); err != nil {
		return Ed25519Public{}, err
	}
	return k, nil
}

// String gives the text form.
func (k Ed25519Public) String() string { return encodeFixed(Ed25519Prefix, k[:]) }

// AppendText implements encoding.TextAppender.
func (k Ed25519Public) AppendText(b []byte) ([]byte, error) {
	return appendText(b, Ed25519Prefix, k[:]), nil
}

// MarshalText implements encoding.TextMarshaler.
func (k Ed25519Public) MarshalText() ([]byte, error) { return k.AppendText(nil) }

// UnmarshalText implements encoding.TextUnmarshaler with ParseEd25519Public.
func (k *Ed25519Public) UnmarshalText(b []byte) error {
	p, err := ParseEd25519Public(string(b))
	if err != nil {
		return err
	}
	*k = p
	return nil
}

// Equal reports whether k and o are the same key, in constant time.
func (k Ed25519Public) Equal(o Ed25519Public) bool {
	return subtle.ConstantTimeCompare(k[:], o[:]) == 1
}

// IsZero reports whether k is the zero value.
func (k Ed25519Public) IsZero() bool { return k == Ed25519Public{} }

// Verify reports whether sig is k's valid signature of msg, by the rules of
// crypto/ed25519 (see stdlibRules). The arithmetic is curve25519-voi's,
// which on amd64 verifies in about 0.6 of the standard library's time.
func (k Ed25519Public) Verify(msg []byte, sig Signature) bool {
	return voi.VerifyWithOptions(k[:], msg, sig[:], stdlibRules)
}

// Ed25519Private is an Ed25519 private key, stored on disk as its 32-byte
// seed. The zero value is not usable.
type Ed25519Private struct {
	key ed25519.PrivateKey
}

// GenerateEd25519 makes a new key from rand.
func GenerateEd25519(rand io.Reader) (Ed25519Private, error) {
	seed := make([]byte, ed25519.SeedSize)
	if _, err := io.ReadFull(rand, seed); err != nil {
		return Ed25519Private{}, fmt.Errorf("generate ed25519 key: %w", err)
	}
	return Ed25519Private{ed25519.NewKeyFromSeed(seed)}, nil
}

// Ed25519FromSeed makes the key whose seed is seed (32 bytes).
func Ed25519FromSeed(seed []byte) (Ed25519Private, error) {
	if len(seed) != ed25519.SeedSize {
		return Ed25519Private{}, &ParseError{"ed25519 seed", ErrLength}
	}
	return Ed25519Private{ed25519.NewKeyFromSeed(seed)}, nil
}

// ParseEd25519Private parses the secret text form written by Secret.
func ParseEd25519Private(s string) (Ed25519Private, error) {
	var seed [ed25519.SeedSize]byte
	if err := decodeFixed(seed[:], s, Ed25519Prefix, "ed25519 private key"); err != nil {
		return Ed25519Private{}, err
	}
	return Ed25519FromSeed(seed[:])
}

// IsZero reports whether k holds no key.
func (k Ed25519Private) IsZero() bool { return k.key == nil }

// Public gives the public half.
func (k Ed25519Private) Public() Ed25519Public {
	var p Ed25519Public
	copy(p[:], k.key[ed25519.SeedSize:])
	return p
}

// Sign signs msg. Ed25519 signatures are deterministic (RFC 8032), so the
// result is byte for byte what crypto/ed25519 gives; curve25519-voi computes
// it in about 0.65 of the time.
func (k Ed25519Private) Sign(msg []byte) Signature {
	var s Signature
	copy(s[:], voi.Sign(voi.PrivateKey(k.key), msg))
	return s
}

// Seed returns a copy of the 32-byte seed.
func (k Ed25519Private) Seed() []byte { return append([]byte(nil), k.key.Seed()...) }

// Secret gives the seed's text form, for identity files only.
func (k Ed25519Private) Secret() string { return encodeFixed(Ed25519Prefix, k.key.Seed()) }

// Std returns the standard library form of the key.
func (k Ed25519Private) Std() ed25519.PrivateKey { return k.key }

// Equal reports whether k and o are the same key, in constant time.
func (k Ed25519Private) Equal(o Ed25519Private) bool {
	return len(k.key) == len(o.key) && subtle.ConstantTimeCompare(k.key, o.key) == 1
}

// String never reveals the key.
func (k Ed25519Private) String() string { return "ed25519:<private key redacted>" }

// GoString never reveals the key, even under %#v.
func (k Ed25519Private) GoString() string { return k.String() }

// LogValue keeps the key out of structured logs.
func (k Ed25519Private) LogValue() slog.Value { return slog.StringValue(k.String()) }
