package gateway

import (
	"context"
	"encoding/json"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/moltgate/moltgate/localbridge"
)

// jumpClock is a clock that tests move forward; safe for the gateway's
// goroutines to read.
type jumpClock struct{ offset atomic.Int64 }

func (c *jumpClock) now() time.Time            { return time.Now().Add(time.Duration(c.offset.Load())) }
func (c *jumpClock) jump(d time.Duration)      { c.offset.Add(int64(d)) }
func (c *jumpClock) Now() func() time.Time     { return c.now }
func (c *jumpClock) since(t0 time.Time) string { return c.now().Sub(t0).Round(time.Hour).String() }

// TestCertRenewal: two gateways keep calling each other beyond cert_ttl,
// because each issues its own and its agents' certificates again once half
// of their time has passed.
func TestCertRenewal(t *testing.T) {
	clk := &jumpClock{}
	t0 := clk.now()
	da, la := newTestDir(t, "acme", AddAgentOptions{ID: "client", MaxCls: "pii"})
	db, lb := newTestDir(t, "globex", AddAgentOptions{ID: "echo", Capabilities: []string{"echo.text"}, QueryTool: "echo", MaxCls: "pii"})
	trustEachOther(t, da, db, "pii")
	acme := startWith(t, da, la, TransportWebSocket, Options{Now: clk.Now()})
	globex := startWith(t, db, lb, TransportWebSocket, Options{Now: clk.Now()})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	call := func() error {
		_, err := acme.s.local.Query(ctx, localbridge.QueryRequest{From: "client", To: "echo@globex", Tool: "echo",
			Input: json.RawMessage(`{"text":"still here"}`)}, nil)
		return err
	}
	if err := call(); err != nil {
		t.Fatalf("first call: %v", err)
	}
	ttl := acme.s.cfg.Security.CertTTL.D()
	oldGW, oldAgent := acme.s.keys.Load().Cert, acme.s.roster.Agent("client")
	if got := time.Duration(oldGW.Expires-oldGW.IssuedAt) * time.Millisecond; got < ttl {
		t.Fatalf("gateway certificate valid for %v, want cert_ttl %v", got, ttl)
	}

	// Before half of cert_ttl, nothing is renewed.
	clk.jump(ttl/2 - time.Hour)
	acme.s.keySwitch.Renew(ctx)
	if acme.s.keys.Load().Cert != oldGW || acme.s.roster.Agent("client") != oldAgent {
		t.Fatal("certificates renewed before half of their time")
	}

	// Past half, everything is.
	clk.jump(2 * time.Hour)
	acme.s.keySwitch.Renew(ctx)
	globex.s.keySwitch.Renew(ctx)
	newGW, newAgent := acme.s.keys.Load().Cert, acme.s.roster.Agent("client")
	if newGW == oldGW || newGW.Expires <= oldGW.Expires {
		t.Fatal("gateway certificate not renewed")
	}
	if newAgent == oldAgent || newAgent.Cert.Expires <= oldAgent.Cert.Expires || newAgent.Caps[0].Attestation.Expires <= oldAgent.Caps[0].Attestation.Expires {
		t.Fatal("agent certificates not renewed")
	}
	if newAgent.Identity != oldAgent.Identity || newAgent.Spec != oldAgent.Spec {
		t.Fatal("renewal changed more than the certificates")
	}
	for _, g := range []*testGateway{acme, globex} {
		if !strings.Contains(g.logs(), "gateway certificate renewed") || !strings.Contains(g.logs(), "agent certificates renewed") {
			t.Fatalf("%s: renewal not logged", g.s.Org())
		}
	}

	// Past the first certificates' end: the sessions made under them
	// have ended, and new ones, made with the renewed certificates, carry
	// the call.
	clk.jump(ttl/2 + time.Hour)
	if now := clk.now().UnixMilli(); now <= oldGW.Expires || now <= oldAgent.Caps[0].Attestation.Expires {
		t.Fatalf("the clock (%s on) is not past the first certificates' end", clk.since(t0))
	}
	if err := call(); err != nil {
		t.Fatalf("call %s after start, past the first certificates' end: %v", clk.since(t0), err)
	}
}
