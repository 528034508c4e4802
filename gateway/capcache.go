package gateway

import (
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
// by the certificate's exact bytes and everything else the verification
// depended on (the sender, its key and the capability), and a hit is
// checked again for what changes: the time and whether the issuer is still
// trusted. The set is bounded; forgetting costs only a verification.
type capabilityCache struct {
	mu sync.Mutex
	c  *lru.Cache[string, capEntry]
}

type capEntry struct {
	org             string
	issuer          keys.Ed25519Public
	issued, expires int64 // unix ms
}

func newCapabilityCache(size int) *capabilityCache {
	c, _ := lru.New[string, capEntry](size)
	return &capabilityCache{c: c}
}

func capKey(cert wire.Value, from wire.Sender, capability string) string {
	b := wire.AppendCanonical(make([]byte, 0, 640), cert)
	b = append(b, 0)
	b = append(b, from.Ref().String()...)
	b = append(b, 0)
	b = append(b, from.Key.String()...)
	b = append(b, 0)
	b = append(b, capability...)
	return string(b)
}

// check is trust.VerifyCapability for the certificate cert carried by a
// message from from, answered from the cache when the same certificate
// verified before: a hit costs neither the parse nor the verification.
// The key holds the capability, so a hit was verified for it.
func (cc *capabilityCache) check(trust *identity.TrustStore, cert wire.Value, from wire.Sender, capability string, now time.Time) error {
	nowMS := now.UnixMilli()
	key := capKey(cert, from, capability)
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
