package pii

import (
	"crypto/ed25519"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/pem"
	"fmt"
	"math/big"
	"math/rand/v2"
	"testing"
	"time"
)

// TestPublicPEMInBase64: a certificate or a public key in base64 under a key that names
// authority or a certificate (kubeconfig's certificate-authority-data, a Secret's ca.crt) is
// published to be used, and so is the body of a certificate's PEM block; a private key so
// written, alone or in a bundle after a certificate, is still found.
func TestPublicPEMInBase64(t *testing.T) {
	sc := mustScanner(t)
	r := rand.New(rand.NewPCG(71, 72))
	for k := 0; k < 16; k++ {
		seed := make([]byte, ed25519.SeedSize)
		for i := range seed {
			seed[i] = byte(r.IntN(256))
		}
		priv := ed25519.NewKeyFromSeed(seed)
		tmpl := &x509.Certificate{SerialNumber: big.NewInt(int64(1 + r.IntN(1<<30))), Subject: pkix.Name{CommonName: "cluster-ca"},
			NotBefore: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), NotAfter: time.Date(2036, 1, 1, 0, 0, 0, 0, time.UTC)}
		der, err := x509.CreateCertificate(nil, tmpl, tmpl, priv.Public(), priv)
		if err != nil {
			t.Fatal(err)
		}
		cert := string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}))
		pkcs8, _ := x509.MarshalPKCS8PrivateKey(priv)
		key := string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: pkcs8}))
		b64 := base64.StdEncoding.EncodeToString
		pub := []string{
			fmt.Sprintf("clusters:\n- cluster:\n    certificate-authority-data: %s\n    server: https://10.0.0.1:6443\n", b64([]byte(cert))),
			fmt.Sprintf("data:\n  ca.crt: %s\n", b64([]byte(cert))),
			fmt.Sprintf("auth_ca: |\n%s", cert),
		}[k%3]
		if fs := sc.ScanText(pub); len(fs) > 0 {
			t.Errorf("%q: %v", pub, fs)
		}
		priv64 := []string{
			fmt.Sprintf("users:\n- name: admin\n  user:\n    client-key-data: %s\n", b64([]byte(key))),
			fmt.Sprintf("data:\n  tls.pem: %s\n", b64([]byte(cert+key))),
		}[k%2]
		if fs := sc.ScanText(priv64); len(fs) == 0 {
			t.Errorf("%q: no finding", priv64)
		}
	}
}

// TestPlaceNounsAfterOneName: a given name alone before a noun for a square or a plaza, in the
// languages of the places, names the place ("Mother Teresa Square", "Plaza"); the same name
// after a cue, with no such noun, is still a person's.
func TestPlaceNounsAfterOneName(t *testing.T) {
	sc := mustScanner(t)
	r := rand.New(rand.NewPCG(73, 74))
	names := []string{"Teresa", "Maria", "Jordi", "Nikola", "Gustav", "Helena"}
	nouns := []string{"Square", "Plaza", "Piazza", "Sheshi", "Trg", "Platz", "Plein"}
	for k := 0; k < 30; k++ {
		n := names[r.IntN(len(names))]
		text := fmt.Sprintf([]string{"The team visited the Mother %s %s in the old town.", "We met at %s %s.",
			"Our group walked to Saint %s %s after lunch."}[r.IntN(3)], n, nouns[r.IntN(len(nouns))])
		if fs := sc.ScanText(text); hasType(fs, TypeName) {
			t.Errorf("%q: a name: %v", text, fs)
		}
	}
}

// TestInsuranceAndDrugCodes: a number after "policy", "NDC", "CPT" or "HCPCS" is that reference,
// not a phone number; a phone number after a word for a phone stays one.
func TestInsuranceAndDrugCodes(t *testing.T) {
	sc := mustScanner(t)
	r := rand.New(rand.NewPCG(75, 76))
	for k := 0; k < 30; k++ {
		d := fmt.Sprintf("06%08d", r.IntN(100000000))
		ref := fmt.Sprintf([]string{"Policy %s renewed for another year.", "NDC %s-%s-%s, lot 4K2, expiry 2027-06.",
			"Claim CLM-%s, policy %s, adjuster ref 1234."}[k%3], d[:5], d[5:9], d[9:])
		if k%3 != 1 {
			ref = fmt.Sprintf([]string{"Policy %s renewed for another year.", "", "Claim CLM-77, policy %s, adjuster ref 1234."}[k%3], d)
		}
		if fs := sc.ScanText(ref); hasType(fs, TypePhone) {
			t.Errorf("%q: a phone number: %v", ref, fs)
		}
	}
	if fs := sc.ScanText("Call me on 0612345678 about the policy."); !hasType(fs, TypePhone) {
		t.Errorf("no phone number: %v", fs)
	}
}
