package main

import (
	"crypto/rsa"
	"crypto/x509"
	"math/big"
)

// rsaKeyDER builds a 2048-bit RSA key from primes drawn from g's seeded source (crypto/rsa's
// generator reads its own randomness, so its keys could not be reproduced) and returns it in
// PKCS #1 form. The key is a real one: it is only test data, never used to protect anything.
func (g *gen) rsaKeyDER() []byte {
	e := big.NewInt(65537)
	one := big.NewInt(1)
	for {
		p, q := g.prime(1024), g.prime(1024)
		if p.Cmp(q) == 0 {
			continue
		}
		p1 := new(big.Int).Sub(p, one)
		q1 := new(big.Int).Sub(q, one)
		phi := new(big.Int).Mul(p1, q1)
		d := new(big.Int).ModInverse(e, phi)
		if d == nil {
			continue
		}
		k := &rsa.PrivateKey{PublicKey: rsa.PublicKey{N: new(big.Int).Mul(p, q), E: 65537}, D: d, Primes: []*big.Int{p, q}}
		k.Precompute()
		if k.Validate() != nil {
			continue
		}
		return x509.MarshalPKCS1PrivateKey(k)
	}
}

func (g *gen) prime(bits int) *big.Int {
	for {
		b := g.bytes(bits / 8)
		b[0] |= 0xc0
		b[len(b)-1] |= 1
		p := new(big.Int).SetBytes(b)
		if p.ProbablyPrime(20) {
			return p
		}
	}
}
