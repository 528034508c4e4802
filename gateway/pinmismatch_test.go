package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/moltgate/moltgate/localbridge"
	"github.com/moltgate/moltgate/wire"
)

// setPeerPin rewrites the TLS pin g holds for org in its peer file and
// reloads its peers, as an operator editing the file would.
func setPeerPin(t *testing.T, ctx context.Context, g *testGateway, org, pin string) {
	t.Helper()
	path := filepath.Join(g.dir.PeersDir(), org+".json")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var f map[string]any
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	f["tls_pin"] = pin
	if b, err = json.Marshal(f); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := g.s.ReloadPeers(ctx); err != nil {
		t.Fatal(err)
	}
}

// TestWrongTLSPinIsASecurityEvent: a peer whose address answers with a
// certificate other than its pin is not a passing fault. The gateway logs
// it at ERROR, naming the peer and both pins; the call fails with
// E_AUTH_FAILED and the way out (import the peer's document again), with
// no retry_after; a peer document with the right pin clears it; and no
// call goes to the peer from then on, not even a retry.
func TestWrongTLSPinIsASecurityEvent(t *testing.T) {
	for _, tr := range []string{TransportWebSocket, TransportGRPC, TransportHTTP} {
		t.Run(tr, func(t *testing.T) {
			acme, globex := twoGateways(t, tr)
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			right := acme.s.peers.Get("globex").Peer().TLSPin
			other := t.TempDir()
			wrong, err := WriteTLSCert(filepath.Join(other, "cert.pem"), filepath.Join(other, "key.pem"), "globex", []string{"127.0.0.1"}, time.Now())
			if err != nil {
				t.Fatal(err)
			}
			call := func() error {
				_, err := acme.s.local.Query(ctx, localbridge.QueryRequest{From: "client", To: "echo@globex", Tool: "echo",
					Input: json.RawMessage(`{"text":"x"}`)}, nil)
				return err
			}
			if err := call(); err != nil {
				t.Fatalf("call with the right pin: %v", err)
			}

			setPeerPin(t, ctx, acme, "globex", wrong)
			refused := func(what string) {
				t.Helper()
				err := call()
				var we *wire.Error
				if !errors.As(err, &we) || we.Code != wire.ErrAuthFailed || we.Field != "tls_pin" {
					t.Fatalf("%s: %v, want E_AUTH_FAILED at tls_pin\n%s", what, err, acme.logs())
				}
				if s := we.Suggestion; s == nil || s.Action == wire.ActionRetryAfter || s.DelayMS != 0 || !strings.Contains(s.Fix, "moltgate peer import") {
					t.Fatalf("%s: suggestion %v, want a new peer document and no retry_after", what, s)
				}
				if !strings.Contains(we.Message, wrong) || !strings.Contains(we.Message, right) {
					t.Fatalf("%s: %q names not both pins", what, we.Message)
				}
			}
			refused("a call to a peer that presents another certificate")
			events := func() int {
				n := 0
				for _, line := range strings.Split(acme.logs(), "\n") {
					if strings.Contains(line, `"level":"ERROR"`) && strings.Contains(line, `"peer":"globex"`) &&
						strings.Contains(line, `"expected_pin":"`+wrong+`"`) && strings.Contains(line, `"presented_pin":"`+right+`"`) {
						n++
					}
				}
				return n
			}
			if n := events(); n != 1 {
				t.Fatalf("%d ERROR lines naming globex and both pins, want 1\n%s", n, acme.logs())
			}
			// A peer document with the right pin (checked with the peer
			// out of band) clears it.
			setPeerPin(t, ctx, acme, "globex", right)
			if err := call(); err != nil {
				t.Fatalf("a call once the right pin is imported again: %v", err)
			}

			// Nor is the peer tried again once the pin failed: with
			// globex gone, the call still fails on the pin, not on an
			// address that does not answer, and is not logged again.
			setPeerPin(t, ctx, acme, "globex", wrong)
			refused("a call to a peer imported again with another pin")
			if n := events(); n != 2 {
				t.Fatalf("%d ERROR lines, want one more for the new peer document", n)
			}
			if err := globex.s.Shutdown(ctx); err != nil {
				t.Fatal(err)
			}
			refused("a call once the pin failed")
			if n := events(); n != 2 {
				t.Fatalf("the mismatch was logged %d times, want 2", n)
			}
		})
	}
}
