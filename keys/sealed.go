package keys

import (
	"crypto/rand"
	"errors"
	"fmt"
	"io"

	"golang.org/x/crypto/chacha20poly1305"
	"golang.org/x/crypto/scrypt"
)

// Sealed is a secret encrypted under a passphrase, as an identity file's
// "encrypted" member holds its private keys: scrypt derives the key, and
// XChaCha20-Poly1305 seals the secret with additional data the file keeps
// in the clear (its header), so that the header cannot be edited without
// the passphrase. Other key files of the gateway's (keys/retired) use it
// as well.
type Sealed struct {
	KDF        string `json:"kdf"`
	LogN       int    `json:"log_n"`
	R          int    `json:"r"`
	P          int    `json:"p"`
	Salt       string `json:"salt"`
	AEAD       string `json:"aead"`
	Nonce      string `json:"nonce"`
	Ciphertext string `json:"ciphertext"`
}

// Seal encrypts plain under opts.Passphrase (which must not be empty),
// bound to ad, with opts.ScryptLogN and opts.Rand.
func Seal(plain, ad []byte, opts WriteOptions) (*Sealed, error) {
	if len(opts.Passphrase) == 0 {
		return nil, errors.New("seal: no passphrase")
	}
	r := opts.Rand
	if r == nil {
		r = rand.Reader
	}
	logN := opts.ScryptLogN
	if logN == 0 {
		logN = ScryptLogN
	}
	if logN < minScryptLogN || logN > maxScryptLogN {
		return nil, fmt.Errorf("seal: scrypt log_n %d outside [%d, %d]", logN, minScryptLogN, maxScryptLogN)
	}
	salt, nonce := make([]byte, 16), make([]byte, chacha20poly1305.NonceSizeX)
	if _, err := io.ReadFull(r, salt); err != nil {
		return nil, fmt.Errorf("seal: %w", err)
	}
	if _, err := io.ReadFull(r, nonce); err != nil {
		return nil, fmt.Errorf("seal: %w", err)
	}
	key, err := scrypt.Key(opts.Passphrase, salt, 1<<logN, 8, 1, chacha20poly1305.KeySize)
	if err != nil {
		return nil, fmt.Errorf("seal: %w", err)
	}
	aead, err := chacha20poly1305.NewX(key)
	clear(key)
	if err != nil {
		return nil, fmt.Errorf("seal: %w", err)
	}
	return &Sealed{KDF: "scrypt", LogN: logN, R: 8, P: 1, Salt: EncodeBytes(salt),
		AEAD: "xchacha20-poly1305", Nonce: EncodeBytes(nonce), Ciphertext: EncodeBytes(aead.Seal(nil, nonce, plain, ad))}, nil
}

// Open decrypts e under passphrase, bound to ad. Parameters this package
// does not write, or members that do not decode, are a *FormatError; a
// passphrase that does not open it (or an ad that was edited) is
// ErrPassphrase. The caller clears what it returns once read.
func (e *Sealed) Open(passphrase, ad []byte) ([]byte, error) {
	if len(passphrase) == 0 {
		return nil, fmt.Errorf("file is encrypted: %w", ErrPassphrase)
	}
	if e.KDF != "scrypt" || e.AEAD != "xchacha20-poly1305" || e.R != 8 || e.P != 1 ||
		e.LogN < minScryptLogN || e.LogN > maxScryptLogN {
		return nil, &FormatError{Msg: "unsupported encryption parameters"}
	}
	salt, err1 := DecodeBytes(e.Salt, 64)
	nonce, err2 := DecodeBytes(e.Nonce, chacha20poly1305.NonceSizeX)
	ct, err3 := DecodeBytes(e.Ciphertext, 4096)
	if err := errors.Join(err1, err2, err3); err != nil || len(nonce) != chacha20poly1305.NonceSizeX {
		return nil, &FormatError{Msg: "malformed encrypted section"}
	}
	key, err := scrypt.Key(passphrase, salt, 1<<e.LogN, e.R, e.P, chacha20poly1305.KeySize)
	if err != nil {
		return nil, err
	}
	aead, _ := chacha20poly1305.NewX(key)
	clear(key)
	plain, err := aead.Open(nil, nonce, ct, ad)
	if err != nil {
		return nil, ErrPassphrase
	}
	return plain, nil
}
