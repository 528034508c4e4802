package main

import (
	"context"
	"encoding/json"
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

// signedReceipt is a receipt of a call from client@CALLER to echo@CALLEE,
// signed in a batch by each side's org key.
func signedReceipt(t *testing.T, id string, callee, caller *identity.Agent) *receipt.Receipt {
	t.Helper()
	digest := "sha256:" + strings.Repeat("0f", 32)
	r := &receipt.Receipt{Type: receipt.Type, Caller: "client@" + caller.Ref.Org, Callee: "echo@" + callee.Ref.Org, RequestID: id,
		ReplyID: id + "-reply", RequestDigest: digest, ReplyDigest: digest, Outcome: receipt.OutcomeSuccess, TS: time.Now().UnixMilli()}
	leaf, err := r.Leaf()
	if err != nil {
		t.Fatal(err)
	}
	other := merkle.LeafHash([]byte("another receipt"))
	ce, err := receipt.SignBatch(callee.Signing, callee.Ref.Org, receipt.RoleCallee, time.Now().UnixMilli(), []merkle.Hash{other, leaf})
	if err != nil {
		t.Fatal(err)
	}
	cr, err := receipt.SignBatch(caller.Signing, caller.Ref.Org, receipt.RoleCaller, time.Now().UnixMilli(), []merkle.Hash{leaf})
	if err != nil {
		t.Fatal(err)
	}
	r.CalleeProof, r.CallerProof = &ce[1], &cr[0]
	return r
}

// TestAuditVerifyChecksReceipts: audit verify checks both signatures of
// every receipt in the ledger, alone or in its exchange, with the keys the
// gateway holds (its own, its peers'), so that a ledger rebuilt link by
// link around a forged receipt is still caught, and named; a receipt of an
// organisation no longer imported is said to be unchecked.
func TestAuditVerifyChecksReceipts(t *testing.T) {
	ctx := context.Background()
	acme, globex := initGateway(t, "acme"), initGateway(t, "globex")
	doc, err := gateway.ExportPeer(globex, nil, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := gateway.ImportPeer(acme, doc, gateway.ImportOptions{Now: time.Now()}); err != nil {
		t.Fatal(err)
	}
	acmeOrg, err := gateway.LoadOrg(acme, nil)
	if err != nil {
		t.Fatal(err)
	}
	globexOrg, err := gateway.LoadOrg(globex, nil)
	if err != nil {
		t.Fatal(err)
	}
	stranger, err := identity.Generate(strings.NewReader(strings.Repeat("s", 256)), wire.Ref{Agent: "gateway", Org: "initech"})
	if err != nil {
		t.Fatal(err)
	}

	l, err := audit.OpenSQLite(ctx, filepath.Join(acme.DataDir(), auditFileName))
	if err != nil {
		t.Fatal(err)
	}
	evc := audit.Config{Source: "moltgate://acme"}
	appendReceipt := func(r *receipt.Receipt, whole bool) {
		t.Helper()
		b, err := r.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		ev, err := evc.NewEvent(audit.TypeReceipt, r.RequestID, audit.Raw(b))
		if whole {
			ev, err = evc.NewEvent(audit.TypeExchange, r.RequestID, &audit.Exchange{Peer: "globex", Receipt: b,
				Decisions: []audit.Decision{{Direction: "outbound", Op: "tool", MessageID: r.RequestID, Peer: "globex"}}})
		}
		if err != nil {
			t.Fatal(err)
		}
		if _, err := l.Append(ctx, ev); err != nil {
			t.Fatal(err)
		}
	}
	appendReceipt(signedReceipt(t, "q-1", globexOrg, acmeOrg), false) // acme called globex
	appendReceipt(signedReceipt(t, "q-2", acmeOrg, globexOrg), true)  // globex called acme
	appendReceipt(signedReceipt(t, "q-3", stranger, acmeOrg), false)  // a peer since removed
	l.Close()
	code, stdout, stderr := runCLI(t, ctx, "", "audit", "verify", "--dir", string(acme))
	if code != 0 || !strings.Contains(stdout, "3 receipts, both signatures of each hold") || !strings.Contains(stdout, "not checked: receipts signed by initech") {
		t.Fatalf("audit verify: exit %d, %q %q", code, stdout, stderr)
	}

	// Forged: the callee's signature of one receipt altered, the ledger's
	// links made anew around it, as whoever rewrote the whole file would.
	forged := signedReceipt(t, "q-4", globexOrg, acmeOrg)
	p := *forged.CalleeProof
	p.Root.Sig[9] ^= 1
	forged.CalleeProof = &p
	if l, err = audit.OpenSQLite(ctx, filepath.Join(acme.DataDir(), auditFileName)); err != nil {
		t.Fatal(err)
	}
	appendReceipt(forged, true)
	l.Close()
	code, _, stderr = runCLI(t, ctx, "", "audit", "verify", "--dir", string(acme))
	if code != 1 || !strings.Contains(stderr, "entry 4.0") || !strings.Contains(stderr, "request q-4") ||
		!strings.Contains(stderr, "callee_proof.root.sig") || strings.Count(stderr, "\n") != 1 {
		t.Fatalf("a forged receipt: exit %d, %q; want exit 1 and one line naming entry 4.0 and the signature", code, stderr)
	}
	// audit show still lists it, for the operator to look at.
	code, stdout, _ = runCLI(t, ctx, "", "audit", "show", "--dir", string(acme), "--json")
	if code != 0 || strings.Count(stdout, "\n") != 4 || !json.Valid([]byte(strings.Split(stdout, "\n")[3])) {
		t.Fatalf("audit show: exit %d\n%s", code, stdout)
	}
}
