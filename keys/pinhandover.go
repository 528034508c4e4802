package keys

import (
	"fmt"
	"time"
)

// HandedKey is a key a pin holds besides its current one while a peer
// hands its trust from one key to the next.
type HandedKey struct {
	Key    Ed25519Public `json:"key"`
	EncKey X25519Public  `json:"enc_key,omitzero"`
	// Effective is when a Next key may first be used; zero for Previous.
	Effective time.Time `json:"effective,omitzero"`
}

type handedText struct {
	Key       string `json:"key"`
	EncKey    string `json:"enc_key"`
	Effective string `json:"effective"`
}

func (h *HandedKey) equal(o *HandedKey) bool {
	if h == nil || o == nil {
		return h == o
	}
	return h.Key.Equal(o.Key) && h.EncKey.Equal(o.EncKey) && h.Effective.Equal(o.Effective)
}

// Equal reports whether p and q hold the same keys, times and handover.
func (p Pin) Equal(q Pin) bool {
	return p.Name == q.Name && p.Key.Equal(q.Key) && p.EncKey.Equal(q.EncKey) && p.PinnedAt.Equal(q.PinnedAt) &&
		p.Next.equal(q.Next) && p.Previous.equal(q.Previous) && p.Until.Equal(q.Until)
}

func parseHanded(p *Pin, t pinText, bad func(field, msg string, err error) *PinFileError) *PinFileError {
	for _, h := range []struct {
		field string
		text  *handedText
		into  **HandedKey
	}{{"next", t.Next, &p.Next}, {"previous", t.Previous, &p.Previous}} {
		if h.text == nil {
			continue
		}
		k := new(HandedKey)
		var err error
		if k.Key, err = ParseEd25519Public(h.text.Key); err != nil {
			return bad(h.field+".key", "must be an ed25519 public key (ed25519:…): "+cause(err), err)
		}
		if h.text.EncKey != "" {
			if k.EncKey, err = ParseX25519Public(h.text.EncKey); err != nil {
				return bad(h.field+".enc_key", "must be an x25519 public key (x25519:…): "+cause(err), err)
			}
		}
		if h.text.Effective != "" {
			if k.Effective, err = time.Parse(time.RFC3339Nano, h.text.Effective); err != nil {
				return bad(h.field+".effective", "must be an RFC 3339 time", err)
			}
		}
		*h.into = k
	}
	if t.Until != "" {
		var err error
		if p.Until, err = time.Parse(time.RFC3339Nano, t.Until); err != nil {
			return bad("until", "must be an RFC 3339 time", err)
		}
	}
	if (p.Next != nil || p.Previous != nil) && p.Until.IsZero() {
		return bad("until", "required with next or previous: the end of the handover's overlap", nil)
	}
	return nil
}

// promoted is p with its Next key in use: the key it replaces stays
// accepted as Previous until the overlap ends.
func promoted(p Pin, now time.Time) Pin {
	p.Previous = &HandedKey{Key: p.Key, EncKey: p.EncKey}
	p.Key, p.PinnedAt = p.Next.Key, now.UTC()
	if !p.Next.EncKey.IsZero() {
		p.EncKey = p.Next.EncKey
	}
	p.Next = nil
	return settled(p, now)
}

// settled is p at now: once its overlap ended, the newer key is the only
// one.
func settled(p Pin, now time.Time) Pin {
	if p.Until.IsZero() || now.Before(p.Until) {
		return p
	}
	if p.Next != nil {
		p.Key, p.PinnedAt = p.Next.Key, now.UTC()
		if !p.Next.EncKey.IsZero() {
			p.EncKey = p.Next.EncKey
		}
	}
	p.Next, p.Previous, p.Until = nil, nil, time.Time{}
	return p
}

// Handover records that the peer pinned as name handed its trust from
// the key from, which must be the one pinned, to the key to (with its
// encryption key toEnc), effective at effective, with from accepted until
// until. The caller has verified the handover's signatures against the
// pinned key (package handover). The pin keeps from as its key until the
// peer presents to (Check), or until the overlap ends; then to is the key
// and from is refused. It reports false for a handover already taken.
//
// A handover whose overlap has ended already (a peer that was away) is
// taken all the same: from signed it while it was the peer's key.
func (s *PinStore) Handover(name string, from, to Ed25519Public, toEnc X25519Public, effective, until time.Time) (bool, error) {
	if from.IsZero() || to.IsZero() {
		return false, fmt.Errorf("pin handover %s: empty key", name)
	}
	now := s.now()
	s.mu.Lock()
	defer s.mu.Unlock()
	p, ok := s.pins[name]
	if !ok {
		return false, fmt.Errorf("pin handover %s: %w", name, ErrNotPinned)
	}
	p = settled(p, now)
	if p.Key.Equal(to) || (p.Next != nil && p.Next.Key.Equal(to)) {
		if !p.Equal(s.pins[name]) {
			return false, s.setLocked(p)
		}
		return false, nil
	}
	if p.Next != nil && p.Next.Key.Equal(from) {
		// The peer moved on twice while this side saw neither key in
		// use: the first handover's key is the one handed from now.
		p = promoted(p, now)
	}
	if !p.Key.Equal(from) {
		return false, &MismatchError{Name: name, Pinned: p.Key, Got: from}
	}
	p.Next = &HandedKey{Key: to, EncKey: toEnc, Effective: effective.UTC()}
	p.Previous = nil
	p.Until = until.UTC()
	if !now.Before(until) {
		p = settled(p, now)
	}
	return true, s.setLocked(p)
}

// checkHanded is Check for a pin in the middle of a handover: the pinned
// key and, during the overlap, the one it hands to (from its effective
// time) or was handed from. The first time the peer presents the key it
// was handed to, that key becomes the pin's.
func (s *PinStore) checkHanded(name string, key Ed25519Public) error {
	now := s.now()
	s.mu.Lock()
	defer s.mu.Unlock()
	held, ok := s.pins[name]
	if !ok {
		return fmt.Errorf("check pin %s: %w", name, ErrNotPinned)
	}
	p := settled(held, now)
	switch {
	case p.Key.Equal(key):
	case p.Next != nil && p.Next.Key.Equal(key) && !now.Before(p.Next.Effective):
		p = promoted(p, now)
	case p.Previous != nil && p.Previous.Key.Equal(key):
	default:
		return &MismatchError{Name: name, Pinned: p.Key, Got: key}
	}
	if !p.Equal(held) {
		if err := s.setLocked(p); err != nil {
			return fmt.Errorf("check pin %s: %w", name, err)
		}
	}
	return nil
}

// Accepted returns the keys Check accepts for name now, the pinned one
// first.
func (s *PinStore) Accepted(name string) []Ed25519Public {
	_, out := s.Keys(name)
	return out
}

// Keys returns the keys Check accepts for name now, the pinned one first,
// and of them the newest: the key handed over to once in effect, before
// the peer has presented it, and the pinned key otherwise. It returns
// nothing for a name not pinned.
func (s *PinStore) Keys(name string) (newest Ed25519Public, accepted []Ed25519Public) {
	p, ok := s.Lookup(name)
	if !ok {
		return Ed25519Public{}, nil
	}
	now := s.now()
	p = settled(p, now)
	newest, accepted = p.Key, []Ed25519Public{p.Key}
	if p.Next != nil && !now.Before(p.Next.Effective) {
		newest, accepted = p.Next.Key, append(accepted, p.Next.Key)
	}
	if p.Previous != nil {
		accepted = append(accepted, p.Previous.Key)
	}
	return newest, accepted
}

// Ended is a key no longer accepted for a pin: its handover's overlap
// ended.
type Ended struct {
	Name string
	Key  Ed25519Public
}

// Expire ends the handovers whose overlap is over: the keys they handed
// from are refused from now on. It returns those keys, for the caller to
// stop trusting them elsewhere too.
func (s *PinStore) Expire() ([]Ended, error) {
	now := s.now()
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Ended
	for name, p := range s.pins {
		q := settled(p, now)
		if q.Equal(p) {
			continue
		}
		old := p.Key
		if p.Previous != nil {
			old = p.Previous.Key
		}
		if err := s.setLocked(q); err != nil {
			return out, err
		}
		out = append(out, Ended{Name: name, Key: old})
	}
	return out, nil
}
