package gateway

import (
	"errors"
	"path/filepath"
	"strings"
	"time"

	"github.com/moltgate/moltgate/crypto"
	"github.com/moltgate/moltgate/gateway/retired"
	"github.com/moltgate/moltgate/identity"
	"github.com/moltgate/moltgate/keys"
)

// RetiredKeysDir is where key rotate keeps the X25519 keys it replaced
// until their overlap ends (package retired).
func (d Dir) RetiredKeysDir() string { return d.path("keys", "retired") }

// openKeyring returns the keyring the gateway opens with at now: org's
// X25519 key in use, and the keys rotations replaced whose overlap has not
// ended, read from keys/retired (whose ended files it removes), so that a
// gateway restarted during an overlap opens what is still sealed to the
// keys replaced.
func openKeyring(d Dir, org *identity.Agent, passphrase []byte, now time.Time) (*crypto.Keyring, error) {
	ks, err := retired.Load(d.RetiredKeysDir(), org.Ref.Org, passphrase, now)
	if err != nil {
		var fe *retired.FileError
		if errors.As(err, &fe) {
			return nil, &ConfigError{Key: "keys/retired/" + filepath.Base(fe.Path), Msg: strings.TrimPrefix(fe.Error(), fe.Path+": "), Err: err}
		}
		return nil, err
	}
	cur := org.Encryption.Public()
	formers := make([]crypto.Former, 0, len(ks))
	for _, k := range ks {
		if k.Key.Public().Equal(cur) {
			continue // a rotation back to a key replaced
		}
		formers = append(formers, crypto.Former{Box: crypto.NewBox(k.Key, 0), Until: k.Until})
	}
	return crypto.NewKeyring(crypto.NewBox(org.Encryption, 0), formers...), nil
}

// retireEncKey keeps old, the X25519 key a rotation replaces, in
// keys/retired until until, when its overlap ends, sealed as the org key
// is.
func retireEncKey(d Dir, org string, old keys.X25519Private, until time.Time, wo keys.WriteOptions) error {
	return retired.Save(d.RetiredKeysDir(), retired.Key{Org: org, Key: old, Until: until}, wo)
}
