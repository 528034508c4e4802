package crypto

import (
	"crypto/rand"
	"errors"
	"fmt"
	"io"

	lru "github.com/hashicorp/golang-lru/v2"
	"golang.org/x/crypto/nacl/box"
	"golang.org/x/crypto/salsa20/salsa"

	"github.com/moltgate/moltgate/keys"
	"github.com/moltgate/moltgate/wire"
)

// DefaultSharedKeyCache is the number of peers whose shared keys a Box
// remembers by default.
const DefaultSharedKeyCache = 4096

// Box seals and opens NaCl boxes for one X25519 private key. It remembers
// the shared key of each recent peer, so repeated traffic with a peer costs
// no scalar multiplication. It is safe for concurrent use.
type Box struct {
	priv  keys.X25519Private
	pub   keys.X25519Public
	cache *lru.Cache[keys.X25519Public, *[32]byte]
}

// NewBox makes a Box for priv that caches up to cacheSize shared keys
// (0 means DefaultSharedKeyCache).
func NewBox(priv keys.X25519Private, cacheSize int) *Box {
	if cacheSize <= 0 {
		cacheSize = DefaultSharedKeyCache
	}
	c, _ := lru.New[keys.X25519Public, *[32]byte](cacheSize)
	return &Box{priv: priv, pub: priv.Public(), cache: c}
}

// Public returns the Box's public key.
func (b *Box) Public() keys.X25519Public { return b.pub }

var zeros16 [16]byte

// SharedKey returns the NaCl box key shared with peer: HSalsa20 of the
// X25519 shared secret, as box.Precompute computes it, but from the cached
// *ecdh.PrivateKey so that it costs one scalar multiplication.
func (b *Box) SharedKey(peer keys.X25519Public) (*[32]byte, error) {
	if k, ok := b.cache.Get(peer); ok {
		return k, nil
	}
	s, err := b.priv.ECDH(peer)
	if err != nil {
		return nil, err
	}
	k := new([32]byte)
	copy(k[:], s)
	clear(s)
	salsa.HSalsa20(k, &zeros16, k, &salsa.Sigma)
	b.cache.Add(peer, k)
	return k, nil
}

// SealTo encrypts plaintext for peer under nonce and appends the box to dst.
func (b *Box) SealTo(dst, plaintext []byte, nonce *[24]byte, peer keys.X25519Public) ([]byte, error) {
	k, err := b.SharedKey(peer)
	if err != nil {
		return nil, fmt.Errorf("seal: %w", err)
	}
	return box.SealAfterPrecomputation(dst, plaintext, nonce, k), nil
}

// OpenFrom decrypts a box from peer and appends the plaintext to dst.
func (b *Box) OpenFrom(dst, sealed []byte, nonce *[24]byte, peer keys.X25519Public) ([]byte, error) {
	k, err := b.SharedKey(peer)
	if err != nil {
		return nil, fmt.Errorf("open: %w", err)
	}
	out, ok := box.OpenAfterPrecomputation(dst, sealed, nonce, k)
	if !ok {
		return nil, errors.New("open: authentication failed")
	}
	return out, nil
}

// Seal encrypts signed message bytes for peer and returns the sealed
// envelope. rand supplies the nonce; nil means crypto/rand.
func (b *Box) Seal(signed []byte, peer keys.X25519Public, rnd io.Reader) ([]byte, error) {
	if rnd == nil {
		rnd = rand.Reader
	}
	var nonce [24]byte
	if _, err := io.ReadFull(rnd, nonce[:]); err != nil {
		return nil, fmt.Errorf("seal: read nonce: %w", err)
	}
	return b.SealWithNonce(signed, peer, &nonce)
}

// SealWithNonce is Seal with a given nonce. A nonce must never be used twice
// with the same pair of keys; it exists for known-answer tests.
func (b *Box) SealWithNonce(signed []byte, peer keys.X25519Public, nonce *[24]byte) ([]byte, error) {
	ct, err := b.SealTo(make([]byte, 0, len(signed)+wire.BoxOverhead), signed, nonce, peer)
	if err != nil {
		return nil, err
	}
	return wire.AppendSealed(make([]byte, 0, len(ct)*4/3+200), b.pub, nonce[:], ct), nil
}

// Forget drops and zeroes the shared keys b remembers, once b's key is
// no longer to open anything: a shared key opens what its peer sealed as
// well as the private key does. The private key itself is an
// *ecdh.PrivateKey, which cannot be zeroed; dropping the last reference
// to b is what remains. Forget must not run while b opens or seals.
func (b *Box) Forget() {
	for _, peer := range b.cache.Keys() {
		if k, ok := b.cache.Peek(peer); ok {
			clear(k[:])
		}
	}
	b.cache.Purge()
}
