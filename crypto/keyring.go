package crypto

import (
	"errors"
	"fmt"
	"time"

	"github.com/moltgate/moltgate/keys"
)

// Keyring is the X25519 keys one recipient opens boxes with at one time:
// the key in use and, while the overlap of a rotation lasts, the key it
// replaced. A sealed envelope does not name the key it was sealed to, so
// during the overlap a box is tried under the key in use, then under the
// one replaced; after the overlap only the key in use opens anything.
//
// A Keyring is not changed once made: a rotation makes a new one.
type Keyring struct {
	// Current is the key in use: what is sealed to it opens, and what the
	// recipient seals from now on comes from it. Required.
	Current *Box
	// Former is the key Current replaced, or nil. What is sealed to it
	// opens before Until, and is refused from then on.
	Former *Box
	// Until is the end of Former's overlap.
	Until time.Time
}

// NewKeyring returns the keyring of one key and no other.
func NewKeyring(b *Box) *Keyring { return &Keyring{Current: b} }

// Rotated returns the keyring that has next in use and k's current key
// as the former one, accepted until until. The key k held as former, if
// any, is dropped. Rotating to the key in use returns k as it is.
func (k *Keyring) Rotated(next *Box, until time.Time) *Keyring {
	if next.Public().Equal(k.Current.Public()) {
		return k
	}
	return &Keyring{Current: next, Former: k.Current, Until: until}
}

// Accepting returns the boxes that open what is sealed to this recipient
// at now, the key in use first.
func (k *Keyring) Accepting(now time.Time) []*Box {
	if k.Former != nil && now.Before(k.Until) {
		return []*Box{k.Current, k.Former}
	}
	return []*Box{k.Current}
}

// For returns the box of the X25519 key pub, Current's or Former's, to
// seal what a sender whose from.enc_key is pub sends: the receiver checks
// that the box came from that key. A zero pub is Current's. It returns
// nil for a key the keyring does not hold.
func (k *Keyring) For(pub keys.X25519Public) *Box {
	switch {
	case pub.IsZero() || pub.Equal(k.Current.Public()):
		return k.Current
	case k.Former != nil && pub.Equal(k.Former.Public()):
		return k.Former
	}
	return nil
}

// ErrNotOpened is the cause of every box that opens under no key of a
// keyring.
var ErrNotOpened = errors.New("open: authentication failed")

// OpenFrom decrypts a box that peer sealed, under each key Accepting
// returns at now, and appends the plaintext to dst. A box that opens under
// none is an error wrapping ErrNotOpened that says which keys were tried,
// and, after the overlap, which former key is refused.
func (k *Keyring) OpenFrom(dst, sealed []byte, nonce *[24]byte, peer keys.X25519Public, now time.Time) ([]byte, error) {
	boxes := k.Accepting(now)
	for _, b := range boxes {
		if out, err := b.OpenFrom(dst, sealed, nonce, peer); err == nil {
			return out, nil
		}
	}
	if k.Former != nil && len(boxes) == 1 {
		return nil, fmt.Errorf("%w: it is not sealed to %s, the key in use; %s, the key that one replaced, is refused since %s, when its overlap ended",
			ErrNotOpened, k.Current.Public(), k.Former.Public(), k.Until.UTC().Format(time.RFC3339))
	}
	if len(boxes) == 2 {
		return nil, fmt.Errorf("%w: it is sealed neither to %s, the key in use, nor to %s, the key that one replaced",
			ErrNotOpened, k.Current.Public(), k.Former.Public())
	}
	return nil, fmt.Errorf("%w: it is not sealed to %s", ErrNotOpened, k.Current.Public())
}
