package keys

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// An identity file is a JSON document that holds one agent's two private
// keys. In the clear it looks like
//
//	{"moltgate_identity":1,"agent":"alice","org":"acme",
//	 "public":{"key":"ed25519:…","enc_key":"x25519:…"},
//	 "private":{"signing_seed":"ed25519:…","encryption_key":"x25519:…"}}
//
// and, encrypted with a passphrase, "private" is replaced by
//
//	"encrypted":{"kdf":"scrypt","log_n":17,"r":8,"p":1,"salt":"base64:…",
//	             "aead":"xchacha20-poly1305","nonce":"base64:…","ciphertext":"base64:…"}
//
// where the ciphertext seals the "private" object and its additional data is
// the file's header (version, agent, org and public keys), so the header
// cannot be swapped onto someone else's keys.

// FileVersion is the identity file format written by WriteFile.
const FileVersion = 1

// KeyFile is the content of an identity file.
type KeyFile struct {
	Agent      string
	Org        string
	Signing    Ed25519Private
	Encryption X25519Private
}

// ScryptLogN is the default scrypt work factor for encrypted identity files
// (2^17: about 128 MiB and a fraction of a second to unlock).
const ScryptLogN = 17

// Bounds on the work factor accepted when reading, so that a hostile file
// cannot make unlocking take unbounded memory.
const (
	minScryptLogN = 10
	maxScryptLogN = 22
)

// ErrPermissions is returned for a private key file (an identity file, a
// TLS key) that group or others may read or write.
var ErrPermissions = errors.New("private key file is accessible by group or others")

// FormatError is an identity file whose content is not one: cut short,
// edited by hand, or another kind of file. It is not a wrong passphrase,
// which is ErrPassphrase.
type FormatError struct {
	Msg string // what is wrong, e.g. "unexpected EOF"
	Err error  // the cause, if any
}

func (e *FormatError) Error() string { return "decode identity file: " + e.Msg }

func (e *FormatError) Unwrap() error { return e.Err }

func malformed(err error) *FormatError {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return &FormatError{Msg: "empty or cut short", Err: err}
	}
	return &FormatError{Msg: err.Error(), Err: err}
}

// ErrPassphrase is returned when an encrypted identity file cannot be opened
// with the given passphrase, or when an encrypted file is read without one.
var ErrPassphrase = errors.New("wrong or missing passphrase")

type fileHeader struct {
	Version int    `json:"moltgate_identity"`
	Agent   string `json:"agent"`
	Org     string `json:"org"`
	Public  struct {
		Key    string `json:"key"`
		EncKey string `json:"enc_key"`
	} `json:"public"`
}

type filePrivate struct {
	SigningSeed   string `json:"signing_seed"`
	EncryptionKey string `json:"encryption_key"`
}

type fileJSON struct {
	fileHeader
	Private   *filePrivate `json:"private,omitempty"`
	Encrypted *Sealed      `json:"encrypted,omitempty"`
}

// WriteOptions tunes WriteFile.
type WriteOptions struct {
	// Passphrase, if non-empty, encrypts the private keys.
	Passphrase []byte
	// ScryptLogN is the work factor; 0 means ScryptLogN.
	ScryptLogN int
	// Rand supplies salt and nonce; nil means crypto/rand.
	Rand io.Reader
	// Overwrite replaces an existing file; by default an existing file is
	// an error, so a key is never lost by accident.
	Overwrite bool
}

func (kf *KeyFile) header() fileHeader {
	var h fileHeader
	h.Version = FileVersion
	h.Agent, h.Org = kf.Agent, kf.Org
	h.Public.Key = kf.Signing.Public().String()
	h.Public.EncKey = kf.Encryption.Public().String()
	return h
}

func headerAD(h fileHeader) []byte {
	b, _ := json.Marshal(h) // fixed field order: stable bytes
	return b
}

// Marshal encodes kf as an identity file.
func (kf *KeyFile) Marshal(opts WriteOptions) ([]byte, error) {
	if kf.Signing.IsZero() || kf.Encryption.IsZero() {
		return nil, errors.New("encode identity file: missing key")
	}
	f := fileJSON{fileHeader: kf.header()}
	priv := filePrivate{kf.Signing.Secret(), kf.Encryption.Secret()}
	if len(opts.Passphrase) == 0 {
		f.Private = &priv
	} else {
		plain, _ := json.Marshal(priv)
		sealed, err := Seal(plain, headerAD(f.fileHeader), opts)
		clear(plain)
		if err != nil {
			return nil, fmt.Errorf("encode identity file: %w", err)
		}
		f.Encrypted = sealed
	}
	out, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("encode identity file: %w", err)
	}
	return append(out, '\n'), nil
}

// UnmarshalKeyFile decodes an identity file. passphrase is needed only if the
// file is encrypted.
func UnmarshalKeyFile(b []byte, passphrase []byte) (*KeyFile, error) {
	var f fileJSON
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return nil, malformed(err)
	}
	if dec.More() {
		return nil, &FormatError{Msg: "more than one JSON object"}
	}
	if f.Version != FileVersion {
		return nil, &FormatError{Msg: fmt.Sprintf("unsupported version %d", f.Version)}
	}
	var priv filePrivate
	switch {
	case f.Private != nil && f.Encrypted == nil:
		priv = *f.Private
	case f.Encrypted != nil && f.Private == nil:
		plain, err := f.Encrypted.Open(passphrase, headerAD(f.fileHeader))
		if err != nil {
			if fe := (*FormatError)(nil); errors.As(err, &fe) {
				return nil, err
			}
			return nil, fmt.Errorf("decode identity file: %w", err)
		}
		defer clear(plain)
		if err := json.Unmarshal(plain, &priv); err != nil {
			return nil, malformed(err)
		}
	default:
		return nil, &FormatError{Msg: "need exactly one of private or encrypted"}
	}
	sk, err := ParseEd25519Private(priv.SigningSeed)
	if err != nil {
		return nil, malformed(err)
	}
	ek, err := ParseX25519Private(priv.EncryptionKey)
	if err != nil {
		return nil, malformed(err)
	}
	kf := &KeyFile{Agent: f.Agent, Org: f.Org, Signing: sk, Encryption: ek}
	// The public keys in the header are a convenience for readers; they
	// must agree with the private keys or the file has been tampered with.
	if h := kf.header(); h.Public != f.Public {
		return nil, &FormatError{Msg: "public keys do not match private keys"}
	}
	return kf, nil
}

// WriteFile writes kf to path with mode 0600.
func WriteFile(path string, kf *KeyFile, opts WriteOptions) error {
	b, err := kf.Marshal(opts)
	if err != nil {
		return err
	}
	return WritePrivateFile(path, b, opts.Overwrite)
}

// WritePrivateFile writes b to path with mode 0600, atomically: it writes a
// temporary file in the same directory, syncs it and renames it into place.
// Unless overwrite is set, an existing path is an error.
func WritePrivateFile(path string, b []byte, overwrite bool) error {
	if !overwrite {
		if _, err := os.Lstat(path); err == nil {
			return fmt.Errorf("write %s: %w", path, fs.ErrExist)
		}
	}
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if !overwrite {
		// Link fails if path appeared meanwhile; rename would replace it.
		if err := os.Link(tmp.Name(), path); err != nil {
			return fmt.Errorf("write %s: %w", path, linkCause(err))
		}
		return nil
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("write %s: %w", path, linkCause(err))
	}
	return nil
}

// linkCause is the system's reason of a failed link or rename, without the
// two paths it names, which are path and a temporary file.
func linkCause(err error) error {
	var le *os.LinkError
	if errors.As(err, &le) {
		return le.Err
	}
	return err
}

// ReadPrivateFile reads a file that must be a regular file not accessible by
// group or others.
// Errors from the file system are returned as they come: they name the
// path already.
func ReadPrivateFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("read %s: not a regular file", path)
	}
	if st.Mode().Perm()&0o077 != 0 {
		return nil, fmt.Errorf("read %s: mode %04o: %w (run chmod 600 %s)", path, st.Mode().Perm(), ErrPermissions, path)
	}
	b, err := io.ReadAll(io.LimitReader(f, 1<<20))
	if err != nil {
		return nil, err
	}
	return b, nil
}

// ReadFile reads an identity file written by WriteFile. It refuses a file
// that group or others can access. passphrase is needed only if the file is
// encrypted.
func ReadFile(path string, passphrase []byte) (*KeyFile, error) {
	b, err := ReadPrivateFile(path)
	if err != nil {
		return nil, err
	}
	kf, err := UnmarshalKeyFile(b, passphrase)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	return kf, nil
}

// Environment variables that supply the passphrase of identity files. A
// passphrase is never taken from a command-line flag, where other users could
// read it from the process list.
const (
	PassphraseEnv     = "MOLTGATE_PASSPHRASE"
	PassphraseFileEnv = "MOLTGATE_PASSPHRASE_FILE"
)

// EnvError is a passphrase setting in the environment that cannot be
// used: the user's to put right, naming the variable.
type EnvError struct {
	Var string // the variable at fault
	Msg string // what is wrong and the way out
}

func (e *EnvError) Error() string { return "passphrase: " + e.Msg }

// PassphraseFromEnv returns the passphrase named by the environment: the
// value of MOLTGATE_PASSPHRASE, or the first line of the file named by
// MOLTGATE_PASSPHRASE_FILE (which must be private to its owner). It returns
// nil if neither is set.
func PassphraseFromEnv(getenv func(string) string) ([]byte, error) {
	if p := getenv(PassphraseEnv); p != "" {
		if getenv(PassphraseFileEnv) != "" {
			return nil, &EnvError{Var: PassphraseFileEnv, Msg: fmt.Sprintf("%s and %s are both set: set only one", PassphraseEnv, PassphraseFileEnv)}
		}
		return []byte(p), nil
	}
	path := getenv(PassphraseFileEnv)
	if path == "" {
		return nil, nil
	}
	b, err := ReadPrivateFile(path)
	if err != nil {
		return nil, fmt.Errorf("passphrase: %w", err)
	}
	line, _, _ := strings.Cut(string(b), "\n")
	line = strings.TrimSuffix(line, "\r")
	if line == "" {
		return nil, &EnvError{Var: PassphraseFileEnv, Msg: fmt.Sprintf("%s names %s, whose first line is empty", PassphraseFileEnv, path)}
	}
	return []byte(line), nil
}
