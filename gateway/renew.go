package gateway

import (
	"context"
	"time"
)

// The certificates the gateway issues for itself and its agents are valid
// for security.cert_ttl (30 days by default). A gateway serves for longer
// than that, so they are issued again once half of their time has passed:
// long enough before the end that a peer whose clock is behind, or a
// renewal that failed and is retried, still finds a valid one.

// renewCheckEvery bounds how often the renewal loop looks at the
// certificates; it looks more often when cert_ttl is short.
const renewCheckEvery = time.Hour

// renewEvery is how often the renewal loop runs for a certificate
// lifetime of ttl: often enough to renew within a tenth of it.
func renewEvery(ttl time.Duration) time.Duration {
	return max(min(ttl/10, renewCheckEvery), time.Second)
}

// halfSpent reports whether half of the time between issue and expiry,
// both in unix milliseconds, has passed.
func halfSpent(issued, expires int64, now time.Time) bool {
	return now.UnixMilli() >= issued+(expires-issued)/2
}

// certifyGateway issues the gateway's own identity certificate.
func (s *Server) certifyGateway(now time.Time) error {
	cert, err := s.orgIssuer().IssueIdentity(s.org.Public(), now.Add(-time.Minute), now.Add(s.cfg.Security.CertTTL.D()))
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
	if c := s.orgCert.Load(); halfSpent(c.IssuedAt, c.Expires, now) {
		if err := s.certifyGateway(now); err != nil {
			s.log.Error("gateway certificate not renewed", "err", err.Error())
		} else {
			s.log.Info("gateway certificate renewed", "expires", s.orgCert.Load().Expires)
		}
	}

	s.reloadMu.Lock()
	cur := s.localAgents()
	var renewed []string
	next := make(map[string]*agentState, len(cur))
	for id, st := range cur {
		next[id] = st
		if !agentCertsDue(st, now) {
			continue
		}
		fresh := *st
		if err := s.certify(&fresh, now); err != nil {
			s.log.Error("agent certificates not renewed", "agent", id, "err", err.Error())
			continue
		}
		next[id] = &fresh
		renewed = append(renewed, id)
	}
	if len(renewed) > 0 {
		s.agents.Store(&next)
	}
	s.reloadMu.Unlock()
	for _, id := range renewed {
		s.republish(ctx, id)
		s.log.Info("agent certificates renewed", "agent", id)
	}
}

// agentCertsDue reports whether any of st's certificates is half spent.
func agentCertsDue(st *agentState, now time.Time) bool {
	if halfSpent(st.cert.IssuedAt, st.cert.Expires, now) {
		return true
	}
	for _, c := range st.caps {
		if halfSpent(c.Attestation.IssuedAt, c.Attestation.Expires, now) {
			return true
		}
	}
	return false
}
