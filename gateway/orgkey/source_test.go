package orgkey

import (
	"crypto/rand"
	"crypto/tls"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/moltgate/moltgate/crypto"
	"github.com/moltgate/moltgate/identity"
	"github.com/moltgate/moltgate/keys"
	"github.com/moltgate/moltgate/wire"
)

// setOf makes gateway@org under a new org key, and its certificate.
func setOf(t testing.TB, enc keys.X25519Private) Set {
	t.Helper()
	sk, err := keys.GenerateEd25519(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	if enc.IsZero() {
		if enc, err = keys.GenerateX25519(rand.Reader); err != nil {
			t.Fatal(err)
		}
	}
	self := &identity.Agent{Ref: wire.Ref{Agent: "gateway", Org: "globex"}, Signing: sk, Encryption: enc}
	now := time.Now()
	cert, err := (&identity.Org{Name: "globex", Signing: sk}).IssueIdentity(self.Public(), now.Add(-time.Minute), now.Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	return Set{Self: self, Cert: cert}
}

// Readers see one whole Set or the next, never a key with another's
// certificate, while Update replaces it.
func TestSourceSwapsWhole(t *testing.T) {
	first := setOf(t, keys.X25519Private{})
	src, err := New(first)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				id, cert := src.Identity()
				if !cert.Key.Equal(id.Signing.Public()) || src.Current() == nil {
					t.Error("a certificate read with another key")
					return
				}
			}
		}()
	}
	for range 50 {
		next := setOf(t, first.Self.Encryption)
		old, err := src.Update(func(cur Set) (Set, error) {
			cur.Self, cur.Cert = next.Self, next.Cert
			return cur, nil
		})
		if err != nil || old == nil {
			t.Fatal(err)
		}
	}
	close(stop)
	wg.Wait()
}

// A Set that does not hold together is refused, and nothing changes; so
// is an Update whose function fails.
func TestSourceRefusesBrokenSet(t *testing.T) {
	a, b := setOf(t, keys.X25519Private{}), setOf(t, keys.X25519Private{})
	if _, err := New(Set{Self: a.Self, Cert: b.Cert}); err == nil {
		t.Fatal("a certificate of another key was taken")
	}
	src, err := New(a)
	if err != nil {
		t.Fatal(err)
	}
	var se *SetError
	if _, err := src.Update(func(cur Set) (Set, error) { cur.Self = b.Self; return cur, nil }); !errors.As(err, &se) {
		t.Fatalf("a key without its certificate: %v", err)
	}
	if _, err := src.Update(func(cur Set) (Set, error) { cur.TLSPin = "sha256:x"; return cur, nil }); !errors.As(err, &se) {
		t.Fatalf("a pin without its certificate: %v", err)
	}
	boom := errors.New("boom")
	if _, err := src.Update(func(cur Set) (Set, error) { return cur, boom }); !errors.Is(err, boom) {
		t.Fatal(err)
	}
	if src.Current() != a.Self {
		t.Fatal("a refused Update changed the Set")
	}
	if _, err := src.GetCertificate(&tls.ClientHelloInfo{}); !errors.Is(err, ErrNoTLS) {
		t.Fatalf("no TLS: %v", err)
	}
}

// A new X25519 key is taken only with the keyring that opens what is
// sealed to it: one that still opens only the former key would refuse
// every envelope sealed to the key the certificate names.
func TestSourceKeyringGoesWithEncKey(t *testing.T) {
	a, b := setOf(t, keys.X25519Private{}), setOf(t, keys.X25519Private{})
	src, err := New(a)
	if err != nil {
		t.Fatal(err)
	}
	if k := src.Keyring(); k == nil || !k.Current.Public().Equal(a.Self.Encryption.Public()) || len(k.Formers) != 0 {
		t.Fatalf("New's keyring: %+v", k)
	}
	var se *SetError
	if _, err := src.Update(func(cur Set) (Set, error) { cur.Self, cur.Cert = b.Self, b.Cert; return cur, nil }); !errors.As(err, &se) {
		t.Fatalf("a new X25519 key with the former keyring: %v", err)
	}
	until := time.Now().Add(time.Hour)
	if _, err := src.Update(func(cur Set) (Set, error) {
		cur.Self, cur.Cert = b.Self, b.Cert
		cur.Keys = cur.Keys.Rotated(crypto.NewBox(b.Self.Encryption, 0), until)
		return cur, nil
	}); err != nil {
		t.Fatal(err)
	}
	k := src.Keyring()
	if !k.Current.Public().Equal(b.Self.Encryption.Public()) || len(k.Formers) != 1 || !k.Formers[0].Box.Public().Equal(a.Self.Encryption.Public()) || !k.Formers[0].Until.Equal(until) {
		t.Fatalf("the keyring after the rotation: %+v", k)
	}
}

func BenchmarkSourceCurrent(b *testing.B) {
	src, err := New(setOf(b, keys.X25519Private{}))
	if err != nil {
		b.Fatal(err)
	}
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if src.Current() == nil {
				b.Fatal("no identity")
			}
		}
	})
}
