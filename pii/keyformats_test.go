package pii

import (
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"strings"
	"testing"

	"github.com/moltgate/moltgate/keys"
	"golang.org/x/crypto/ssh"
)

// wrap64 breaks v into lines of 64 characters, as PEM bodies are written.
func wrap64(v, nl string) string {
	var b strings.Builder
	for len(v) > 64 {
		b.WriteString(v[:64] + nl)
		v = v[64:]
	}
	b.WriteString(v)
	return b.String()
}

// TestHeaderlessKeys: private keys written as base64 DER without their PEM armour (PKCS#1,
// PKCS#8, SEC 1, on one line or in 64-column lines, raw or with JSON-escaped line breaks) and
// OpenSSH key bodies are private keys; public keys and certificates in the same form are not.
func TestHeaderlessKeys(t *testing.T) {
	s := mustNew(t, nil)
	rsaKey, err := rsa.GenerateKey(rand.Reader, 1024)
	if err != nil {
		t.Fatal(err)
	}
	ecKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	_, edKey, _ := ed25519.GenerateKey(rand.Reader)
	pkcs8RSA, _ := x509.MarshalPKCS8PrivateKey(rsaKey)
	pkcs8EC, _ := x509.MarshalPKCS8PrivateKey(ecKey)
	pkcs8Ed, _ := x509.MarshalPKCS8PrivateKey(edKey)
	sec1, _ := x509.MarshalECPrivateKey(ecKey)
	encBlock, _ := ssh.MarshalPrivateKeyWithPassphrase(edKey, "", []byte("pass phrase"))
	sshBlock, _ := ssh.MarshalPrivateKey(edKey, "")
	private := map[string][]byte{
		"pkcs1-rsa": x509.MarshalPKCS1PrivateKey(rsaKey), "pkcs8-rsa": pkcs8RSA, "pkcs8-ec": pkcs8EC,
		"pkcs8-ed25519": pkcs8Ed, "sec1-ec": sec1, "openssh": sshBlock.Bytes, "openssh-encrypted": encBlock.Bytes,
	}
	for name, der := range private {
		b64 := base64.StdEncoding.EncodeToString(der)
		for _, text := range []string{
			b64,
			"here is the key: " + b64 + " - keep it",
			wrap64(b64, "\n"),
			`{"key_material": "` + wrap64(b64, `\n`) + `"}`,
		} {
			if !hasType(s.ScanText(text), TypePrivateKey) {
				t.Errorf("%s not found in %.80q", name, text)
			}
		}
	}
	spki, _ := x509.MarshalPKIXPublicKey(&rsaKey.PublicKey)
	spkiEd, _ := x509.MarshalPKIXPublicKey(edKey.Public())
	tmpl := &x509.Certificate{SerialNumber: rsaKey.N, PublicKey: &ecKey.PublicKey}
	cert, _ := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &ecKey.PublicKey, ecKey)
	sshPub, _ := ssh.NewPublicKey(edKey.Public())
	for name, text := range map[string]string{
		"spki-rsa":     base64.StdEncoding.EncodeToString(spki),
		"spki-ed25519": base64.StdEncoding.EncodeToString(spkiEd),
		"certificate":  wrap64(base64.StdEncoding.EncodeToString(cert), "\n"),
		"cert-pem":     string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: cert})),
		"ssh-public":   string(ssh.MarshalAuthorizedKey(sshPub)),
	} {
		if fs := s.ScanText(text); Summarize(fs).Secret {
			t.Errorf("%s: %v", name, fs)
		}
	}
}

// TestMoltgateKeyFormats: an identity file, in the clear or sealed under a passphrase, pasted as
// text or sent as a payload, is private key material; its public keys alone, as the directory
// and keygen print them, are not. The finding on the file's member names no member.
func TestMoltgateKeyFormats(t *testing.T) {
	s := mustNew(t, nil)
	for k := 0; k < 20; k++ {
		sig, err := keys.GenerateEd25519(rand.Reader)
		if err != nil {
			t.Fatal(err)
		}
		enc, _ := keys.GenerateX25519(rand.Reader)
		kf := &keys.KeyFile{Agent: "alice", Org: "acme", Signing: sig, Encryption: enc}
		opts := keys.WriteOptions{}
		if k%2 == 1 {
			opts = keys.WriteOptions{Passphrase: []byte("correct horse"), ScryptLogN: 10}
		}
		file, err := kf.Marshal(opts)
		if err != nil {
			t.Fatal(err)
		}
		if !hasType(s.ScanText("my identity file:\n"+string(file)), TypePrivateKey) {
			t.Errorf("identity file as text not found:\n%s", file)
		}
		fs, err := s.ScanJSON("p", file)
		if err != nil || !hasType(fs, TypePrivateKey) {
			t.Errorf("identity file as payload not found: %v %v", fs, err)
		}
		for _, f := range fs {
			if strings.Contains(f.Path, "moltgate_identity") {
				t.Errorf("path %q names the member", f.Path)
			}
		}
		if k%2 == 0 {
			for _, text := range []string{"signing seed " + sig.Secret(), "private x25519 key " + enc.Secret(),
				`{"signing_seed": "` + sig.Secret() + `"}`} {
				if !hasType(s.ScanText(text), TypePrivateKey) {
					t.Errorf("private form not found in %q", text)
				}
			}
		}
		pub := `{"agent":"alice","org":"acme","key":"` + sig.Public().String() + `","enc_key":"` + enc.Public().String() + `"}`
		if fs, err := s.ScanJSON("p", []byte(pub)); err != nil || Summarize(fs).Secret {
			t.Errorf("public keys: %v %v", fs, err)
		}
		if fs := s.ScanText("peer key " + sig.Public().String() + " and enc key " + enc.Public().String()); Summarize(fs).Secret {
			t.Errorf("public keys in text: %v", fs)
		}
	}
}
