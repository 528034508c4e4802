package gateway

import (
	"context"
	"crypto/tls"
	"time"

	"github.com/moltgate/moltgate/gateway/keyswitch"
	"github.com/moltgate/moltgate/gateway/roster"
	"github.com/moltgate/moltgate/identity"
)

// ReloadKeys takes up a new org key in keys/org.json, and a new TLS
// certificate in tls/, once the handover that announces each has reached
// the peers: pushed to each, or offered for PullEvery. A serving gateway
// does this by itself within seconds of moltgate key rotate or tls rotate,
// and Reload (SIGHUP) does it at once when the handover has been had.
//
// A key or certificate that no handover from the one in use names, or an
// org key with another name or encryption key, is not taken up: the error
// says why, and a restart takes it as it is.
func (s *Server) ReloadKeys(ctx context.Context) error { return s.keySwitch.Reload(ctx) }

// newKeySwitch wires the key switch (package keyswitch) to the rooms
// Open has built: the org key and TLS files of d, unlocked with
// passphrase, the handovers, the trust store, the revocation lists and
// the local agents.
func newKeySwitch(s *Server, d Dir, passphrase []byte, seen keyswitch.Seen) *keyswitch.Switch {
	return keyswitch.New(keyswitch.Config{
		Org: s.cfg.Org, OrgKeyPath: d.OrgKeyPath(), TLSCertPath: d.TLSCertPath(), TLS: s.cfg.TLSEnabled(),
		LoadOrg: func() (*identity.Agent, error) { return LoadOrg(d, passphrase) },
		LoadTLS: func() (tls.Certificate, string, error) { return loadTLSCert(d) },
		Certify: func(self *identity.Agent, now time.Time) (*identity.Cert, error) {
			return certifySelf(s, self, now)
		},
		HalfSpent:   roster.HalfSpent,
		ConfigError: func(key, msg string) error { return &ConfigError{Key: key, Msg: msg} },
		RetiredDir:  d.RetiredKeysDir(),
		Keys:        s.keys, Trust: s.trust, Handovers: s.rotation, Agents: s.roster, Revocations: s.revoked,
		Log: s.log, Now: s.now,
	}, seen)
}
