package keys

import (
	"bytes"
	"crypto/ed25519"
	cryptorand "crypto/rand"
	"crypto/sha512"
	"encoding/hex"
	"fmt"
	"math/big"
	"math/rand/v2"
	"testing"
)

// Signing and verification use curve25519-voi's arithmetic with the rules of
// crypto/ed25519. These tests hold the two to the same answers: signatures
// byte for byte, and verification on the inputs where Ed25519
// implementations are known to disagree (small-order and non-canonical
// points, non-canonical scalars), besides the Wycheproof vectors.

func TestSignMatchesStdlib(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 300 {
		seed := make([]byte, ed25519.SeedSize)
		fill(r, seed)
		msg := make([]byte, r.IntN(3000))
		fill(r, msg)
		k, err := Ed25519FromSeed(seed)
		if err != nil {
			t.Fatal(err)
		}
		got := k.Sign(msg)
		want := ed25519.Sign(ed25519.NewKeyFromSeed(seed), msg)
		if !bytes.Equal(got[:], want) {
			t.Fatalf("message %d: signature differs from crypto/ed25519", i)
		}
		if !k.Public().Verify(msg, got) {
			t.Fatalf("message %d: own signature refused", i)
		}
	}
}

// edgePoints are encodings that Ed25519 verifiers treat differently: the
// eight small-order points, non-canonical encodings (y ≥ p, or x = 0 with
// the sign bit set), and a point not on the curve.
var edgePoints = []string{
	"0100000000000000000000000000000000000000000000000000000000000000", // identity
	"ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f", // order 2
	"0000000000000000000000000000000000000000000000000000000000000000", // order 4
	"0000000000000000000000000000000000000000000000000000000000000080", // order 4
	"c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a", // order 8
	"c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac03fa", // order 8
	"26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05", // order 8
	"26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc85", // order 8
	"0100000000000000000000000000000000000000000000000000000000000080", // identity, x sign set
	"eeffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f", // y = p+1
	"edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f", // y = p
	"ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff", // order 2, sign set
	"0200000000000000000000000000000000000000000000000000000000000000", // not on the curve
}

// groupOrder is ℓ, the order of the prime-order subgroup.
var groupOrder, _ = new(big.Int).SetString("7237005577332262213973186563042994240857116359379907606001950938285454250989", 10)

// scalarOf returns the secret scalar of seed, reduced mod ℓ, as 32
// little-endian bytes: with R = the public key of seed, (R, S) is a valid
// signature of any message under the identity as public key.
func scalarOf(seed []byte) []byte {
	h := sha512.Sum512(seed)
	h[0] &= 248
	h[31] &= 127
	h[31] |= 64
	a := new(big.Int).SetBytes(reverse(h[:32]))
	a.Mod(a, groupOrder)
	out := make([]byte, 32)
	copy(out, reverse(a.FillBytes(make([]byte, 32))))
	return out
}

func reverse(b []byte) []byte {
	out := make([]byte, len(b))
	for i := range b {
		out[len(b)-1-i] = b[i]
	}
	return out
}

// plusOrder returns S + ℓ as 32 little-endian bytes: the same scalar, not
// canonically encoded, which crypto/ed25519 refuses.
func plusOrder(s []byte) []byte {
	v := new(big.Int).SetBytes(reverse(s))
	v.Add(v, groupOrder)
	return reverse(v.FillBytes(make([]byte, 32)))
}

// edgeCases builds (public key, message, signature) triples from the edge
// points: valid signatures under small-order keys, signatures whose R is
// an edge point, and the same with S not canonical.
func edgeCases(t testing.TB) [][3][]byte {
	var cases [][3][]byte
	seed := bytes.Repeat([]byte{7}, 32)
	std := ed25519.NewKeyFromSeed(seed)
	R := std[32:]
	S := scalarOf(seed)
	for i, ph := range edgePoints {
		p, err := hex.DecodeString(ph)
		if err != nil {
			t.Fatal(err)
		}
		for j := range 4 {
			msg := fmt.Appendf(nil, "edge %d message %d", i, j)
			// A small-order or odd key with a signature that is valid when
			// [k]A is the identity.
			cases = append(cases,
				[3][]byte{p, msg, concat(R, S)},
				[3][]byte{p, msg, concat(R, plusOrder(S))},
				// An edge point as R, S = 0: valid when R = -[k]A.
				[3][]byte{p, msg, concat(p, make([]byte, 32))},
				// A real key with an edge point as R.
				[3][]byte{std[32:], msg, concat(p, S)},
			)
		}
		// A real signature, and the same with S + ℓ.
		msg := fmt.Appendf(nil, "edge %d", i)
		sig := ed25519.Sign(std, msg)
		cases = append(cases,
			[3][]byte{std[32:], msg, sig},
			[3][]byte{std[32:], msg, concat(sig[:32], plusOrder(sig[32:]))},
		)
	}
	return cases
}

func concat(a, b []byte) []byte { return append(append([]byte(nil), a...), b...) }

func TestVerifyMatchesStdlibOnEdgeCases(t *testing.T) {
	accepted := 0
	v := NewVerifier(0)
	for i, c := range edgeCases(t) {
		got, want := verifyBoth(c[0], c[1], c[2])
		if got != want {
			t.Errorf("case %d (key %x, sig %x): Verify = %v, crypto/ed25519 says %v", i, c[0], c[2], got, want)
		}
		// Twice through a Verifier: with the key new, then (if it signed
		// validly before) expanded from its cache.
		for round := range 2 {
			if got := verifyCached(v, c[0], c[1], c[2]); got != want {
				t.Errorf("case %d (key %x, sig %x), Verifier round %d: %v, crypto/ed25519 says %v", i, c[0], c[2], round, got, want)
			}
		}
		if want {
			accepted++
		}
	}
	// The cases must include accepted ones, or they test only refusal.
	if accepted < 20 {
		t.Fatalf("only %d edge cases are valid signatures; the construction is wrong", accepted)
	}
}

func verifyBoth(pub, msg, sig []byte) (got, want bool) {
	var k Ed25519Public
	var s Signature
	copy(k[:], pub)
	copy(s[:], sig)
	return k.Verify(msg, s), ed25519.Verify(pub, msg, sig)
}

func verifyCached(v *Verifier, pub, msg, sig []byte) bool {
	var k Ed25519Public
	var s Signature
	copy(k[:], pub)
	copy(s[:], sig)
	return v.Verify(k, msg, s)
}

func FuzzVerifyMatchesStdlib(f *testing.F) {
	for _, c := range edgeCases(f) {
		f.Add(c[0], c[1], c[2])
	}
	v := NewVerifier(64)
	f.Fuzz(func(t *testing.T, pub, msg, sig []byte) {
		if len(pub) != ed25519.PublicKeySize || len(sig) != ed25519.SignatureSize {
			return
		}
		got, want := verifyBoth(pub, msg, sig)
		if got != want {
			t.Fatalf("Verify = %v, crypto/ed25519 says %v", got, want)
		}
		// The key may be expanded in v's cache from an earlier input.
		if got := verifyCached(v, pub, msg, sig); got != want {
			t.Fatalf("Verifier.Verify = %v, crypto/ed25519 says %v", got, want)
		}
	})
}

func fill(r *rand.Rand, b []byte) {
	for i := range b {
		b[i] = byte(r.Uint32())
	}
}

// TestVerifierCachesOnlyValidSigners: forged signatures under fresh keys
// leave the cache as it was; a valid one adds its key.
func TestVerifierCachesOnlyValidSigners(t *testing.T) {
	v := NewVerifier(8)
	r := rand.New(rand.NewPCG(1, 2))
	msg := []byte("a message")
	for range 100 {
		sk, err := GenerateEd25519(cryptorand.Reader)
		if err != nil {
			t.Fatal(err)
		}
		var forged Signature
		fill(r, forged[:])
		if v.Verify(sk.Public(), msg, forged) {
			t.Fatal("a random signature verifies")
		}
	}
	if v.Len() != 0 {
		t.Fatalf("%d keys cached from forged signatures", v.Len())
	}
	sk, _ := GenerateEd25519(cryptorand.Reader)
	sig := sk.Sign(msg)
	if !v.Verify(sk.Public(), msg, sig) || v.Len() != 1 {
		t.Fatalf("valid signature: cached %d", v.Len())
	}
	if v.Verify(sk.Public(), []byte("another message"), sig) {
		t.Fatal("a cached key verifies a signature of another message")
	}
	var nilV *Verifier
	if !nilV.Verify(sk.Public(), msg, sig) {
		t.Fatal("a nil Verifier refuses a valid signature")
	}
}
