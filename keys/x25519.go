package keys

import (
	"crypto/ecdh"
	"crypto/subtle"
	"fmt"
	"io"
	"log/slog"
)

// X25519Public is an X25519 public key. The zero value means "no key".
type X25519Public [32]byte

// lowOrder lists the encodings of the points of order 1, 2, 4 and 8 (and
// their non-canonical aliases), as in libsodium's has_small_order. The top bit
// is ignored by X25519, so it is ignored in the comparison too.
var lowOrder = [...][32]byte{
	{},
	{1},
	{0xe0, 0xeb, 0x7a, 0x7c, 0x3b, 0x41, 0xb8, 0xae, 0x16, 0x56, 0xe3, 0xfa, 0xf1, 0x9f, 0xc4, 0x6a, 0xda, 0x09, 0x8d, 0xeb, 0x9c, 0x32, 0xb1, 0xfd, 0x86, 0x62, 0x05, 0x16, 0x5f, 0x49, 0xb8, 0x00},
	{0x5f, 0x9c, 0x95, 0xbc, 0xa3, 0x50, 0x8c, 0x24, 0xb1, 0xd0, 0xb1, 0x55, 0x9c, 0x83, 0xef, 0x5b, 0x04, 0x44, 0x5c, 0xc4, 0x58, 0x1c, 0x8e, 0x86, 0xd8, 0x22, 0x4e, 0xdd, 0xd0, 0x9f, 0x11, 0x57},
	{0xec, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f},
	{0xed, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f},
	{0xee, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f},
}

// hasLowOrder reports whether k is one of the low-order encodings. Public
// keys are public, so the comparison need not be constant-time; the first
// byte rules out almost every key at once.
func hasLowOrder(k *[32]byte) bool {
	for i := range lowOrder {
		if k[0] != lowOrder[i][0] {
			continue
		}
		masked := *k
		masked[31] &= 0x7f
		if masked == lowOrder[i] {
			return true
		}
	}
	return false
}

// ParseX25519Public parses "x25519:" + 44 base64 characters and refuses keys
// of low order, whose shared secret would be predictable.
func ParseX25519Public(s string) (X25519Public, error) {
	var k X25519Public
	if err := decodeFixed(k[:], s, X25519Prefix, "x25519 public key"); err != nil {
		return X25519Public{}, err
	}
	if hasLowOrder((*[32]byte)(&k)) {
		return X25519Public{}, &ParseError{"x25519 public key", ErrLowOrder}
	}
	return k, nil
}

// X25519PublicFromBytes checks b as ParseX25519Public does.
func X25519PublicFromBytes(b []byte) (X25519Public, error) {
	var k X25519Public
	if len(b) != len(k) {
		return X25519Public{}, &ParseError{"x25519 public key", ErrLength}
	}
	copy(k[:], b)
	if hasLowOrder((*[32]byte)(&k)) {
		return X25519Public{}, &ParseError{"x25519 public key", ErrLowOrder}
	}
	return k, nil
}

// String gives the text form.
func (k X25519Public) String() string { return encodeFixed(X25519Prefix, k[:]) }

// AppendText implements encoding.TextAppender.
func (k X25519Public) AppendText(b []byte) ([]byte, error) {
	return appendText(b, X25519Prefix, k[:]), nil
}

// MarshalText implements encoding.TextMarshaler.
func (k X25519Public) MarshalText() ([]byte, error) { return k.AppendText(nil) }

// UnmarshalText implements encoding.TextUnmarshaler with ParseX25519Public.
func (k *X25519Public) UnmarshalText(b []byte) error {
	p, err := ParseX25519Public(string(b))
	if err != nil {
		return err
	}
	*k = p
	return nil
}

// Equal reports whether k and o are the same key, in constant time.
func (k X25519Public) Equal(o X25519Public) bool {
	return subtle.ConstantTimeCompare(k[:], o[:]) == 1
}

// IsZero reports whether k is the zero value.
func (k X25519Public) IsZero() bool { return k == X25519Public{} }

// X25519Private is an X25519 private key. It keeps the parsed
// *ecdh.PrivateKey so that each Diffie-Hellman costs one scalar
// multiplication. The zero value is not usable.
type X25519Private struct {
	key *ecdh.PrivateKey
}

// GenerateX25519 makes a new key from rand.
func GenerateX25519(rand io.Reader) (X25519Private, error) {
	var b [32]byte
	if _, err := io.ReadFull(rand, b[:]); err != nil {
		return X25519Private{}, fmt.Errorf("generate x25519 key: %w", err)
	}
	return X25519FromBytes(b[:])
}

// X25519FromBytes makes the key with the 32-byte scalar b.
func X25519FromBytes(b []byte) (X25519Private, error) {
	k, err := ecdh.X25519().NewPrivateKey(b)
	if err != nil {
		return X25519Private{}, &ParseError{"x25519 private key", ErrLength}
	}
	return X25519Private{k}, nil
}

// ParseX25519Private parses the secret text form written by Secret.
func ParseX25519Private(s string) (X25519Private, error) {
	var b [32]byte
	if err := decodeFixed(b[:], s, X25519Prefix, "x25519 private key"); err != nil {
		return X25519Private{}, err
	}
	return X25519FromBytes(b[:])
}

// IsZero reports whether k holds no key.
func (k X25519Private) IsZero() bool { return k.key == nil }

// Public gives the public half.
func (k X25519Private) Public() X25519Public {
	var p X25519Public
	copy(p[:], k.key.PublicKey().Bytes())
	return p
}

// ECDH computes the X25519 shared secret with peer. It fails if the result
// is all zeros, which only a low-order peer key can cause.
func (k X25519Private) ECDH(peer X25519Public) ([]byte, error) {
	pub, err := ecdh.X25519().NewPublicKey(peer[:])
	if err != nil {
		return nil, fmt.Errorf("x25519: %w", err)
	}
	s, err := k.key.ECDH(pub)
	if err != nil {
		return nil, fmt.Errorf("x25519: %w", ErrLowOrder)
	}
	return s, nil
}

// Secret gives the private key's text form, for identity files only.
func (k X25519Private) Secret() string { return encodeFixed(X25519Prefix, k.key.Bytes()) }

// Bytes returns a copy of the 32-byte scalar.
func (k X25519Private) Bytes() []byte { return k.key.Bytes() }

// Equal reports whether k and o are the same key, in constant time.
func (k X25519Private) Equal(o X25519Private) bool {
	if k.key == nil || o.key == nil {
		return k.key == o.key
	}
	return k.key.Equal(o.key)
}

// String never reveals the key.
func (k X25519Private) String() string { return "x25519:<private key redacted>" }

// GoString never reveals the key, even under %#v.
func (k X25519Private) GoString() string { return k.String() }

// LogValue keeps the key out of structured logs.
func (k X25519Private) LogValue() slog.Value { return slog.StringValue(k.String()) }
