package gateway

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"strings"
	"time"

	"github.com/moltgate/moltgate/internal/tlspin"
	"github.com/moltgate/moltgate/keys"
)

// PinPrefix introduces a TLS pin: the SHA-256 of the certificate's
// SubjectPublicKeyInfo, as in HTTP public key pinning.
const PinPrefix = tlspin.Prefix

// WriteTLSCert writes a self-signed ECDSA P-256 certificate for the given
// hosts (IP addresses or names) to certPath and its key (0600) to keyPath,
// and returns its pin. Peers do not check names or chains: they check the
// pin they imported. Init makes a gateway's with it.
func WriteTLSCert(certPath, keyPath, org string, hosts []string, now time.Time) (string, error) {
	priv, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return "", fmt.Errorf("make TLS certificate: %w", err)
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	if err != nil {
		return "", fmt.Errorf("make TLS certificate: %w", err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: serial,
		Subject:      pkix.Name{Organization: []string{org}, CommonName: "moltgate " + org},
		NotBefore:    now.Add(-time.Hour),
		NotAfter:     now.Add(10 * 365 * 24 * time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth},
	}
	for _, h := range hosts {
		if ip := net.ParseIP(h); ip != nil {
			tmpl.IPAddresses = append(tmpl.IPAddresses, ip)
		} else if h != "" {
			tmpl.DNSNames = append(tmpl.DNSNames, h)
		}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &priv.PublicKey, priv)
	if err != nil {
		return "", fmt.Errorf("make TLS certificate: %w", err)
	}
	kb, err := x509.MarshalPKCS8PrivateKey(priv)
	if err != nil {
		return "", fmt.Errorf("make TLS certificate: %w", err)
	}
	if err := keys.WritePrivateFile(keyPath, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: kb}), false); err != nil {
		return "", err
	}
	if err := os.WriteFile(certPath, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o644); err != nil {
		return "", fmt.Errorf("make TLS certificate: %w", err)
	}
	cert, _ := x509.ParseCertificate(der)
	return spkiPin(cert), nil
}

func spkiPin(c *x509.Certificate) string { return tlspin.Of(c) }

// loadTLSCert reads the gateway's certificate and key, refusing a key file
// that others can read. Content that is not a certificate or its key is a
// *ConfigError naming the file.
func loadTLSCert(d Dir) (tls.Certificate, string, error) {
	kb, err := keys.ReadPrivateFile(d.TLSKeyPath())
	if err != nil {
		return tls.Certificate{}, "", fmt.Errorf("load TLS key: %w", err)
	}
	f, err := os.Open(d.TLSCertPath())
	if err != nil {
		return tls.Certificate{}, "", fmt.Errorf("load TLS certificate: %w", err)
	}
	defer f.Close()
	cb, err := readChecked(f, "tls/cert.pem")
	if err != nil {
		return tls.Certificate{}, "", err
	}
	bad := func(file, msg string, err error) (tls.Certificate, string, error) {
		return tls.Certificate{}, "", &ConfigError{Key: file, Msg: msg, Err: err}
	}
	block, _ := pem.Decode(cb)
	if block == nil || block.Type != "CERTIFICATE" {
		return bad("tls/cert.pem", "holds no PEM certificate", nil)
	}
	leaf, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		return bad("tls/cert.pem", "not a valid certificate: "+strings.TrimPrefix(err.Error(), "x509: "), err)
	}
	if block, _ := pem.Decode(kb); block == nil || !strings.HasSuffix(block.Type, "PRIVATE KEY") {
		return bad("tls/key.pem", "holds no PEM private key", nil)
	}
	pair, err := tls.X509KeyPair(cb, kb)
	if err != nil {
		return bad("tls/key.pem", "does not go with tls/cert.pem: "+strings.TrimPrefix(err.Error(), "tls: "), err)
	}
	pair.Leaf = leaf
	return pair, spkiPin(leaf), nil
}

// parsePin returns the SHA-256 a TLS pin holds.
func parsePin(pin string) ([]byte, error) { return tlspin.Parse(pin) }

// ErrPinMismatch is returned when a peer's TLS certificate is not the one
// pinned for it.
var ErrPinMismatch = tlspin.ErrMismatch

// pinnedClientTLS returns a client TLS configuration that accepts exactly
// the certificate whose SPKI hash is pin, whatever its name or issuer: the
// pin came from the peer's signed export, which is the trust decision.
func pinnedClientTLS(pin string, own *tls.Certificate) (*tls.Config, error) {
	return tlspin.Client(pin, own)
}
