package gateway

import (
	"context"
	"time"

	"github.com/moltgate/moltgate/gateway/roster"
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

// certifyGateway issues the gateway's own identity certificate.
func (s *Server) certifyGateway(now time.Time) error {
	cert, err := roster.Issuer(s.org).IssueIdentity(s.org.Public(), now.Add(-time.Minute), now.Add(s.cfg.Security.CertTTL.D()))
	if err != nil {
		return err
	}
	s.orgCert.Store(cert)
	return nil
}

// renewCerts issues again every certificate that is half spent: the
// gateway's own, which the next handshakes present, and each local agent's
// identity and capability certificates, which its next messages carry and
// its directory entry is published with. Sessions made under the old
// certificate keep it until they end.
func (s *Server) renewCerts(ctx context.Context) {
	now := s.now()
	if c := s.orgCert.Load(); roster.HalfSpent(c.IssuedAt, c.Expires, now) {
		if err := s.certifyGateway(now); err != nil {
			s.log.Error("gateway certificate not renewed", "err", err.Error())
		} else {
			s.log.Info("gateway certificate renewed", "expires", s.orgCert.Load().Expires)
		}
	}

	s.roster.Renew(ctx, now)
}
