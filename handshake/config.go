package handshake

import (
	"crypto/rand"
	"io"
	"sync"
	"time"

	"github.com/moltgate/moltgate/handshake/replay"
	"github.com/moltgate/moltgate/identity"
	"github.com/moltgate/moltgate/keys"
	"github.com/moltgate/moltgate/wire"
)

// Defaults of Config.
const (
	DefaultTimeout         = 10 * time.Second
	DefaultSessionLifetime = time.Hour
	DefaultMaxPending      = 1024
)

// Config configures both sides of handshakes and the sessions they make. A
// Config may be shared by any number of concurrent handshakes; it must not
// be modified once in use.
type Config struct {
	// Identity is this side's agent: its name, signing key and encryption
	// key. Required.
	Identity *identity.Agent
	// Cert is Identity's certificate from its org, sent in every hello so
	// that the peer can verify it. Default none: peers then hold this side
	// at trust level 1.
	Cert *identity.Cert
	// GetCert, if set, returns the certificate to send in each hello, in
	// place of Cert: a side that runs for longer than its certificate is
	// valid renews it without a new Config. A certificate that does not
	// certify Identity fails the handshake. Default nil: Cert.
	GetCert func() *identity.Cert
	// GetSelf, if set, returns the identity and certificate a handshake
	// runs under, in place of Identity and Cert (or GetCert): each
	// handshake reads it once, at its start, and the session it makes
	// keeps that identity (Session.Self). A side whose key changes while
	// it runs (an organisation's key rotation) makes new sessions under
	// the new key while those made before go on under the old. Default
	// nil: Identity.
	GetSelf func() (*identity.Agent, *identity.Cert)
	// Trust holds the orgs whose identity certificates this side accepts.
	// Default none: every peer stays at level 1.
	Trust *identity.TrustStore
	// Pins, if set, holds keys pinned for peers named "agent@org"; a peer
	// that presents another key is refused. *keys.PinStore is one. Default
	// none.
	Pins KeyChecker
	// Codec decodes and encodes messages. Default wire.NewCodec with the
	// default limits.
	Codec *wire.Codec
	// Versions lists the protocol versions offered, as "major.minor".
	// Default []string{wire.Version}.
	Versions []string
	// Capabilities lists the capabilities offered. Default none.
	Capabilities []string
	// Extensions lists the extensions understood (at most 63). Default
	// none. Every hello also carries one random unknown extension.
	Extensions []string
	// Classes lists the classifications this side accepts in sessions.
	// Default all five.
	Classes []wire.Class
	// MaxMessageSize is the largest message this side accepts, announced
	// in its hello. Default the codec's MaxMessage (1 MiB).
	MaxMessageSize int64
	// Timeout bounds a whole handshake, from its first message to its last.
	// Default 10 s.
	Timeout time.Duration
	// SessionLifetime bounds how long a session lasts. A session also ends
	// when the peer's identity certificate does. Default 1 h.
	SessionLifetime time.Duration
	// MaxSessionBytes bounds the message bytes one session carries, both
	// directions together. Default the codec's MaxSession (100 MiB).
	MaxSessionBytes int64
	// MaxPending bounds the handshakes an Acceptor holds between messages;
	// the oldest is dropped when it is full. Default 1024.
	MaxPending int
	// Replay checks the timestamps and ids of handshake messages and issues
	// their challenges. Share the gateway's Window, so that a message seen
	// on any face is refused on every other. Default a Window private to
	// this Config, with Rand and Now.
	Replay *replay.Window
	// Verifier checks the signatures of messages in sessions, keeping the
	// keys it has seen sign expanded. Share the gateway's. Default one
	// private to this Config, of keys.DefaultVerifierKeys keys.
	Verifier *keys.Verifier
	// Rand is the source of ephemeral keys, nonces, challenges and ids.
	// Default crypto/rand.Reader. It must be safe for concurrent use if the
	// Config is shared.
	Rand io.Reader
	// Now is the clock. Default time.Now.
	Now func() time.Time

	once      sync.Once
	defCodec  *wire.Codec
	defReplay *replay.Window
	defVerify *keys.Verifier
	certValue wire.Value
	envOnce   sync.Once
	env       *sessionEnv
}

// KeyChecker reports whether key is the key known for name ("agent@org"). It
// returns an error wrapping keys.ErrNotPinned when it knows no key for name.
type KeyChecker interface {
	Check(name string, key keys.Ed25519Public) error
}

func (c *Config) init() {
	c.once.Do(func() {
		if c.Codec == nil {
			c.defCodec = wire.NewCodec(wire.Limits{})
		}
		if c.Replay == nil {
			c.defReplay = replay.New(replay.Config{Rand: c.Rand, Now: c.Now})
		}
		if c.Verifier == nil {
			c.defVerify = keys.NewVerifier(0)
		}
		if c.Cert != nil {
			c.certValue = c.Cert.Value()
		}
	})
}

func (c *Config) verifier() *keys.Verifier {
	if c.Verifier != nil {
		return c.Verifier
	}
	c.init()
	return c.defVerify
}

func (c *Config) codec() *wire.Codec {
	if c.Codec != nil {
		return c.Codec
	}
	c.init()
	return c.defCodec
}

func (c *Config) replay() *replay.Window {
	if c.Replay != nil {
		return c.Replay
	}
	c.init()
	return c.defReplay
}

func (c *Config) rand() io.Reader {
	if c.Rand != nil {
		return c.Rand
	}
	return rand.Reader
}

func (c *Config) now() time.Time {
	if c.Now != nil {
		return c.Now()
	}
	return time.Now()
}

func (c *Config) versions() []string {
	if len(c.Versions) > 0 {
		return c.Versions
	}
	return []string{wire.Version}
}

func (c *Config) classes() []wire.Class {
	if len(c.Classes) > 0 {
		return c.Classes
	}
	return wire.Classes()
}

func (c *Config) maxMessageSize() int64 {
	if c.MaxMessageSize > 0 {
		return c.MaxMessageSize
	}
	return int64(c.codec().Limits().MaxMessage)
}

func (c *Config) timeout() time.Duration {
	if c.Timeout > 0 {
		return c.Timeout
	}
	return DefaultTimeout
}

func (c *Config) lifetime() time.Duration {
	if c.SessionLifetime > 0 {
		return c.SessionLifetime
	}
	return DefaultSessionLifetime
}

func (c *Config) maxSessionBytes() int64 {
	if c.MaxSessionBytes > 0 {
		return c.MaxSessionBytes
	}
	return c.codec().Limits().MaxSession
}

func (c *Config) maxPending() int {
	if c.MaxPending > 0 {
		return c.MaxPending
	}
	return DefaultMaxPending
}

// self is this side as one handshake sees it: the identity it runs
// under and the certificate its hello presents, read once at its start.
type self struct {
	id   *identity.Agent
	cert wire.Value
}

// self reads the identity and certificate a handshake starting now runs
// under.
func (c *Config) self() (self, error) {
	if c.GetSelf != nil {
		id, cert := c.GetSelf()
		me := self{id: id}
		if id == nil {
			return me, errConfig("GetSelf returned no identity")
		}
		if cert != nil {
			if !certifies(cert, id) {
				return me, errConfig("GetSelf returned a certificate that does not certify its identity")
			}
			me.cert = cert.Value()
		}
		return me, nil
	}
	me := self{id: c.Identity}
	if c.GetCert != nil {
		if cert := c.GetCert(); cert != nil {
			if c.Identity != nil && !certifies(cert, c.Identity) {
				return me, errConfig("GetCert returned a certificate that does not certify Identity")
			}
			me.cert = cert.Value()
		}
	} else if c.Cert != nil {
		c.init()
		me.cert = c.certValue
	}
	return me, nil
}

// check reports a Config that cannot run a handshake as me.
func (c *Config) check(me self) error {
	switch {
	case me.id == nil || me.id.Signing.IsZero() || me.id.Encryption.IsZero():
		return errConfig("Identity with signing and encryption keys is required")
	case !wire.ValidName(me.id.Ref.Agent) || !wire.ValidName(me.id.Ref.Org):
		return errConfig("Identity has an invalid name")
	case len(c.Extensions) > 63:
		return errConfig("at most 63 Extensions")
	case c.GetSelf == nil && c.Cert != nil && !certifies(c.Cert, me.id):
		return errConfig("Cert does not certify Identity")
	}
	for _, cl := range c.classes() {
		if !cl.Valid() {
			return errConfig("invalid class in Classes")
		}
	}
	for _, v := range c.versions() {
		if _, ok := parseVersion(v); !ok {
			return errConfig("Versions must be major.minor")
		}
	}
	return nil
}

// certifies reports whether cert is a certificate of id: its name and keys.
func certifies(cert *identity.Cert, id *identity.Agent) bool {
	return cert.Ref() == id.Ref && cert.Key.Equal(id.Signing.Public()) && cert.EncKey.Equal(id.Encryption.Public())
}
