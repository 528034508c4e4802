// Package tlspin pins a TLS peer by the SHA-256 of its certificate's
// SubjectPublicKeyInfo, as HTTP public key pinning did: a gateway dials a
// peer's gateway, or its registry, accepting exactly the certificate whose
// pin came in the peer's signed document, whatever its name or issuer.
package tlspin

import (
	"crypto/sha256"
	"crypto/subtle"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
)

// Prefix introduces a pin.
const Prefix = "sha256:"

// ErrMismatch is the error of a handshake with a peer whose certificate
// is not the one pinned for it. Every *MismatchError is one.
var ErrMismatch = errors.New("peer TLS certificate does not match its pin")

// MismatchError is a handshake with a certificate other than the pinned
// one: a security event (the peer's certificate changed, or something
// else answered at its address), not a passing fault.
type MismatchError struct {
	// Expected is the pin the peer was imported with ("A or B" while it
	// rotates its certificate).
	Expected string
	// Presented is the pin of the certificate presented, or "" if none
	// could be read.
	Presented string
}

func (e *MismatchError) Error() string {
	if e.Presented == "" {
		return fmt.Sprintf("%v: expected %s, presented no readable certificate", ErrMismatch, e.Expected)
	}
	return fmt.Sprintf("%v: expected %s, presented %s", ErrMismatch, e.Expected, e.Presented)
}

func (e *MismatchError) Unwrap() error { return ErrMismatch }

// Of returns the pin of c.
func Of(c *x509.Certificate) string {
	sum := sha256.Sum256(c.RawSubjectPublicKeyInfo)
	return Prefix + base64.StdEncoding.EncodeToString(sum[:])
}

// Parse returns the SHA-256 a pin holds.
func Parse(pin string) ([]byte, error) {
	b64, ok := strings.CutPrefix(pin, Prefix)
	want, err := base64.StdEncoding.Strict().DecodeString(b64)
	if !ok || err != nil || len(want) != sha256.Size {
		return nil, errors.New("must be " + Prefix + " followed by the base64 of 32 bytes")
	}
	return want, nil
}

// Client returns a client TLS configuration that accepts exactly the
// certificate whose pin is pin, and presents own if it is not nil. A
// handshake with another certificate fails with a *MismatchError.
func Client(pin string, own *tls.Certificate) (*tls.Config, error) {
	return ClientSet([]string{pin}, own)
}

// ClientSet is Client accepting the certificate of any of pins: a peer's
// current pin and, while it rotates its certificate, the one it announced
// next (or the one it replaced). The first pin is the one a mismatch names
// as expected, with the others after it.
func ClientSet(pins []string, own *tls.Certificate) (*tls.Config, error) {
	if len(pins) == 0 {
		return nil, errors.New("TLS pin: none given")
	}
	want := make([][]byte, 0, len(pins))
	for _, pin := range pins {
		w, err := Parse(pin)
		if err != nil {
			return nil, fmt.Errorf("TLS pin: %w", err)
		}
		want = append(want, w)
	}
	expected := strings.Join(pins, " or ")
	cfg := &tls.Config{
		MinVersion: tls.VersionTLS13,
		// Chain and name verification are replaced by the pin check
		// below, which runs on every handshake.
		InsecureSkipVerify: true,
		VerifyPeerCertificate: func(raw [][]byte, _ [][]*x509.Certificate) error {
			if len(raw) == 0 {
				return &MismatchError{Expected: expected}
			}
			c, err := x509.ParseCertificate(raw[0])
			if err != nil {
				return &MismatchError{Expected: expected}
			}
			sum := sha256.Sum256(c.RawSubjectPublicKeyInfo)
			ok := 0
			for _, w := range want {
				// Every pin is compared, so that the time taken does not
				// say which matched.
				ok |= subtle.ConstantTimeCompare(sum[:], w)
			}
			if ok != 1 {
				return &MismatchError{Expected: expected, Presented: Of(c)}
			}
			return nil
		},
	}
	if own != nil {
		cfg.Certificates = []tls.Certificate{*own}
	}
	return cfg, nil
}
