package gateway

import (
	"net"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/moltgate/moltgate/directory"
	"github.com/moltgate/moltgate/internal/pgtest"
	"github.com/moltgate/moltgate/wire"
)

// Two replicas of one organisation's gateway, each opened on its own, on
// one PostgreSQL database: an agent registered through one is discovered
// through the other, attested by the organisation.
func TestDirectoryReplicasOnPostgres(t *testing.T) {
	dsn := pgtest.DSN(t)
	d1, l1 := newTestDir(t, "acme")
	d2, l2 := newTestDir(t, "acme")
	// The second replica holds the same org key (its TLS certificate is
	// its own).
	key, err := os.ReadFile(d1.OrgKeyPath())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(d2.OrgKeyPath(), key, 0o600); err != nil {
		t.Fatal(err)
	}
	usePostgres(t, d1, dsn)
	usePostgres(t, d2, dsn)
	a := start(t, d1, l1, TransportWebSocket)
	b := start(t, d2, l2, TransportWebSocket)
	if a.s.Config().Storage.Driver != "postgres" || a.s.self().Signing.Public() != b.s.self().Signing.Public() {
		t.Fatal("replicas not set up")
	}
	if _, p1, _ := net.SplitHostPort(a.s.cfg.Listen.Address); strings.HasSuffix(b.s.cfg.Listen.Address, ":"+p1) {
		t.Fatal("replicas share a port")
	}

	// An agent of acme registers itself through replica a.
	bot, cert := a.orgAgent("bot")
	pr := testProfile("", "calendar.schedule")
	st, _, body := a.do("POST", "/registry/v1/register", a.signed(bot, wire.OpRegister, &wire.RegisterPayload{Action: "create", Profile: pr, IdentityCert: cert}, false))
	if c, _ := a.answerOf(body); st != 200 || c != "" {
		t.Fatalf("register through a: %d %s", st, c)
	}
	// Replica b finds it, anonymously over HTTPS.
	st, _, body = b.do("POST", "/registry/v1/discover", []byte(`{"capability":"calendar.schedule"}`))
	if st != 200 || strings.Join(resultIDs(t, body), ",") != "bot@acme" {
		t.Fatalf("discover through b: %d %s", st, body)
	}
	v, err := wire.Parse(body, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := directory.VerifyAttestation(v.Get("results").Index(0), "acme", a.s.self().Signing.Public(), time.Now()); err != nil {
		t.Fatalf("b's attestation: %v", err)
	}
	// A change through b is seen through a: the agent deregisters.
	st, _, body = b.do("DELETE", "/registry/v1/agents/bot", b.signed(bot, wire.OpRegister, &wire.RegisterPayload{Action: "delete"}, false))
	if c, _ := b.answerOf(body); st != 200 || c != "" {
		t.Fatalf("deregister through b: %d %s", st, c)
	}
	st, _, body = a.do("GET", "/registry/v1/agents/bot", nil)
	if c, _ := a.answerOf(body); st != 404 || c != wire.ErrAgentNotFound {
		t.Fatalf("after deregistration, a answers %d %s", st, c)
	}
}
