package e2e

import (
	"context"
	"crypto/rand"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/moltgate/moltgate/gateway"
	"github.com/moltgate/moltgate/handover"
	"github.com/moltgate/moltgate/identity"
	"github.com/moltgate/moltgate/wire"
)

// TestOwnMaterialRevoked: globex revokes one identity certificate it
// issued, by its digest, and its former TLS pin before the overlap of its
// TLS rotation ends. Within a minute acme refuses the certificate (another
// one for the same key still passes: the certificate is revoked, not the
// key) and stops accepting the former pin: a gateway at globex's address
// presenting the old certificate is refused an hour before the overlap
// would have ended; globex cannot revoke the pin it presents.
func TestOwnMaterialRevoked(t *testing.T) {
	needProcesses(t)
	acme, globex := pair(t, "websocket", nil)
	gw, err := gateway.LoadOrg(gateway.Dir(globex.dir), nil)
	if err != nil {
		t.Fatal(err)
	}
	a, err := identity.Generate(rand.Reader, wire.Ref{Agent: "mallory", Org: "globex"})
	if err != nil {
		t.Fatal(err)
	}
	leaked, cert := certifiedAs(t, gw.Signing, a, globex, acme)
	if r := leaked.post(leaked.sealedPing("client")).reply; r == nil || r.Op != wire.OpPong {
		t.Fatalf("before the revocation: %v", r)
	}
	certPath := filepath.Join(t.TempDir(), "cert.json")
	if err := os.WriteFile(certPath, wire.AppendCanonical(nil, cert.Value()), 0o600); err != nil {
		t.Fatal(err)
	}
	out := mg(t, "cert", "revoke", "--dir", globex.dir, "--cert", certPath, "--reason", "issued by mistake")
	if !strings.Contains(out, cert.Digest()) || !strings.Contains(out, "serial 1") {
		t.Fatalf("cert revoke printed %s", out)
	}
	start := time.Now()
	waitFor(t, enforceWithin, "acme still takes the revoked certificate", func() bool {
		return leaked.post(leaked.sealedPing("client")).code() == wire.ErrAuthFailed
	})
	t.Logf("acme refused the revoked certificate %v after the revocation", time.Since(start).Round(time.Millisecond))
	if fresh, _ := certifiedAs(t, gw.Signing, a, globex, acme); fresh.post(fresh.sealedPing("client")).reply.Op != wire.OpPong {
		t.Fatal("another certificate for the same key is refused: the key was revoked, not the certificate")
	}

	oldPin := globex.doc.TLSPin
	certPEM, _ := os.ReadFile(gateway.Dir(globex.dir).TLSCertPath())
	keyPEM, _ := os.ReadFile(gateway.Dir(globex.dir).TLSKeyPath())
	mg(t, "tls", "rotate", "--dir", globex.dir, "--overlap", "1h")
	set, err := handover.LoadFile(gateway.Dir(globex.dir).HandoversPath())
	if err != nil || len(set.Handovers) != 1 {
		t.Fatalf("handovers: %v %v", set, err)
	}
	newPin := set.Handovers[0].New
	waitFor(t, 20*time.Second, "acme never took globex's new pin", func() bool {
		return peerFileOf(t, acme, "globex")["tls_pin_previous"] == oldPin
	})
	if _, errOut, err := mgRun(nil, "tls", "revoke", "--dir", globex.dir, "--pin", newPin); err == nil || !strings.Contains(errOut, "tls rotate") {
		t.Fatalf("revoking the pin globex presents: %v %s", err, errOut)
	}
	mg(t, "tls", "revoke", "--dir", globex.dir, "--pin", oldPin, "--reason", "key leaked")
	waitFor(t, enforceWithin, "acme still accepts the revoked former pin", func() bool {
		_, still := peerFileOf(t, acme, "globex")["tls_pin_previous"]
		return !still
	})
	if f := peerFileOf(t, acme, "globex"); f["tls_pin"] != newPin {
		t.Fatalf("acme's pin for globex: %v", f["tls_pin"])
	}
	// globex took its new certificate up while serving: calls go on.
	waitFor(t, 30*time.Second, "globex never switched to its new certificate", func() bool {
		return strings.Contains(globex.log.String(), `"msg":"TLS certificate switched"`)
	})
	if err := acmeCallsGlobex(acme); err != nil {
		t.Fatalf("a call to globex under its new certificate: %v", err)
	}
	// The old certificate, back at globex's address, is refused now, an
	// hour before the overlap would have ended.
	globex.signal(syscall.SIGTERM)
	globex.wait(60 * time.Second)
	os.WriteFile(gateway.Dir(globex.dir).TLSCertPath(), certPEM, 0o644)
	os.WriteFile(gateway.Dir(globex.dir).TLSKeyPath(), keyPEM, 0o600)
	globex.start()
	if err := acmeCallsGlobex(acme); codeOf(err) != string(wire.ErrAuthFailed) || !strings.Contains(err.Error(), oldPin) {
		t.Fatalf("a call to the revoked certificate: %v", err)
	}
}

// acmeCallsGlobex is one call of acme's client to globex's echo.
func acmeCallsGlobex(acme *org) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, _, err := call(ctx, acme.client(), "client", "echo@globex", "echo", `{"text":"hello"}`)
	return err
}
