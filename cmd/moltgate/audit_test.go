package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/moltgate/moltgate/audit"
	"github.com/moltgate/moltgate/gateway"
	"github.com/moltgate/moltgate/identity"
	"github.com/moltgate/moltgate/merkle"
	"github.com/moltgate/moltgate/receipt"
	"github.com/moltgate/moltgate/wire"
)

func initGateway(t *testing.T, org string) gateway.Dir {
	t.Helper()
	dir := filepath.Join(t.TempDir(), org)
	if code, _, stderr := runCLI(t, context.Background(), "", "init", "--dir", dir, "--org", org, "--listen", "127.0.0.1:17443"); code != 0 {
		t.Fatalf("init %s: %s", org, stderr)
	}
	return gateway.Dir(dir)
}

func TestAuditVerifyAndShow(t *testing.T) {
	d := initGateway(t, "acme")
	ctx := context.Background()
	if code, _, stderr := runCLI(t, ctx, "", "audit", "verify", "--dir", string(d)); code != 1 || !strings.Contains(stderr, "no audit ledger at") {
		t.Fatalf("before any entry: exit %d, %q", code, stderr)
	}
	path := filepath.Join(d.DataDir(), auditFileName)
	l, err := audit.OpenSQLite(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	events := audit.Config{Source: "moltgate://acme"}
	for i, peer := range []string{"globex", "initech", "globex"} {
		ev, err := events.NewEvent(audit.TypeBlocked, fmt.Sprintf("m-%d", i), audit.Decision{Direction: "outbound", Op: "tool",
			From: "assistant@acme", To: "echo@" + peer, Peer: peer, Code: "E_CONSENT", Reason: "pii_without_consent", PIITypes: []string{"email"}})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := l.Append(ctx, ev); err != nil {
			t.Fatal(err)
		}
	}
	// An exchange kept whole: both decisions and the receipt (signed by
	// acme as callee, and by a caller acme has not imported).
	acmeOrg, err := gateway.LoadOrg(d, nil)
	if err != nil {
		t.Fatal(err)
	}
	globexOrg, err := identity.Generate(strings.NewReader(strings.Repeat("g", 256)), wire.Ref{Agent: "gateway", Org: "globex"})
	if err != nil {
		t.Fatal(err)
	}
	rc, err := signedReceipt(t, "m-3", acmeOrg, globexOrg).Marshal()
	if err != nil {
		t.Fatal(err)
	}
	x, err := events.NewEvent(audit.TypeExchange, "m-3", &audit.Exchange{Peer: "globex", Receipt: rc,
		Decisions: []audit.Decision{{Direction: "outbound", Op: "tool", MessageID: "m-3", Peer: "globex"}, {Direction: "inbound", Op: "respond", MessageID: "r-3", Peer: "globex"}}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := l.Append(ctx, x); err != nil {
		t.Fatal(err)
	}
	l.Close()

	code, stdout, stderr := runCLI(t, ctx, "", "audit", "verify", "--dir", string(d))
	if code != 0 || !strings.Contains(stdout, ": 4 entries") {
		t.Fatalf("audit verify: exit %d, %q %q", code, stdout, stderr)
	}
	code, stdout, _ = runCLI(t, ctx, "", "audit", "show", "--dir", string(d), "--peer", "globex")
	if code != 0 || !strings.Contains(stdout, "boundary.blocked") || !strings.Contains(stdout, "reason=pii_without_consent") ||
		!strings.Contains(stdout, "exchange") || !strings.Contains(stdout, "dir=outbound op=tool; dir=inbound op=respond; receipt=success") ||
		strings.Contains(stdout, "initech") || !strings.HasSuffix(stdout, "3 entries\n") {
		t.Fatalf("audit show --peer globex: exit %d\n%s", code, stdout)
	}
	code, stdout, _ = runCLI(t, ctx, "", "audit", "show", "--dir", string(d), "--json")
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	var ev audit.Event
	if code != 0 || len(lines) != 4 || json.Unmarshal([]byte(lines[0]), &ev) != nil || ev.SpecVersion != "1.0" {
		t.Fatalf("audit show --json: exit %d\n%s", code, stdout)
	}

	// An edit of one entry is found and named.
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`UPDATE audit_entries SET event = REPLACE(event, 'E_CONSENT', 'E_CONSENS') WHERE seq = 2`); err != nil {
		t.Fatal(err)
	}
	code, _, stderr = runCLI(t, ctx, "", "audit", "verify", "--dir", string(d))
	if code != 1 || !strings.Contains(stderr, "entry 2 ") || strings.Count(stderr, "\n") != 1 {
		t.Fatalf("after an edit: exit %d, %q; want exit 1 and one line naming entry 2", code, stderr)
	}
}

func TestReceiptVerify(t *testing.T) {
	ctx := context.Background()
	acme, globex := initGateway(t, "acme"), initGateway(t, "globex")
	var docs []string
	for _, d := range []gateway.Dir{acme, globex} {
		code, stdout, stderr := runCLI(t, ctx, "", "peer", "export", "--dir", string(d))
		if code != 0 {
			t.Fatal(stderr)
		}
		p := string(d) + ".peer.json"
		if err := os.WriteFile(p, []byte(stdout), 0o644); err != nil {
			t.Fatal(err)
		}
		docs = append(docs, p)
	}
	acmeOrg, err := gateway.LoadOrg(acme, nil)
	if err != nil {
		t.Fatal(err)
	}
	globexOrg, err := gateway.LoadOrg(globex, nil)
	if err != nil {
		t.Fatal(err)
	}
	digest := "sha256:" + strings.Repeat("0f", 32)
	r := &receipt.Receipt{Type: receipt.Type, Caller: "assistant@acme", Callee: "echo@globex", RequestID: "6b0f8a7e-1c2d-4e3f-8a9b-0c1d2e3f4a5b",
		ReplyID: "7c1f9b8f-2d3e-4f40-9bac-1d2e3f4a5b6c", RequestDigest: digest, ReplyDigest: digest,
		Outcome: receipt.OutcomeSuccess, TS: time.Now().UnixMilli()}
	leaf, err := r.Leaf()
	if err != nil {
		t.Fatal(err)
	}
	// Each side signs a batch: this receipt and another's leaf.
	other := merkle.LeafHash([]byte("another receipt"))
	callee, err := receipt.SignBatch(globexOrg.Signing, "globex", receipt.RoleCallee, time.Now().UnixMilli(), []merkle.Hash{other, leaf})
	if err != nil {
		t.Fatal(err)
	}
	caller, err := receipt.SignBatch(acmeOrg.Signing, "acme", receipt.RoleCaller, time.Now().UnixMilli(), []merkle.Hash{leaf, other, other})
	if err != nil {
		t.Fatal(err)
	}
	r.CalleeProof, r.CallerProof = &callee[1], &caller[0]
	b, _ := r.Marshal()

	code, stdout, stderr := runCLI(t, ctx, string(b), "receipt", "verify", "--peer-doc", docs[0], "--peer-doc", docs[1])
	if code != 0 || !strings.HasPrefix(stdout, "receipt verified: assistant@acme called echo@globex") {
		t.Fatalf("receipt verify: exit %d, %q %q", code, stdout, stderr)
	}
	// Without the caller's peer document the countersignature cannot be checked.
	code, _, stderr = runCLI(t, ctx, string(b), "receipt", "verify", "--peer-doc", docs[1])
	if code != 1 || !strings.Contains(stderr, "no org key for acme") {
		t.Fatalf("one peer document: exit %d, %q", code, stderr)
	}
	// Either signature altered: refused, naming it.
	for _, field := range []string{"callee_proof.root.sig", "caller_proof.root.sig"} {
		bad := *r
		if field == "callee_proof.root.sig" {
			p := *r.CalleeProof
			p.Root.Sig[5] ^= 1
			bad.CalleeProof = &p
		} else {
			p := *r.CallerProof
			p.Root.Sig[5] ^= 1
			bad.CallerProof = &p
		}
		bb, _ := bad.Marshal()
		code, _, stderr = runCLI(t, ctx, string(bb), "receipt", "verify", "--peer-doc", docs[0], "--peer-doc", docs[1])
		if code != 1 || !strings.Contains(stderr, field) {
			t.Errorf("%s altered: exit %d, %q", field, code, stderr)
		}
	}
	if code, _, stderr := runCLI(t, ctx, string(b), "receipt", "verify"); code != 2 || !strings.Contains(stderr, "--peer-doc is required") {
		t.Fatalf("no --peer-doc: exit %d, %q", code, stderr)
	}
	// A line of audit show --json: the receipt alone, or an exchange with
	// its decisions; a decision holds none.
	evc := audit.Config{Source: "moltgate://acme"}
	rcEv, _ := evc.NewEvent(audit.TypeReceipt, r.RequestID, audit.Raw(b))
	xEv, _ := evc.NewEvent(audit.TypeExchange, r.RequestID, &audit.Exchange{Peer: "globex", Receipt: b,
		Decisions: []audit.Decision{{Direction: "outbound", Op: "tool", MessageID: r.RequestID, Peer: "globex"}}})
	for _, ev := range []audit.Event{rcEv, xEv} {
		line, _ := json.Marshal(ev)
		code, stdout, stderr := runCLI(t, ctx, string(line), "receipt", "verify", "--peer-doc", docs[0], "--peer-doc", docs[1])
		if code != 0 || !strings.HasPrefix(stdout, "receipt verified: assistant@acme called echo@globex") {
			t.Fatalf("receipt verify of a %s event: exit %d, %q %q", ev.Type, code, stdout, stderr)
		}
	}
	decEv, _ := evc.NewEvent(audit.TypeAllowed, r.RequestID, audit.Decision{Direction: "outbound"})
	line, _ := json.Marshal(decEv)
	if code, _, stderr := runCLI(t, ctx, string(line), "receipt", "verify", "--peer-doc", docs[0], "--peer-doc", docs[1]); code != 2 ||
		!strings.Contains(stderr, "holds no receipt") {
		t.Fatalf("receipt verify of a decision: exit %d, %q", code, stderr)
	}
}
