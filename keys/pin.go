package keys

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"sort"
	"strings"
	"sync"
	"time"
)

// A Pin records the keys last seen for a named peer (an org, or agent@org).
type Pin struct {
	Name     string        `json:"name"`
	Key      Ed25519Public `json:"key"`
	EncKey   X25519Public  `json:"enc_key,omitzero"`
	PinnedAt time.Time     `json:"pinned_at"`
	// Next is a key the peer handed Key over to in a signed handover,
	// not yet seen in use (see Handover).
	Next *HandedKey `json:"next,omitempty"`
	// Previous is the key Key replaced by a handover, still accepted
	// until Until.
	Previous *HandedKey `json:"previous,omitempty"`
	// Until ends the overlap of a handover: from then on only the newer
	// key is accepted.
	Until time.Time `json:"until,omitzero"`
}

// MismatchError is returned when a peer presents a key other than its pin.
type MismatchError struct {
	Name   string
	Pinned Ed25519Public
	Got    Ed25519Public
}

func (e *MismatchError) Error() string {
	return fmt.Sprintf("key for %s does not match its pin (pinned %s, presented %s)", e.Name, e.Pinned, e.Got)
}

// ErrNotPinned is returned by Check for a name that has no pin.
var ErrNotPinned = errors.New("no pinned key")

// PinStore is a file of pinned peer keys. It is safe for concurrent use.
// Every change is written to disk (0600, atomically) before it returns.
type PinStore struct {
	path string
	now  func() time.Time

	mu   sync.RWMutex
	pins map[string]Pin
}

type pinFile struct {
	Pins []Pin `json:"pins"`
}

// OpenPinStore opens the store at path, creating an empty one if the file
// does not exist. now stamps new pins; nil means time.Now.
func OpenPinStore(path string, now func() time.Time) (*PinStore, error) {
	if now == nil {
		now = time.Now
	}
	pins, err := readPins(path)
	if err != nil {
		return nil, err
	}
	return &PinStore{path: path, now: now, pins: pins}, nil
}

// Reload reads the file again, for a process that holds the store while
// another one pins keys. On error the store keeps what it had.
func (s *PinStore) Reload() error {
	pins, err := readPins(s.path)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.pins = pins
	return nil
}

func readPins(path string) (map[string]Pin, error) {
	pins := map[string]Pin{}
	b, err := ReadPrivateFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return pins, nil
	case err != nil:
		return nil, fmt.Errorf("open pins: %w", err)
	}
	list, perr := parsePins(b)
	if perr != nil {
		perr.Path = path
		return nil, perr
	}
	for i, p := range list {
		if _, dup := pins[p.Name]; dup {
			return nil, &PinFileError{Path: path, Field: fmt.Sprintf("pins[%d].name", i), Msg: fmt.Sprintf("%s is pinned twice", p.Name)}
		}
		pins[p.Name] = p
	}
	return pins, nil
}

// PinFileError is a pin file whose content is not one, naming the entry's
// field where it can ("pins[1].key").
type PinFileError struct {
	Path  string
	Field string // empty for the file as a whole
	Msg   string
	Err   error // the cause, if any
}

func (e *PinFileError) Error() string {
	if e.Field == "" {
		return "open pins " + e.Path + ": " + e.Msg
	}
	return "open pins " + e.Path + ": " + e.Field + ": " + e.Msg
}

func (e *PinFileError) Unwrap() error { return e.Err }

// pinText is a pin as the file spells it; each field is parsed on its own,
// so that a mistake names it.
type pinText struct {
	Name     string      `json:"name"`
	Key      string      `json:"key"`
	EncKey   string      `json:"enc_key"`
	PinnedAt string      `json:"pinned_at"`
	Next     *handedText `json:"next"`
	Previous *handedText `json:"previous"`
	Until    string      `json:"until"`
}

// parsePins reads a pin file strictly: a field it does not know is a
// mistake, as a misspelt one would otherwise be lost on the next write.
func parsePins(b []byte) ([]Pin, *PinFileError) {
	var f struct {
		Pins []pinText `json:"pins"`
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		var te *json.UnmarshalTypeError
		var se *json.SyntaxError
		switch {
		case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF):
			return nil, &PinFileError{Msg: "empty or cut short", Err: err}
		case errors.As(err, &se):
			return nil, &PinFileError{Msg: fmt.Sprintf("not JSON at byte %d: %s", se.Offset, se.Error()), Err: err}
		case errors.As(err, &te):
			return nil, &PinFileError{Field: te.Field, Msg: "wrong type (want " + te.Type.String() + ")", Err: err}
		}
		if name, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
			return nil, &PinFileError{Field: strings.Trim(name, `"`), Msg: "unknown field", Err: err}
		}
		return nil, &PinFileError{Msg: err.Error(), Err: err}
	}
	if dec.More() {
		return nil, &PinFileError{Msg: "more than one JSON object"}
	}
	out := make([]Pin, 0, len(f.Pins))
	for i, t := range f.Pins {
		bad := func(field, msg string, err error) *PinFileError {
			return &PinFileError{Field: fmt.Sprintf("pins[%d].%s", i, field), Msg: msg, Err: err}
		}
		p := Pin{Name: t.Name}
		var err error
		if t.Name == "" {
			return nil, bad("name", "required", nil)
		}
		if p.Key, err = ParseEd25519Public(t.Key); err != nil {
			return nil, bad("key", "must be an ed25519 public key (ed25519:…): "+cause(err), err)
		}
		if t.EncKey != "" {
			if p.EncKey, err = ParseX25519Public(t.EncKey); err != nil {
				return nil, bad("enc_key", "must be an x25519 public key (x25519:…): "+cause(err), err)
			}
		}
		if t.PinnedAt != "" {
			if p.PinnedAt, err = time.Parse(time.RFC3339Nano, t.PinnedAt); err != nil {
				return nil, bad("pinned_at", "must be an RFC 3339 time", err)
			}
		}
		if err := parseHanded(&p, t, bad); err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, nil
}

// cause is why a key did not parse, without the key's kind again.
func cause(err error) string {
	var pe *ParseError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// Lookup returns the pin for name.
func (s *PinStore) Lookup(name string) (Pin, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	p, ok := s.pins[name]
	return p, ok
}

// Check reports whether key is the key pinned for name. It returns
// ErrNotPinned (wrapped) if there is no pin and a *MismatchError if the keys
// differ.
func (s *PinStore) Check(name string, key Ed25519Public) error {
	p, ok := s.Lookup(name)
	if !ok {
		return fmt.Errorf("check pin %s: %w", name, ErrNotPinned)
	}
	if p.Next == nil && p.Previous == nil {
		if !p.Key.Equal(key) {
			return &MismatchError{Name: name, Pinned: p.Key, Got: key}
		}
		return nil
	}
	return s.checkHanded(name, key)
}

// Pin records key (and enc, which may be zero) for name. Pinning the same
// keys again is a no-op; pinning different keys for an already pinned name
// is refused with a *MismatchError: use Replace to rotate deliberately.
func (s *PinStore) Pin(name string, key Ed25519Public, enc X25519Public) error {
	if name == "" || key.IsZero() {
		return errors.New("pin: empty name or key")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if p, ok := s.pins[name]; ok {
		if p.Next != nil && p.Next.Key.Equal(key) {
			// The key a handover named, now presented by the peer
			// itself: it is in use.
			p = promoted(p, s.now())
		}
		if !p.Key.Equal(key) {
			return &MismatchError{Name: name, Pinned: p.Key, Got: key}
		}
		if (enc.IsZero() || p.EncKey.Equal(enc)) && p.Equal(s.pins[name]) {
			return nil
		}
		if !enc.IsZero() {
			p.EncKey = enc
		}
		return s.setLocked(p)
	}
	return s.setLocked(Pin{Name: name, Key: key, EncKey: enc, PinnedAt: s.now().UTC()})
}

// Replace pins new keys for name whether or not it was pinned before.
func (s *PinStore) Replace(name string, key Ed25519Public, enc X25519Public) error {
	if name == "" || key.IsZero() {
		return errors.New("pin: empty name or key")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.setLocked(Pin{Name: name, Key: key, EncKey: enc, PinnedAt: s.now().UTC()})
}

// Remove deletes the pin for name, if any.
func (s *PinStore) Remove(name string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	old, ok := s.pins[name]
	if !ok {
		return nil
	}
	delete(s.pins, name)
	if err := s.saveLocked(); err != nil {
		s.pins[name] = old
		return err
	}
	return nil
}

// All returns every pin, sorted by name.
func (s *PinStore) All() []Pin {
	s.mu.RLock()
	defer s.mu.RUnlock()
	out := make([]Pin, 0, len(s.pins))
	for _, p := range s.pins {
		out = append(out, p)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

func (s *PinStore) setLocked(p Pin) error {
	old, had := s.pins[p.Name]
	s.pins[p.Name] = p
	if err := s.saveLocked(); err != nil {
		if had {
			s.pins[p.Name] = old
		} else {
			delete(s.pins, p.Name)
		}
		return err
	}
	return nil
}

func (s *PinStore) saveLocked() error {
	f := pinFile{Pins: make([]Pin, 0, len(s.pins))}
	for _, p := range s.pins {
		f.Pins = append(f.Pins, p)
	}
	sort.Slice(f.Pins, func(i, j int) bool { return f.Pins[i].Name < f.Pins[j].Name })
	b, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return fmt.Errorf("save pins: %w", err)
	}
	if err := WritePrivateFile(s.path, append(b, '\n'), true); err != nil {
		return fmt.Errorf("save pins: %w", err)
	}
	return nil
}
