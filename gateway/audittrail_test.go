package gateway

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/moltgate/moltgate/audit"
	"github.com/moltgate/moltgate/localbridge"
	"github.com/moltgate/moltgate/pii/consent"
)

// ledgerEvents reads the events of a stopped gateway's ledger, after
// checking its chain.
func ledgerEvents(t *testing.T, d Dir) []audit.Event {
	t.Helper()
	ctx := context.Background()
	l, err := audit.OpenSQLite(ctx, filepath.Join(d.DataDir(), AuditFileName))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if _, err := l.Verify(ctx); err != nil {
		t.Fatalf("%s: %v", d, err)
	}
	entries, err := l.Entries(ctx, audit.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	out := make([]audit.Event, len(entries))
	for i, e := range entries {
		if err := json.Unmarshal(e.Event, &out[i]); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// find returns the events of type typ whose decision matches.
func find(evs []audit.Event, typ string, match func(audit.Decision) bool) []audit.Decision {
	var out []audit.Decision
	for _, ev := range evs {
		var d audit.Decision
		if ev.Type == typ && json.Unmarshal(ev.Data, &d) == nil && match(d) {
			out = append(out, d)
		}
	}
	return out
}

// auditedGateways are twoGateways with [audit] settings changed from
// their defaults (decisions = "blocked", receipts = false).
func auditedGateways(t *testing.T, settings ...string) (*testGateway, *testGateway) {
	t.Helper()
	da, la := newTestDir(t, "acme", AddAgentOptions{ID: "client", MaxCls: "pii"})
	db, lb := newTestDir(t, "globex", AddAgentOptions{ID: "echo", Capabilities: []string{"echo.text"}, QueryTool: "echo", MaxCls: "pii"})
	trustEachOther(t, da, db, "pii")
	for _, d := range []Dir{da, db} {
		for _, set := range settings {
			key, _, _ := strings.Cut(set, " = ")
			b, err := os.ReadFile(d.ConfigPath())
			if err != nil {
				t.Fatal(err)
			}
			for _, line := range strings.Split(string(b), "\n") {
				if strings.HasPrefix(line, key+" = ") {
					setConfig(t, d, line, set)
				}
			}
		}
	}
	return start(t, da, la, TransportWebSocket), start(t, db, lb, TransportWebSocket)
}

// TestAuditTrail: with decisions = "all", both gateways record each
// boundary decision on a call in their ledgers: personal data sent under a consent (allowed, and "PII
// transmitted" with the consent's id and the types), and personal data
// without one (blocked, and why), never the values; both chains verify.
func TestAuditTrail(t *testing.T) {
	acme, globex := auditedGateways(t, `decisions = "all"`)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	const email = "jane.doe@example.com"
	call := func(token string) error {
		_, err := acme.s.local.Query(ctx, localbridge.QueryRequest{From: "client", To: "echo@globex", Tool: "echo",
			Input: json.RawMessage(`{"text":"write to ` + email + `"}`), Consent: token}, nil)
		return err
	}
	if err := call(""); err == nil {
		t.Fatal("personal data without a consent left")
	}
	tok, err := acme.s.local.IssueConsent(ctx, localbridge.ConsentRequest{Grantee: "echo@globex", Purpose: "support", DataTypes: []string{"email"}, TTL: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	parsed, err := consent.Parse(tok)
	if err != nil {
		t.Fatal(err)
	}
	if err := call(tok); err != nil {
		t.Fatalf("with consent: %v", err)
	}
	for _, g := range []*testGateway{acme, globex} {
		if err := g.s.Shutdown(ctx); err != nil {
			t.Fatal(err)
		}
	}
	ae, ge := ledgerEvents(t, acme.dir), ledgerEvents(t, globex.dir)
	blocked := find(ae, audit.TypeBlocked, func(d audit.Decision) bool { return d.Direction == "outbound" && d.Op == "tool" })
	if len(blocked) != 1 || blocked[0].Reason != "pii_without_consent" || blocked[0].Code != "E_CONSENT" || !slices.Contains(blocked[0].PIITypes, "email") {
		t.Fatalf("acme's blocked call: %+v", blocked)
	}
	for _, side := range []struct {
		name, dir string
		evs       []audit.Event
	}{{"acme", "outbound", ae}, {"globex", "inbound", ge}} {
		isCall := func(d audit.Decision) bool {
			return d.Direction == side.dir && d.Op == "tool" && d.ConsentID == parsed.Claims.ID
		}
		if n := len(find(side.evs, audit.TypeAllowed, isCall)); n != 1 {
			t.Errorf("%s recorded %d allowed calls under the consent, want 1", side.name, n)
		}
		sent := find(side.evs, audit.TypePIITransmitted, isCall)
		if len(sent) != 1 || !slices.Contains(sent[0].PIITypes, "email") || sent[0].Peer == "" || sent[0].Class != "pii" {
			t.Errorf("%s's PII transmitted: %+v", side.name, sent)
		}
		for _, ev := range side.evs {
			if strings.Contains(string(ev.Data), "jane.doe") || ev.Source != "moltgate://"+side.name {
				t.Fatalf("%s's event %s holds a value or names another source", side.name, ev.Data)
			}
		}
	}
}

// TestAuditBlockedByDefault: by default the ledger holds what was refused
// and personal data that crossed, not every message allowed.
func TestAuditBlockedByDefault(t *testing.T) {
	acme, globex := twoGateways(t, TransportWebSocket)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if _, err := acme.s.local.Query(ctx, localbridge.QueryRequest{From: "client", To: "echo@globex", Tool: "echo", Input: json.RawMessage(`{"text":"hi"}`)}, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := acme.s.local.Query(ctx, localbridge.QueryRequest{From: "client", To: "echo@globex", Tool: "echo", Input: json.RawMessage(`{"text":"mail jane.doe@example.com"}`)}, nil); err == nil {
		t.Fatal("personal data without a consent left")
	}
	for _, g := range []*testGateway{acme, globex} {
		if err := g.s.Shutdown(ctx); err != nil {
			t.Fatal(err)
		}
	}
	ae, ge := ledgerEvents(t, acme.dir), ledgerEvents(t, globex.dir)
	if len(ae) != 1 || ae[0].Type != audit.TypeBlocked || len(ge) != 0 {
		t.Fatalf("acme's ledger %v, globex's %v: want the one block", ae, ge)
	}
}
