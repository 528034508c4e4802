package pipeline

import (
	"crypto/sha256"
	"sync"
	"time"

	lru "github.com/hashicorp/golang-lru/v2"

	"github.com/moltgate/moltgate/identity"
	"github.com/moltgate/moltgate/keys"
	"github.com/moltgate/moltgate/wire"
)

// capabilityCache remembers capability certificates whose signature
// verified, so that a peer agent's every call does not verify its org's
// signature on the same certificate again: that was one Ed25519
// verification per tool call besides the message's own. An entry is keyed
// by the SHA-256 of the certificate's exact bytes and everything else the
// verification depended on (the sender, its key and the capability), and a hit is
// checked again for what changes: the time and whether the issuer is still
// trusted. The set is bounded; forgetting costs only a verification.
type capabilityCache struct {
	mu   sync.Mutex
	c    *lru.Cache[[sha256.Size]byte, capEntry]
	bufs sync.Pool // *[]byte: the bytes a key is hashed from
}

type capEntry struct {
	org             string
	issuer          keys.Ed25519Public
	issued, expires int64 // unix ms
}

func newCapabilityCache(size int) *capabilityCache {
	c, _ := lru.New[[sha256.Size]byte, capEntry](size)
	return &capabilityCache{c: c}
}

// key hashes what a verification depended on. The fields are separated by
// NUL, which none but the last can hold (canonical JSON escapes control
// characters; names and a key's text are printable), so different inputs
// give different bytes; the hash is collision-resistant, so they do not
// give the same key.
func (cc *capabilityCache) key(cert wire.Value, from wire.Sender, capability string) [sha256.Size]byte {
	bp, _ := cc.bufs.Get().(*[]byte)
	if bp == nil {
		bp = new([]byte)
	}
	b := wire.AppendCanonical((*bp)[:0], cert)
	b = append(b, 0)
	b = append(b, from.Agent...)
	b = append(b, '@')
	b = append(b, from.Org...)
	b = append(b, 0)
	b, _ = from.Key.AppendText(b)
	b = append(b, 0)
	b = append(b, capability...)
	sum := sha256.Sum256(b)
	if cap(b) <= 16<<10 {
		*bp = b
		cc.bufs.Put(bp)
	}
	return sum
}

// check is trust.VerifyCapability for the certificate cert carried by a
// message from from, answered from the cache when the same certificate
// verified before: a hit costs neither the parse nor the verification.
// The key holds the capability, so a hit was verified for it.
func (cc *capabilityCache) check(trust *identity.TrustStore, cert wire.Value, from wire.Sender, capability string, now time.Time) error {
	nowMS := now.UnixMilli()
	key := cc.key(cert, from, capability)
	cc.mu.Lock()
	e, ok := cc.c.Get(key)
	cc.mu.Unlock()
	if ok && e.issued <= nowMS && nowMS < e.expires && trust.Trusts(e.org, e.issuer) {
		return nil
	}
	c, err := identity.ParseCapabilityCert(cert)
	if err != nil {
		return err
	}
	if err := trust.VerifyCapability(c, from.Ref(), from.Key, capability, now); err != nil {
		return err
	}
	a := &c.Attestation
	cc.mu.Lock()
	cc.c.Add(key, capEntry{org: c.Org, issuer: a.Issuer, issued: a.IssuedAt, expires: a.Expires})
	cc.mu.Unlock()
	return nil
}
