package e2e

import (
	"context"
	"crypto/rand"
	"crypto/tls"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/moltgate/moltgate/gateway"
	"github.com/moltgate/moltgate/handshake"
	"github.com/moltgate/moltgate/identity"
	"github.com/moltgate/moltgate/internal/tlspin"
	"github.com/moltgate/moltgate/keys"
	"github.com/moltgate/moltgate/wire"
)

// presentedPin is the pin of the TLS certificate o presents to a new
// connection.
func presentedPin(t *testing.T, o *org) string {
	t.Helper()
	c, err := tls.Dial("tcp", strings.TrimPrefix(o.doc.Endpoint, "https://"), &tls.Config{InsecureSkipVerify: true, MinVersion: tls.VersionTLS13})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	return tlspin.Of(c.ConnectionState().PeerCertificates[0])
}

// presentedKey runs a handshake with o as gateway@org of from, expecting
// o's gateway to present key, and returns the handshake's outcome.
func presentedKey(t *testing.T, from, o *org, key keys.Ed25519Public) error {
	t.Helper()
	gw, err := gateway.LoadOrg(gateway.Dir(from.dir), nil)
	if err != nil {
		t.Fatal(err)
	}
	trust := identity.NewTrustStore()
	trust.Add(o.name, key)
	trust.Add(gw.Ref.Org, gw.Signing.Public())
	now := time.Now()
	cert, err := (&identity.Org{Name: gw.Ref.Org, Signing: gw.Signing}).IssueIdentity(gw.Public(), now.Add(-time.Minute), now.Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	cfg := &handshake.Config{Identity: gw, Cert: cert, Trust: trust, Codec: wire.NewCodec(wire.Limits{}), Rand: rand.Reader,
		Capabilities: []string{"query", "registry"}, Verifier: keys.NewVerifier(0)}
	// The handshake authenticates the gateway; TLS here only carries it.
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true, MinVersion: tls.VersionTLS13}}, Timeout: 20 * time.Second}
	defer client.CloseIdleConnections()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	_, err = handshake.NewInitiator(cfg, handshake.Peer{Ref: wire.Ref{Agent: gateway.GatewayAgent, Org: o.name}, Key: key}).
		Run(ctx, overHTTPS(client, o.doc.Endpoint))
	return err
}

// TestKeysRotatedWithoutRestart: globex rotates its org key and its TLS
// certificate while acme's agent calls it, and neither gateway restarts.
// Once the handovers have reached acme, globex presents the new key in
// new handshakes and the new certificate to new connections; the calls
// go on throughout, the one in flight at the rotation included; and after
// the overlap acme refuses the old key and the old certificate.
func TestKeysRotatedWithoutRestart(t *testing.T) {
	acme, globex, c, ctx := warmPair(t, 4*time.Minute)
	old, err := gateway.LoadOrg(gateway.Dir(globex.dir), nil)
	if err != nil {
		t.Fatal(err)
	}
	oldPin := globex.doc.TLSPin
	pid := globex.cmd.Process.Pid

	calls := startCalling(ctx, c)
	slow := slowCall(t, ctx, acme.client(), 4000)
	const overlap = 25 * time.Second
	out := mg(t, "key", "rotate", "--dir", globex.dir, "--overlap", overlap.String())
	rotated := time.Now()
	if strings.Contains(out, "restart") {
		t.Fatalf("key rotate still asks for a restart:\n%s", out)
	}
	out = mg(t, "tls", "rotate", "--dir", globex.dir, "--overlap", overlap.String())
	if strings.Contains(out, "restart") {
		t.Fatalf("tls rotate still asks for a restart:\n%s", out)
	}
	nw, err := gateway.LoadOrg(gateway.Dir(globex.dir), nil)
	if err != nil {
		t.Fatal(err)
	}
	newPin := peerDocPin(t, globex)

	waitFor(t, 30*time.Second, "globex never switched to its new org key and certificate", func() bool {
		l := globex.log.String()
		return strings.Contains(l, `"msg":"org key switched"`) && strings.Contains(l, `"msg":"TLS certificate switched"`)
	})
	// acme had both handovers before globex switched.
	if p := pinOf(t, acme, "globex"); !(p.Next != nil && p.Next.Key.Equal(nw.Signing.Public())) && !p.Key.Equal(nw.Signing.Public()) {
		t.Fatalf("acme's pin when globex switched: %+v", p)
	}
	if got := presentedPin(t, globex); got != newPin {
		t.Fatalf("a new connection to globex is given pin %s, want the new %s", got, newPin)
	}
	if err := presentedKey(t, acme, globex, nw.Signing.Public()); err != nil {
		t.Fatalf("a new handshake with globex under its new key: %v", err)
	}
	if err := <-slow; err != nil {
		t.Fatalf("the call in flight at the rotation: %v", err)
	}
	n := calls.succeeded()
	waitFor(t, 30*time.Second, "calls stopped after globex switched", func() bool { return calls.succeeded() >= n+5 })

	// After the overlap, acme holds the new key and pin only, and the
	// calls still go on.
	waitFor(t, overlap+40*time.Second, "acme kept globex's old key or pin after the overlap", func() bool {
		p := pinOf(t, acme, "globex")
		_, prevPin := peerFileOf(t, acme, "globex")["tls_pin_previous"]
		return time.Since(rotated) > overlap && p.Key.Equal(nw.Signing.Public()) && p.Previous == nil && p.Next == nil && !prevPin
	})
	n = calls.succeeded()
	waitFor(t, 30*time.Second, "calls stopped after the overlap", func() bool { return calls.succeeded() >= n+5 })
	ok, failed := calls.end()
	if len(failed) > 0 {
		t.Fatalf("%d of %d calls failed across the rotation, the first: %v", len(failed), ok+len(failed), failed[0])
	}
	t.Logf("%d calls across the rotation of globex's org key and TLS certificate, none failed", ok)
	if f := peerFileOf(t, acme, "globex"); f["org_key"] != nw.Signing.Public().String() || f["tls_pin"] != newPin {
		t.Fatalf("acme's peer file of globex: %v", f)
	}

	// The old key is refused: a handshake and a message certified under it.
	if err := handshakeAs(t, old, acme); err == nil || !strings.Contains(err.Error(), "pinned") {
		t.Fatalf("a handshake under the old key after the overlap: %v", err)
	}
	thief := certifiedBy(t, old.Signing, globex, acme)
	if a := thief.post(thief.sealedPing("client")); a.code() != wire.ErrAuthFailed {
		t.Fatalf("a message certified by the old key after the overlap: %d %q", a.status, a.code())
	}
	if globex.cmd.Process.Pid != pid || strings.Count(globex.log.String(), `"msg":"gateway serving"`) != 1 {
		t.Fatal("globex restarted")
	}
	if oldPin == newPin {
		t.Fatal("the pin did not change")
	}
	stillServing(t, acme)
}

// peerDocPin is the TLS pin o's peer document names now.
func peerDocPin(t *testing.T, o *org) string {
	t.Helper()
	doc, err := gateway.ParsePeerDoc([]byte(mg(t, "peer", "export", "--dir", o.dir)))
	if err != nil {
		t.Fatal(err)
	}
	return doc.TLSPin
}
