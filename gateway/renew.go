package gateway

import (
	"time"

	"github.com/moltgate/moltgate/gateway/roster"
	"github.com/moltgate/moltgate/identity"
)

// certifySelf issues self's identity certificate under self's own key,
// the org key, valid for security.cert_ttl; the key switch renews it
// (keyswitch.Switch.Renew) once half of that has passed.
func certifySelf(s *Server, self *identity.Agent, now time.Time) (*identity.Cert, error) {
	cert, err := roster.Issuer(self).IssueIdentity(self.Public(), now.Add(-time.Minute), now.Add(s.cfg.Security.CertTTL.D()))
	if err == nil {
		roster.LogIssued(s.log, cert, nil)
	}
	return cert, err
}
