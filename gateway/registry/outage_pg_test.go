package registry

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/moltgate/moltgate/directory"
	"github.com/moltgate/moltgate/directory/pgstore"
	"github.com/moltgate/moltgate/gateway/pipeline"
	"github.com/moltgate/moltgate/internal/outage"
	"github.com/moltgate/moltgate/internal/pgtest"
	"github.com/moltgate/moltgate/wire"
)

// PostgreSQL stopped while serving: registrations fail with the code a full
// SQLite disk gives (E_STORAGE_UNAVAILABLE), the failure is logged at
// ERROR as "database unreachable", counted, and the directory is reported
// failing until the server is back and a write goes through. The server is
// a real one, stopped and started again.
func TestDatabaseOutageIsReported(t *testing.T) {
	c := pgtest.NewCluster(t)
	ctx := context.Background()
	db, err := sql.Open("pgx", c.DSN)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	st, err := pgstore.New(ctx, db, directory.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	var (
		mu     sync.Mutex
		log    bytes.Buffer
		counts = map[string]int{}
	)
	w := outage.New(outage.Config{Log: slog.New(slog.NewJSONHandler(lockedBuffer{&mu, &log}, nil)),
		Count: func(store, cause string) { mu.Lock(); counts[store+"/"+cause]++; mu.Unlock() }})
	r := newRig(t, func(cfg *Config) { cfg.Store = outage.WatchStore(st, w) })
	register := func(i int) error {
		pr := &wire.Profile{AgentID: fmt.Sprintf("agent%d", i), Name: "agent", Description: "an agent",
			Endpoint: &wire.Endpoint{URL: "https://acme.example/m", Transport: "https"}, PublicKey: r.org.Signing.Public(),
			Capabilities: []string{"some.cap"}, Visibility: "public"}
		rctx, cancel := context.WithTimeout(ctx, 20*time.Second)
		defer cancel()
		_, err := r.s.RegisterAsOrg(rctx, &wire.RegisterPayload{Action: "create", Profile: pr})
		return err
	}
	if err := register(0); err != nil {
		t.Fatalf("registration with the database up: %v", err)
	}

	c.Stop()
	err = register(1)
	if c := pipeline.Code(err); c != wire.ErrStorageUnavailable {
		t.Fatalf("registration with the database stopped: %v, want E_STORAGE_UNAVAILABLE", err)
	}
	f := w.Failing()
	if len(f) != 1 || f[0].Store != outage.Directory || f[0].Cause != outage.Unreachable {
		t.Fatalf("failing stores %+v, want the directory, database unreachable (%v)", f, err)
	}
	mu.Lock()
	text, counted := log.String(), counts["directory/"+outage.Unreachable]
	mu.Unlock()
	if !strings.Contains(text, `"level":"ERROR"`) || !strings.Contains(text, `"cause":"database unreachable"`) {
		t.Fatalf("log of the failure: %s", text)
	}
	if counted < 1 {
		t.Fatalf("failures counted %v", counts)
	}

	c.Start()
	deadline := time.Now().Add(30 * time.Second)
	for i := 2; ; i++ {
		err := register(i)
		if err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("registration after the database came back: %v", err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if f := w.Failing(); len(f) != 0 {
		t.Fatalf("still failing after a write went through: %+v", f)
	}
}
