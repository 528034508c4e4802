package orgkey

import (
	"crypto/tls"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/moltgate/moltgate/crypto"
	"github.com/moltgate/moltgate/identity"
)

// Set is the organisation's own key material at one time. It is never
// changed once made: a new key or certificate is a new Set.
type Set struct {
	// Self is gateway@org: the org key and the gateway's X25519 key.
	Self *identity.Agent
	// Keys open what is sealed to the gateway: Self's X25519 key and,
	// during the overlap of a rotation of it, the key it replaced; what
	// the gateway and its agents seal goes out of the box of the key they
	// name as from.enc_key. Default (New): Self's key alone.
	Keys *crypto.Keyring
	// Cert is Self's identity certificate, issued by Self's org key,
	// presented in every handshake.
	Cert *identity.Cert
	// TLS is the certificate the faces present; nil with TLS off.
	TLS *tls.Certificate
	// TLSPin is TLS's pin ("sha256:…"); "" with TLS off.
	TLSPin string
}

// SetError is a Set that does not hold together.
type SetError struct{ Reason string }

func (e *SetError) Error() string { return "orgkey: " + e.Reason }

// check reports a Set whose certificate does not certify its identity:
// every handshake under it would fail.
func (s *Set) check() error {
	switch {
	case s.Self == nil || s.Self.Signing.IsZero() || s.Self.Encryption.IsZero():
		return &SetError{"the set has no org key"}
	case s.Keys == nil || !s.Keys.Current.Public().Equal(s.Self.Encryption.Public()):
		return &SetError{"the X25519 key in use is not the org key's"}
	case s.Cert == nil:
		return &SetError{"the set has no identity certificate"}
	case s.Cert.Ref() != s.Self.Ref || !s.Cert.Key.Equal(s.Self.Signing.Public()) || !s.Cert.EncKey.Equal(s.Self.Encryption.Public()):
		return &SetError{fmt.Sprintf("the identity certificate is not %s's under its org key", s.Self.Ref)}
	case s.TLS == nil && s.TLSPin != "", s.TLS != nil && s.TLSPin == "":
		return &SetError{"a TLS certificate goes with its pin"}
	}
	return nil
}

// Source is where the gateway's key material is read: one Set at a time.
// Readers never wait; writers (Update) are ordered among themselves.
type Source struct {
	p  atomic.Pointer[Set]
	mu sync.Mutex // orders Update
}

// New returns a Source holding set, or a *SetError.
func New(set Set) (*Source, error) {
	if set.Keys == nil && set.Self != nil && !set.Self.Encryption.IsZero() {
		set.Keys = crypto.NewKeyring(crypto.NewBox(set.Self.Encryption, 0))
	}
	if err := set.check(); err != nil {
		return nil, err
	}
	s := &Source{}
	s.p.Store(&set)
	return s, nil
}

// Load returns the Set in use now. It must not be changed.
func (s *Source) Load() *Set { return s.p.Load() }

// Current returns gateway@org as it signs now: a Source is an
// identity.Holder.
func (s *Source) Current() *identity.Agent { return s.p.Load().Self }

// Identity returns the identity and certificate in use now, read together:
// handshake.Config.GetSelf.
func (s *Source) Identity() (*identity.Agent, *identity.Cert) {
	set := s.p.Load()
	return set.Self, set.Cert
}

// Keyring returns the X25519 keys in use now: crypto.Opener.Keyring.
func (s *Source) Keyring() *crypto.Keyring { return s.p.Load().Keys }

// ErrNoTLS is GetCertificate's answer when the Set holds no TLS
// certificate.
var ErrNoTLS = errors.New("orgkey: no TLS certificate")

// GetCertificate returns the TLS certificate in use now, for each new
// connection: tls.Config.GetCertificate. Connections made before a
// rotation keep the certificate they were made with.
func (s *Source) GetCertificate(*tls.ClientHelloInfo) (*tls.Certificate, error) {
	if c := s.p.Load().TLS; c != nil {
		return c, nil
	}
	return nil, ErrNoTLS
}

// Update replaces the Set in use by what next makes of a copy of it, and
// returns the Set replaced. next runs with other Updates held off, so
// that two rotations do not lose one another; readers go on meanwhile
// under the Set they read. A Set that does not hold together is refused
// with a *SetError, and an error of next is returned as it is; either way
// nothing changes.
func (s *Source) Update(next func(cur Set) (Set, error)) (*Set, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	old := s.p.Load()
	set, err := next(*old)
	if err != nil {
		return nil, err
	}
	if err := set.check(); err != nil {
		return nil, err
	}
	s.p.Store(&set)
	return old, nil
}
