package keys

import (
	lru "github.com/hashicorp/golang-lru/v2"
	voi "github.com/oasisprotocol/curve25519-voi/primitives/ed25519"
)

// DefaultVerifierKeys is how many keys a Verifier keeps expanded unless told
// otherwise: about 1.5 KiB each, 6 MiB in all.
const DefaultVerifierKeys = 4096

// Verifier verifies Ed25519 signatures exactly as Ed25519Public.Verify does
// (the rules of crypto/ed25519), and keeps the keys it has seen sign
// validly in expanded form: the point decompressed and its table of
// multiples built. A gateway checks most messages against a few keys (its
// peers' gateways and agents), and an expanded key saves about an eighth
// of each verification. Keys enter the cache only with a valid signature,
// so a flood of forged messages under random keys cannot evict the keys in
// use. A nil *Verifier verifies without a cache. It is safe for concurrent
// use.
type Verifier struct {
	expanded *lru.Cache[Ed25519Public, *voi.ExpandedPublicKey]
}

// NewVerifier returns a Verifier that keeps up to n keys expanded
// (DefaultVerifierKeys when n <= 0).
func NewVerifier(n int) *Verifier {
	if n <= 0 {
		n = DefaultVerifierKeys
	}
	c, err := lru.New[Ed25519Public, *voi.ExpandedPublicKey](n)
	if err != nil {
		panic(err) // only for n <= 0
	}
	return &Verifier{expanded: c}
}

// Verify reports whether sig is k's valid signature of msg.
func (v *Verifier) Verify(k Ed25519Public, msg []byte, sig Signature) bool {
	if v == nil {
		return k.Verify(msg, sig)
	}
	if xk, ok := v.expanded.Get(k); ok {
		return voi.VerifyExpandedWithOptions(xk, msg, sig[:], stdlibRules)
	}
	xk, err := voi.NewExpandedPublicKey(k[:])
	if err != nil {
		// Not a point: crypto/ed25519 refuses every signature under it.
		return false
	}
	if !voi.VerifyExpandedWithOptions(xk, msg, sig[:], stdlibRules) {
		return false
	}
	v.expanded.Add(k, xk)
	return true
}

// Len returns how many keys are kept expanded.
func (v *Verifier) Len() int { return v.expanded.Len() }
