package trail

import (
	"context"
	"crypto/rand"
	"database/sql"
	"errors"
	"log/slog"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // database/sql driver "pgx"

	"github.com/moltgate/moltgate/audit"
	"github.com/moltgate/moltgate/classify"
	"github.com/moltgate/moltgate/internal/outage"
	"github.com/moltgate/moltgate/internal/pgtest"
	"github.com/moltgate/moltgate/keys"
	"github.com/moltgate/moltgate/pii/consent"
	"github.com/moltgate/moltgate/wire"
)

// TestLedgerFailuresAreReported stops a real PostgreSQL under the ledger:
// the decisions it cannot commit are counted as failures of the audit
// ledger's storage, which the gateway's readiness check reports, and the
// first commit after the server is back ends the failure.
func TestLedgerFailuresAreReported(t *testing.T) {
	c := pgtest.NewCluster(t)
	db, err := sql.Open("pgx", c.DSN)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	ctx := context.Background()
	l, err := audit.OpenPostgres(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	counted := map[string]int{}
	mu := make(chan struct{}, 1) // guards counted: Count runs on the ledger's writer
	w := outage.New(outage.Config{Log: slog.New(slog.DiscardHandler), Count: func(store, cause string) {
		mu <- struct{}{}
		counted[store+"/"+cause]++
		<-mu
	}})
	a := New(Config{Ledger: l, Events: audit.Config{Source: "moltgate://acme"}, All: true, Log: quiet, Stored: outage.WatchAudit(w)})
	defer a.Close(ctx)
	m := &wire.Message{V: wire.Version, ID: "m1", Op: wire.OpQuery, From: wire.Sender{Agent: "client", Org: "acme"},
		To: wire.Ref{Agent: "echo", Org: "globex"}, Cls: wire.Pub}
	waitFor := func(what string, ok func() bool) {
		t.Helper()
		for deadline := time.Now().Add(time.Minute); !ok(); time.Sleep(20 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("%s: failing %+v", what, w.Failing())
			}
		}
	}
	committed := func() bool {
		n, err := l.Verify(ctx)
		return err == nil && n > 0
	}
	if err := a.Outbound(ctx, m, classify.Decision{Allow: true}); err != nil {
		t.Fatal(err)
	}
	waitFor("the first decision committed", committed)
	if f := w.Failing(); len(f) != 0 {
		t.Fatalf("failing with the database up: %+v", f)
	}

	c.Stop()
	if err := a.Outbound(ctx, m, classify.Decision{Allow: true}); err != nil {
		t.Fatal(err)
	}
	waitFor("the ledger reported failing", func() bool {
		f := w.Failing()
		return len(f) == 1 && f[0].Store == outage.Audit && f[0].Cause == outage.Unreachable
	})
	// Personal data under a consent leaves only once its transmission is
	// committed: with the ledger down, the call is refused as a storage
	// outage, retryable, whatever the backend.
	err = a.Outbound(ctx, piiMessage(t), classify.Decision{Allow: true, Types: []string{"email"}})
	var we *wire.Error
	if !errors.As(err, &we) || we.Code != wire.ErrStorageUnavailable || we.Suggestion == nil || we.Suggestion.Action != wire.ActionRetryAfter {
		t.Fatalf("personal data with the ledger down: %v, want %s with retry_after", err, wire.ErrStorageUnavailable)
	}
	mu <- struct{}{}
	n := counted[outage.Audit+"/"+outage.Unreachable]
	<-mu
	if n == 0 {
		t.Fatal("the failure was not counted")
	}

	c.Start()
	// Decisions go on coming, as they do to a gateway: the first commit
	// after the restart may still meet a connection the server cut.
	waitFor("the ledger working again", func() bool {
		if err := a.Outbound(ctx, m, classify.Decision{Allow: true}); err != nil {
			t.Fatal(err)
		}
		return len(w.Failing()) == 0
	})
}

// piiMessage is a query that carries an e-mail address under a consent
// signed by a fresh key.
func piiMessage(t *testing.T) *wire.Message {
	t.Helper()
	key, err := keys.GenerateEd25519(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	id, err := consent.NewID(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tok, err := consent.Issue(key, consent.Claims{ID: id, GrantedBy: "jane@acme", Grantee: "echo@globex",
		Purpose: "support", DataTypes: []string{"email"}, IssuedAt: now.UnixMilli(), Expires: now.Add(time.Hour).UnixMilli()})
	if err != nil {
		t.Fatal(err)
	}
	return &wire.Message{V: wire.Version, ID: "m2", Op: wire.OpQuery, From: wire.Sender{Agent: "client", Org: "acme"},
		To: wire.Ref{Agent: "echo", Org: "globex"}, Cls: wire.PII,
		PIIMeta: &wire.PIIMeta{Types: []string{"email"}, Consent: &wire.Consent{GrantedBy: "jane@acme", Purpose: "support", Proof: tok}}}
}
