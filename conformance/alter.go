package conformance

import (
	"context"
	"fmt"
	"strings"

	"github.com/moltgate/moltgate/keys"
	"github.com/moltgate/moltgate/wire"
)

// alteration changes one member of a message object.
type alteration struct {
	path string
	// to gives the member's new value from the message object.
	to func(s *suite, t wire.Value) wire.Value
}

// inTransit applies a to signed bytes, leaving the signature as it was:
// what an attacker on the path can do.
func (s *suite) inTransit(a alteration) func([]byte) []byte {
	return func(b []byte) []byte {
		t := parseTree(b)
		return wire.AppendCanonical(nil, set(t, a.path, a.to(s, t)))
	}
}

// flipBit flips one bit in the middle of the bytes of a "prefix:base64"
// string member: a signature, a nonce, a challenge.
func flipBit(path string) alteration {
	return alteration{path, func(_ *suite, t wire.Value) wire.Value {
		str, _ := get(t, path).Str()
		prefix, b64, _ := strings.Cut(str, ":")
		b, err := keys.DecodeBytes("base64:"+b64, 1<<20)
		if err != nil || len(b) == 0 {
			panic(fmt.Sprintf("conformance: %s is not prefix:base64: %q", path, str))
		}
		b[len(b)/2] ^= 0x10
		return wire.StringValue(prefix + ":" + strings.TrimPrefix(keys.EncodeBytes(b), "base64:"))
	}}
}

// newString replaces a string member.
func newString(path, v string) alteration {
	return alteration{path, func(*suite, wire.Value) wire.Value { return wire.StringValue(v) }}
}

// otherEd25519 replaces a member with a fresh Ed25519 public key.
func otherEd25519(path string) alteration {
	return alteration{path, func(s *suite, _ wire.Value) wire.Value {
		k, err := keys.GenerateEd25519(s.cfg.Rand)
		if err != nil {
			panic(err)
		}
		return wire.StringValue(k.Public().String())
	}}
}

// otherX25519 replaces a member with a fresh X25519 public key.
func otherX25519(path string) alteration {
	return alteration{path, func(s *suite, _ wire.Value) wire.Value {
		k, err := keys.GenerateX25519(s.cfg.Rand)
		if err != nil {
			panic(err)
		}
		return wire.StringValue(k.Public().String())
	}}
}

// plusOne adds one to an integer member.
func plusOne(path string) alteration {
	return alteration{path, func(_ *suite, t wire.Value) wire.Value {
		n, ok := get(t, path).Int()
		if !ok {
			panic(fmt.Sprintf("conformance: %s is not an integer", path))
		}
		return wire.IntValue(n + 1)
	}}
}

// otherID replaces a member with a fresh message id.
func otherID(path string) alteration {
	return alteration{path, func(s *suite, _ wire.Value) wire.Value { return wire.StringValue(s.newID()) }}
}

// appendString appends an element to an array member.
func appendString(path, v string) alteration {
	return alteration{path, func(_ *suite, t wire.Value) wire.Value {
		var elems []wire.Value
		for _, m := range get(t, path).Elems() {
			elems = append(elems, m.Value)
		}
		return wire.ArrayValue(append(elems, wire.StringValue(v))...)
	}}
}

// dropLast removes an array member's last element: an offer stripped.
func dropLast(path string) alteration {
	return alteration{path, func(_ *suite, t wire.Value) wire.Value {
		var elems []wire.Value
		for _, m := range get(t, path).Elems() {
			elems = append(elems, m.Value)
		}
		return wire.ArrayValue(elems[:len(elems)-1]...)
	}}
}

// replaceGrease gives the extensions a GREASE name of other digits.
func replaceGrease(path string) alteration {
	return alteration{path, func(_ *suite, t wire.Value) wire.Value {
		var elems []wire.Value
		for _, m := range get(t, path).Elems() {
			if str, _ := m.Value.Str(); strings.HasPrefix(str, "grease-") {
				m.Value = wire.StringValue("grease-" + strings.Map(func(r rune) rune {
					if r == 'f' {
						return '0'
					}
					return 'f'
				}, str[len("grease-"):]))
			}
			elems = append(elems, m.Value)
		}
		return wire.ArrayValue(elems...)
	}}
}

// certExpiresPlusOne changes a certificate's expiry, which its signature
// covers.
func certExpiresPlusOne(path string) alteration {
	return alteration{path, func(_ *suite, t wire.Value) wire.Value {
		c := get(t, path)
		n, _ := c.Get("expires").Int()
		return c.With("expires", wire.IntValue(n+1))
	}}
}

// addMember adds an unknown top-level member, which the signature covers.
func addMember(key string) alteration {
	return alteration{key, func(*suite, wire.Value) wire.Value { return wire.StringValue("added in transit") }}
}

// field is one member of a message to alter, with the refusals the
// protocol allows: E_SIGNATURE, or the code of the member's own rule where
// it has one and the gateway may check it first.
type field struct {
	name string
	alt  alteration
	want []wire.Code
}

var (
	sigOnly     = []wire.Code{wire.ErrSignature}
	sigOrAuth   = []wire.Code{wire.ErrSignature, wire.ErrAuthFailed}
	authOnly    = []wire.Code{wire.ErrAuthFailed}
	replayOnly  = []wire.Code{wire.ErrReplay}
	versionOnly = []wire.Code{wire.ErrVersion}
)

// withControl runs the genuine form after an altered one was refused, and
// says both.
func withControl(ctx context.Context, detail string, err error, control func(ctx context.Context) error) (string, error) {
	if err != nil {
		return "", err
	}
	if err := control(ctx); err != nil {
		return "", fmt.Errorf("%s, but the control failed: %w", detail, err)
	}
	return detail + "; genuine form served", nil
}
