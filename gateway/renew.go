package gateway

import (
	"context"
	"time"

	"github.com/moltgate/moltgate/gateway/orgkey"
	"github.com/moltgate/moltgate/gateway/roster"
	"github.com/moltgate/moltgate/identity"
)

// The certificates the gateway issues for itself and its agents are valid
// for security.cert_ttl (30 days by default). A gateway serves for longer
// than that, so they are issued again once half of their time has passed
// (roster.HalfSpent).

// renewCheckEvery bounds how often the renewal loop looks at the
// certificates; it looks more often when cert_ttl is short.
const renewCheckEvery = time.Hour

// renewEvery is how often the renewal loop runs for a certificate
// lifetime of ttl: often enough to renew within a tenth of it.
func renewEvery(ttl time.Duration) time.Duration {
	return max(min(ttl/10, renewCheckEvery), time.Second)
}

// certifyGateway issues the gateway's own identity certificate again,
// under the org key in use.
func (s *Server) certifyGateway(now time.Time) error {
	_, err := s.keys.Update(func(set orgkey.Set) (orgkey.Set, error) {
		cert, err := s.certifySelf(set.Self, now)
		set.Cert = cert
		return set, err
	})
	return err
}

// certifySelf issues self's identity certificate under self's own key,
// the org key.
func (s *Server) certifySelf(self *identity.Agent, now time.Time) (*identity.Cert, error) {
	cert, err := roster.Issuer(self).IssueIdentity(self.Public(), now.Add(-time.Minute), now.Add(s.cfg.Security.CertTTL.D()))
	if err == nil {
		roster.LogIssued(s.log, cert, nil)
	}
	return cert, err
}

// renewCerts issues again every certificate that is half spent: the
// gateway's own, which the next handshakes present, and each local agent's
// identity and capability certificates, which its next messages carry and
// its directory entry is published with. Sessions made under the old
// certificate keep it until they end.
func (s *Server) renewCerts(ctx context.Context) {
	now := s.now()
	if c := s.keys.Load().Cert; roster.HalfSpent(c.IssuedAt, c.Expires, now) {
		if err := s.certifyGateway(now); err != nil {
			s.log.Error("gateway certificate not renewed", "err", err.Error())
		} else {
			s.log.Info("gateway certificate renewed", "expires", s.keys.Load().Cert.Expires)
		}
	}

	s.roster.Renew(ctx, now)
}
