package keyswitch

import (
	"context"
	"time"

	"github.com/moltgate/moltgate/gateway/orgkey"
)

// The certificates the gateway issues for itself and its agents are valid
// for security.cert_ttl (30 days by default). A gateway serves for longer
// than that, so they are issued again once half of their time has passed
// (Config.HalfSpent).

// renewCheckEvery bounds how often the renewal loop looks at the
// certificates; it looks more often when cert_ttl is short.
const renewCheckEvery = time.Hour

// RenewEvery is how often the renewal loop runs for a certificate
// lifetime of ttl: often enough to renew within a tenth of it.
func RenewEvery(ttl time.Duration) time.Duration {
	return max(min(ttl/10, renewCheckEvery), time.Second)
}

// certifyGateway issues the gateway's own identity certificate again,
// under the org key in use.
func (w *Switch) certifyGateway(now time.Time) error {
	_, err := w.cfg.Keys.Update(func(set orgkey.Set) (orgkey.Set, error) {
		cert, err := w.cfg.Certify(set.Self, now)
		set.Cert = cert
		return set, err
	})
	return err
}

// Renew issues again every certificate that is half spent: the gateway's
// own, which the next handshakes present, and each local agent's identity
// and capability certificates, which its next messages carry and its
// directory entry is published with. Sessions made under the old
// certificate keep it until they end.
func (w *Switch) Renew(ctx context.Context) {
	now := w.cfg.Now()
	if c := w.cfg.Keys.Load().Cert; w.cfg.HalfSpent(c.IssuedAt, c.Expires, now) {
		if err := w.certifyGateway(now); err != nil {
			w.cfg.Log.Error("gateway certificate not renewed", "err", err.Error())
		} else {
			w.cfg.Log.Info("gateway certificate renewed", "expires", w.cfg.Keys.Load().Cert.Expires)
		}
	}

	w.cfg.Agents.Renew(ctx, now)
}
