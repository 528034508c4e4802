package crypto

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/moltgate/moltgate/keys"
)

// Keyring is the X25519 keys one recipient opens boxes with at one time:
// the key in use and, while the overlap of a rotation lasts, the keys it
// replaced. A sealed envelope does not name the key it was sealed to, so
// during an overlap a box is tried under the key in use, then under each
// key replaced whose overlap has not ended; after it only the key in use
// opens anything.
//
// A Keyring is not changed once made: a rotation makes a new one.
type Keyring struct {
	// Current is the key in use: what is sealed to it opens, and what the
	// recipient seals from now on comes from it. Required.
	Current *Box
	// Formers are the keys Current replaced, the latest first, each
	// accepted until its overlap ends. Default none.
	Formers []Former
	// Ended are the public keys of formers Expired dropped, the latest
	// first, at most MaxEnded: a refusal names them, and when they were
	// refused from, though the private keys are gone. Default none.
	Ended []Ended
}

// Ended is a former key dropped since its overlap ended: its public key,
// and when it was refused from.
type Ended struct {
	Public keys.X25519Public
	Until  time.Time
}

// MaxEnded is how many keys dropped a Keyring still names in a refusal.
const MaxEnded = 4

// Former is a key a rotation replaced: what is sealed to it opens before
// Until, and is refused from then on.
type Former struct {
	Box   *Box
	Until time.Time
}

// NewKeyring returns the keyring of b in use and formers, the latest
// first.
func NewKeyring(b *Box, formers ...Former) *Keyring {
	return &Keyring{Current: b, Formers: formers}
}

// Rotated returns the keyring that has next in use, k's current key as
// the latest former one, accepted until until, and k's former keys as
// they were: several rotations in a row keep every key replaced until its
// own overlap ends (Expired drops it). Rotating to the key in use returns
// k as it is.
func (k *Keyring) Rotated(next *Box, until time.Time) *Keyring {
	if next.Public().Equal(k.Current.Public()) {
		return k
	}
	formers := make([]Former, 0, len(k.Formers)+1)
	formers = append(formers, Former{Box: k.Current, Until: until})
	for _, f := range k.Formers {
		if !f.Box.Public().Equal(next.Public()) {
			formers = append(formers, f)
		}
	}
	return &Keyring{Current: next, Formers: formers, Ended: k.Ended}
}

// Expired returns the keyring without the former keys whose overlap has
// ended at now, and those keys; k itself when none has. The keyring
// returned names them in its refusals (Ended).
func (k *Keyring) Expired(now time.Time) (*Keyring, []Former) {
	var live, ended []Former
	for _, f := range k.Formers {
		if now.Before(f.Until) {
			live = append(live, f)
		} else {
			ended = append(ended, f)
		}
	}
	if len(ended) == 0 {
		return k, nil
	}
	names := make([]Ended, 0, len(ended)+len(k.Ended))
	for _, f := range ended {
		names = append(names, Ended{Public: f.Box.Public(), Until: f.Until})
	}
	names = append(names, k.Ended...)
	return &Keyring{Current: k.Current, Formers: live, Ended: names[:min(len(names), MaxEnded)]}, ended
}

// Accepting returns the boxes that open what is sealed to this recipient
// at now, the key in use first, then the former keys whose overlap has
// not ended, the latest first.
func (k *Keyring) Accepting(now time.Time) []*Box {
	boxes := make([]*Box, 1, 1+len(k.Formers))
	boxes[0] = k.Current
	for _, f := range k.Formers {
		if now.Before(f.Until) {
			boxes = append(boxes, f.Box)
		}
	}
	return boxes
}

// For returns the box of the X25519 key pub, Current's or a former one's,
// to seal what a sender whose from.enc_key is pub sends: the receiver
// checks that the box came from that key. A zero pub is Current's. It
// returns nil for a key the keyring does not hold.
func (k *Keyring) For(pub keys.X25519Public) *Box {
	if pub.IsZero() || pub.Equal(k.Current.Public()) {
		return k.Current
	}
	for _, f := range k.Formers {
		if pub.Equal(f.Box.Public()) {
			return f.Box
		}
	}
	return nil
}

// ErrNotOpened is the cause of every box that opens under no key of a
// keyring.
var ErrNotOpened = errors.New("open: authentication failed")

// OpenFrom decrypts a box that peer sealed, under each key Accepting
// returns at now, and appends the plaintext to dst. A box that opens under
// none is an error wrapping ErrNotOpened that says which keys were tried,
// and which former keys are refused since their overlap ended.
func (k *Keyring) OpenFrom(dst, sealed []byte, nonce *[24]byte, peer keys.X25519Public, now time.Time) ([]byte, error) {
	boxes := k.Accepting(now)
	for _, b := range boxes {
		if out, err := b.OpenFrom(dst, sealed, nonce, peer); err == nil {
			return out, nil
		}
	}
	var tried, refused []string
	for _, b := range boxes[1:] {
		tried = append(tried, b.Public().String())
	}
	for _, f := range k.Formers {
		if !now.Before(f.Until) {
			refused = append(refused, fmt.Sprintf("%s, refused since %s, when its overlap ended", f.Box.Public(), f.Until.UTC().Format(time.RFC3339)))
		}
	}
	for _, e := range k.Ended {
		refused = append(refused, fmt.Sprintf("%s, refused since %s, when its overlap ended", e.Public, e.Until.UTC().Format(time.RFC3339)))
	}
	msg := fmt.Sprintf("it is not sealed to %s, the key in use", k.Current.Public())
	if len(tried) > 0 {
		msg = fmt.Sprintf("it is sealed neither to %s, the key in use, nor to %s, the key%s that one replaced", k.Current.Public(), strings.Join(tried, " or "), plural(len(tried)))
	}
	if len(refused) > 0 {
		msg += fmt.Sprintf("; a key it replaced is refused: %s", strings.Join(refused, "; "))
	}
	return nil, fmt.Errorf("%w: %s", ErrNotOpened, msg)
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
