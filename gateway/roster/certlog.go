package roster

import (
	"log/slog"
	"strings"
	"time"

	"github.com/moltgate/moltgate/identity"
)

// LogIssued logs certificates just issued, for an agent or the gateway
// itself, with their digests: moltgate cert revoke names a certificate by
// its digest, and the gateway keeps no copy of what it issues on disk, so
// its log is where an operator finds the digest of a certificate to
// revoke.
func LogIssued(log *slog.Logger, cert *identity.Cert, caps []*identity.CapabilityCert) {
	args := []any{"agent", cert.Ref().String(), "identity_cert", cert.Digest(),
		"issuer", cert.Issuer.Fingerprint(), "expires", time.UnixMilli(cert.Expires).UTC().Format(time.RFC3339)}
	if len(caps) > 0 {
		digests := make([]string, len(caps))
		for i, c := range caps {
			digests[i] = c.Capability + "=" + c.Digest()
		}
		args = append(args, "capability_certs", strings.Join(digests, " "))
	}
	log.Info("certificates issued", args...)
}
