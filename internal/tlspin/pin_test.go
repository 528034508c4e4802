package tlspin

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"math/big"
	"net"
	"testing"
	"time"
)

func selfSigned(t *testing.T) tls.Certificate {
	t.Helper()
	priv, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour)}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &priv.PublicKey, priv)
	if err != nil {
		t.Fatal(err)
	}
	leaf, _ := x509.ParseCertificate(der)
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: priv, Leaf: leaf}
}

// dial runs a TLS handshake with a server presenting cert, the client
// pinning pin.
func dial(t *testing.T, cert tls.Certificate, pin string) error {
	t.Helper()
	cfg, err := Client(pin, nil)
	if err != nil {
		t.Fatal(err)
	}
	a, b := net.Pipe()
	defer a.Close()
	defer b.Close()
	go tls.Server(b, &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS13}).Handshake()
	return tls.Client(a, cfg).Handshake()
}

func TestClientAcceptsThePinnedCertificateOnly(t *testing.T) {
	right, wrong := selfSigned(t), selfSigned(t)
	pin := Of(right.Leaf)
	if err := dial(t, right, pin); err != nil {
		t.Fatalf("the pinned certificate: %v", err)
	}
	err := dial(t, wrong, pin)
	var me *MismatchError
	if !errors.As(err, &me) || !errors.Is(err, ErrMismatch) {
		t.Fatalf("another certificate: %v, want a *MismatchError", err)
	}
	if me.Expected != pin || me.Presented != Of(wrong.Leaf) {
		t.Fatalf("mismatch names expected %s and presented %s, want %s and %s", me.Expected, me.Presented, pin, Of(wrong.Leaf))
	}
}

func TestParse(t *testing.T) {
	cert := selfSigned(t)
	if b, err := Parse(Of(cert.Leaf)); err != nil || len(b) != 32 {
		t.Fatalf("a pin made by Of: %v", err)
	}
	for _, bad := range []string{"", "sha256:", "sha1:AAAA", "sha256:not base64!", "sha256:AAAA"} {
		if _, err := Parse(bad); err == nil {
			t.Errorf("Parse(%q) took it", bad)
		}
	}
	if _, err := Client("sha256:AAAA", nil); err == nil {
		t.Error("Client took a malformed pin")
	}
}

// While a peer rotates its certificate, both pins are accepted, and
// nothing else; a mismatch names both.
func TestClientSetAcceptsEitherPin(t *testing.T) {
	old, next, other := selfSigned(t), selfSigned(t), selfSigned(t)
	pins := []string{Of(next.Leaf), Of(old.Leaf)}
	cfg, err := ClientSet(pins, nil)
	if err != nil {
		t.Fatal(err)
	}
	handshake := func(cert tls.Certificate) error {
		a, b := net.Pipe()
		defer a.Close()
		defer b.Close()
		go tls.Server(b, &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS13}).Handshake()
		return tls.Client(a, cfg.Clone()).Handshake()
	}
	for name, c := range map[string]tls.Certificate{"old": old, "next": next} {
		if err := handshake(c); err != nil {
			t.Fatalf("the %s certificate: %v", name, err)
		}
	}
	var me *MismatchError
	if err := handshake(other); !errors.As(err, &me) || me.Expected != pins[0]+" or "+pins[1] || me.Presented != Of(other.Leaf) {
		t.Fatalf("another certificate: %v", err)
	}
	if _, err := ClientSet(nil, nil); err == nil {
		t.Fatal("ClientSet took no pin")
	}
	if _, err := ClientSet([]string{pins[0], "sha256:AAAA"}, nil); err == nil {
		t.Fatal("ClientSet took a malformed pin")
	}
}
