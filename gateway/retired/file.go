package retired

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/moltgate/moltgate/keys"
)

// A retired key file holds one X25519 private key a rotation replaced. In
// the clear it looks like
//
//	{"moltgate_retired_key":1,"org":"acme",
//	 "public":{"enc_key":"x25519:…"},"until":"2026-05-02T12:00:00Z",
//	 "private":{"encryption_key":"x25519:…"}}
//
// and, encrypted with the org key's passphrase, "private" is replaced by
// "encrypted" as in an identity file (keys.WriteFile): scrypt, then
// XChaCha20-Poly1305 whose additional data is the header (version, org,
// public key and until), so that a file's end of overlap cannot be moved
// without the passphrase. "until" is in the clear so that a file whose
// overlap has ended is removed without the passphrase.

// FileVersion is the retired key file format Marshal writes.
const FileVersion = 1

// Key is an X25519 key a rotation replaced.
type Key struct {
	// Org is the organisation whose key it was.
	Org string
	// Key is the private key.
	Key keys.X25519Private
	// Until is when the rotation's overlap ends: what is sealed to Key
	// opens before it and is refused from then on.
	Until time.Time
}

type header struct {
	Version int    `json:"moltgate_retired_key"`
	Org     string `json:"org"`
	Public  struct {
		EncKey string `json:"enc_key"`
	} `json:"public"`
	Until string `json:"until"`
}

type private struct {
	EncryptionKey string `json:"encryption_key"`
}

type fileJSON struct {
	header
	Private   *private     `json:"private,omitempty"`
	Encrypted *keys.Sealed `json:"encrypted,omitempty"`
}

// FormatError is a file that is not a retired key file: cut short, edited
// by hand, or another kind of file. A wrong passphrase is
// keys.ErrPassphrase.
type FormatError struct{ Msg string }

func (e *FormatError) Error() string { return "decode retired key file: " + e.Msg }

func (k *Key) header() header {
	var h header
	h.Version, h.Org = FileVersion, k.Org
	h.Public.EncKey = k.Key.Public().String()
	h.Until = k.Until.UTC().Format(time.RFC3339Nano)
	return h
}

func additionalData(h header) []byte {
	b, _ := json.Marshal(h) // fixed field order: stable bytes
	return b
}

// Marshal encodes k as a retired key file, encrypted if opts has a
// passphrase; opts.Overwrite does not matter here.
func (k *Key) Marshal(opts keys.WriteOptions) ([]byte, error) {
	if k.Key.IsZero() || k.Until.IsZero() {
		return nil, errors.New("encode retired key file: missing key or end of overlap")
	}
	f := fileJSON{header: k.header()}
	priv := private{EncryptionKey: k.Key.Secret()}
	if len(opts.Passphrase) == 0 {
		f.Private = &priv
	} else {
		plain, _ := json.Marshal(priv)
		sealed, err := keys.Seal(plain, additionalData(f.header), opts)
		clear(plain)
		if err != nil {
			return nil, fmt.Errorf("encode retired key file: %w", err)
		}
		f.Encrypted = sealed
	}
	out, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("encode retired key file: %w", err)
	}
	return append(out, '\n'), nil
}

// decode reads b's header and what follows it, without opening it.
func decode(b []byte) (*fileJSON, time.Time, error) {
	var f fileJSON
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, time.Time{}, &FormatError{"empty or cut short"}
		}
		return nil, time.Time{}, &FormatError{err.Error()}
	}
	if dec.More() {
		return nil, time.Time{}, &FormatError{"more than one JSON object"}
	}
	if f.Version != FileVersion {
		return nil, time.Time{}, &FormatError{fmt.Sprintf("moltgate_retired_key: unsupported version %d", f.Version)}
	}
	until, err := time.Parse(time.RFC3339Nano, f.Until)
	if err != nil || until.IsZero() {
		return nil, time.Time{}, &FormatError{fmt.Sprintf("until: %q is not an RFC 3339 time", f.Until)}
	}
	return &f, until, nil
}

// Until reads when the overlap of the retired key file b ends, which is in
// the clear.
func Until(b []byte) (time.Time, error) {
	_, until, err := decode(b)
	return until, err
}

// Unmarshal decodes a retired key file. passphrase is needed only if the
// file is encrypted.
func Unmarshal(b, passphrase []byte) (*Key, error) {
	f, until, err := decode(b)
	if err != nil {
		return nil, err
	}
	var priv private
	switch {
	case f.Private != nil && f.Encrypted == nil:
		priv = *f.Private
	case f.Encrypted != nil && f.Private == nil:
		plain, err := f.Encrypted.Open(passphrase, additionalData(f.header))
		var fe *keys.FormatError
		if errors.As(err, &fe) {
			return nil, &FormatError{"encrypted: " + fe.Msg}
		}
		if err != nil {
			return nil, fmt.Errorf("decode retired key file: %w", err)
		}
		defer clear(plain)
		if err := json.Unmarshal(plain, &priv); err != nil {
			return nil, &FormatError{err.Error()}
		}
	default:
		return nil, &FormatError{"need exactly one of private or encrypted"}
	}
	ek, err := keys.ParseX25519Private(priv.EncryptionKey)
	if err != nil {
		return nil, &FormatError{"private.encryption_key: " + err.Error()}
	}
	k := &Key{Org: f.Org, Key: ek, Until: until}
	if k.Key.Public().String() != f.Public.EncKey {
		return nil, &FormatError{"public.enc_key does not match the private key"}
	}
	return k, nil
}
