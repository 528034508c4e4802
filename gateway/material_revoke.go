package gateway

import (
	"errors"
	"fmt"
	"time"

	"github.com/moltgate/moltgate/keys"
	"github.com/moltgate/moltgate/revocation"
)

// MaterialOptions are the choices of moltgate cert revoke and tls revoke.
type MaterialOptions struct {
	// Kind is what Value names: revocation.KindIdentityCert or
	// KindCapabilityCert (a certificate's "sha256:…" digest) or
	// KindTLSPin (a pin as peer documents spell it). Required.
	Kind revocation.Kind
	// Value names what is revoked. Required.
	Value string
	// Reason is the operator's words, kept in the list for people.
	Reason string
	// Passphrase unlocks the org key, which signs the list.
	Passphrase []byte
	// Now is when the revocation takes effect. Default time.Now().
	Now time.Time
}

// RevokeMaterial adds a certificate the organisation issued, or a TLS pin
// it used, to its signed revocation list (DIR/revocations.json, serial one
// higher), which a serving gateway serves and pushes to every peer as for
// an agent's key: peers refuse the certificate wherever they check one,
// and stop accepting the pin. The gateway's own current TLS pin is
// refused: its peers could no longer reach it (rotate it first with
// moltgate tls rotate). It returns the list's new serial.
func RevokeMaterial(d Dir, o MaterialOptions) (int64, error) {
	verb, flag := "cert revoke", "--digest"
	if o.Kind == revocation.KindTLSPin {
		verb, flag = "tls revoke", "--pin"
	}
	if o.Value == "" {
		return 0, optionErr(verb, flag, "%s is required", flag)
	}
	if len(o.Reason) > 1024 {
		return 0, optionErr(verb, "--reason", "--reason is at most 1024 bytes")
	}
	if o.Now.IsZero() {
		o.Now = time.Now()
	}
	cfg, err := d.ReadConfig()
	if err != nil {
		return 0, err
	}
	if o.Kind == revocation.KindTLSPin && cfg.TLSEnabled() {
		if _, cur, err := loadTLSCert(d); err == nil && cur == o.Value {
			return 0, optionErr(verb, "--pin", "%s is the pin of tls/cert.pem, which this gateway presents: rotate it first (moltgate tls rotate), then revoke the old pin", o.Value)
		}
	}
	org, err := LoadOrg(d, o.Passphrase)
	if errors.Is(err, keys.ErrPassphrase) {
		return 0, fmt.Errorf("%s: the org key signs the revocation list, and it is encrypted: set %s or %s: %w", verb, keys.PassphraseEnv, keys.PassphraseFileEnv, err)
	}
	if err != nil {
		return 0, err
	}
	list, err := revocation.LoadFile(d.RevocationsPath(), cfg.Org, org.Signing.Public())
	if err != nil {
		return 0, &ConfigError{Key: "revocations.json", Msg: err.Error(), Err: err}
	}
	next, err := list.Revoke(org.Signing, o.Now, revocation.Entry{Kind: o.Kind, Value: o.Value, Reason: o.Reason, Effective: o.Now.UnixMilli()})
	var re *revocation.Error
	if errors.As(err, &re) {
		return 0, optionErr(verb, flag, "%s: %s", flag, re.Reason)
	}
	if err != nil {
		return 0, fmt.Errorf("%s: %w", verb, err)
	}
	if err := next.WriteFile(d.RevocationsPath()); err != nil {
		return 0, fmt.Errorf("%s: %w", verb, err)
	}
	return next.Serial, nil
}
