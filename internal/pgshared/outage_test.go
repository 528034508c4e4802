package pgshared

import (
	"context"
	"crypto/rand"
	"database/sql"
	"errors"
	"log/slog"
	"testing"
	"time"

	"github.com/moltgate/moltgate/handshake/replay"
	"github.com/moltgate/moltgate/internal/outage"
	"github.com/moltgate/moltgate/internal/pgtest"
	"github.com/moltgate/moltgate/keys"
	"github.com/moltgate/moltgate/pii/consent"
	"github.com/moltgate/moltgate/wire"
)

type trustKey keys.Ed25519Public

func (k trustKey) Trusts(org string, key keys.Ed25519Public) bool {
	return org == "acme" && key == keys.Ed25519Public(k)
}

// TestOutageAnswersOneCode stops a real PostgreSQL under every store the
// replicas share and checks that each refuses what it cannot check with
// the one code of a storage outage, E_STORAGE_UNAVAILABLE with
// retry_after: the replay window (a message and a handshake's challenge),
// the consent revocation list and the uses of one-time consents. Nothing
// is let through unchecked.
func TestOutageAnswersOneCode(t *testing.T) {
	c := pgtest.NewCluster(t)
	db, err := sql.Open("pgx", c.DSN)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	s, err := Open(ctx, db, nil)
	if err != nil {
		t.Fatal(err)
	}
	w := replay.New(replay.Config{Storage: s.Replay()})
	priv, err := keys.GenerateEd25519(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	pub := priv.Public()
	now := time.Now()
	claims := consent.Claims{ID: "6f9619ff-8b86-4d11-b42d-00c04fc964ff", GrantedBy: "user:jane", Grantee: "echo@globex",
		Purpose: "support", DataTypes: []string{"email"}, IssuedAt: now.Add(-time.Minute).UnixMilli(), Expires: now.Add(time.Hour).UnixMilli(),
		Constraints: &consent.Constraints{OneTime: true}}
	tok, err := consent.Issue(priv, claims)
	if err != nil {
		t.Fatal(err)
	}
	watch := outage.New(outage.Config{Log: slog.New(slog.DiscardHandler)})
	rev, sp := outage.WatchConsents(s, s, watch)
	v := &consent.Verifier{Trust: trustKey(pub), Revocations: rev, Spender: sp}
	req := consent.Request{Issuer: "acme", Grantee: wire.Ref{Agent: "echo", Org: "globex"}, Purpose: "support", Types: []string{"email"}}
	msg := func(id string) *wire.Message {
		return &wire.Message{ID: id, TS: time.Now().UnixMilli(), From: wire.Sender{Agent: "a", Org: "acme", Key: pub}}
	}
	if err := w.Check(ctx, msg("0e4b0c2a-7c1d-4a8e-9b3f-5d6e7f809a1b")); err != nil {
		t.Fatalf("with the database up: %v", err)
	}

	c.Stop()
	want := func(what string, err error) {
		t.Helper()
		var we *wire.Error
		if !errors.As(err, &we) || we.Code != wire.ErrStorageUnavailable {
			t.Fatalf("%s with the database stopped: %v, want E_STORAGE_UNAVAILABLE", what, err)
		}
		if s := we.Suggestion; s == nil || s.Action != wire.ActionRetryAfter || s.DelayMS <= 0 {
			t.Fatalf("%s: suggestion %+v, want retry_after with a delay", what, we.Suggestion)
		}
		if we.Code.HTTPStatus() != 503 || !we.Code.Recoverable() {
			t.Fatalf("%s: HTTP %d, recoverable %v", what, we.Code.HTTPStatus(), we.Code.Recoverable())
		}
	}
	want("a message outside a session", w.Check(ctx, msg("1e4b0c2a-7c1d-4a8e-9b3f-5d6e7f809a1b")))
	_, err = w.Challenge(ctx)
	want("a handshake's challenge", err)
	want("redeeming a challenge", w.Redeem(ctx, wire.Bytes32{1}))
	_, err = v.Verify(ctx, tok, req)
	want("a consent's revocation check", err)
	parsed, err := consent.Parse(tok)
	if err != nil {
		t.Fatal(err)
	}
	want("a one-time consent's use", v.Use(ctx, &parsed.Claims))
	if f := watch.Failing(); len(f) != 1 || f[0].Store != outage.Consents || f[0].Cause != outage.Unreachable {
		t.Fatalf("failing stores %+v, want the consent records, database unreachable", f)
	}

	c.Start()
	if _, err := v.Verify(ctx, tok, req); err != nil {
		t.Fatalf("the consent, with the database back: %v", err)
	}
	if err := v.Use(ctx, &parsed.Claims); err != nil {
		t.Fatalf("the consent's one use, refused while the database was stopped, with it back: %v", err)
	}
	if f := watch.Failing(); len(f) != 0 {
		t.Fatalf("still failing with the database back: %+v", f)
	}
}
