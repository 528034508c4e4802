package pgstore_test

import (
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" database/sql driver

	"github.com/moltgate/moltgate/directory"
	"github.com/moltgate/moltgate/directory/pgstore"
	"github.com/moltgate/moltgate/directory/storetest"
)

// baseDSN returns the test database's DSN, or skips the test when there is
// none, unless MOLTGATE_REQUIRE_POSTGRES=1 (as CI sets) makes that a failure.
func baseDSN(t testing.TB) string {
	dsn := os.Getenv("MOLTGATE_TEST_POSTGRES")
	if dsn == "" {
		if os.Getenv("MOLTGATE_REQUIRE_POSTGRES") == "1" {
			t.Fatal("MOLTGATE_REQUIRE_POSTGRES=1 but MOLTGATE_TEST_POSTGRES is not set")
		}
		t.Skip("MOLTGATE_TEST_POSTGRES is not set: the PostgreSQL backend is not tested " +
			"(run under .ci/postgres.sh, or set it to a database DSN)")
	}
	return dsn
}

// freshSchema creates an empty schema for one test, drops it afterwards,
// and returns a DSN whose search_path points at it.
func freshSchema(t testing.TB) string {
	dsn := baseDSN(t)
	admin, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { admin.Close() })
	b := make([]byte, 6)
	rand.Read(b)
	schema := "dirtest_" + hex.EncodeToString(b)
	if _, err := admin.Exec("CREATE SCHEMA " + schema); err != nil {
		t.Fatalf("create schema: %v", err)
	}
	t.Cleanup(func() {
		if _, err := admin.Exec("DROP SCHEMA " + schema + " CASCADE"); err != nil {
			t.Errorf("drop schema: %v", err)
		}
	})
	return withSearchPath(t, dsn, schema)
}

func withSearchPath(t testing.TB, dsn, schema string) string {
	if !strings.Contains(dsn, "://") {
		return dsn + " search_path=" + schema
	}
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatalf("parse MOLTGATE_TEST_POSTGRES: %v", err)
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String()
}

func TestConformance(t *testing.T) {
	baseDSN(t)
	storetest.Run(t, func(t *testing.T) func(directory.Options) directory.Store {
		dsn := freshSchema(t)
		return func(o directory.Options) directory.Store {
			s, err := pgstore.Open(t.Context(), dsn, o)
			if err != nil {
				t.Fatalf("Open: %v", err)
			}
			return s
		}
	})
}

// TestReplicasStartTogether opens several stores on one empty schema at
// once, as replicas of a gateway do when deployed: the migration runs
// once and every replica works.
func TestReplicasStartTogether(t *testing.T) {
	dsn := freshSchema(t)
	const replicas = 4
	stores := make([]*pgstore.Store, replicas)
	var wg sync.WaitGroup
	errs := make([]error, replicas)
	for i := range replicas {
		wg.Add(1)
		go func() {
			defer wg.Done()
			stores[i], errs[i] = pgstore.Open(t.Context(), dsn, directory.Options{})
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("replica %d: %v", i, err)
		}
		defer stores[i].Close()
	}
	e := storetest.NewEntry(time.Now(), "agent", "acme", "x.y")
	if _, err := stores[0].Put(t.Context(), e, directory.PutOptions{}); err != nil {
		t.Fatal(err)
	}
	for i, s := range stores {
		if _, err := s.Get(t.Context(), e.ID(), directory.Viewer{}); err != nil {
			t.Errorf("replica %d: %v", i, err)
		}
	}
}

// TestSharedDB uses a database handle owned by the caller; Close leaves it
// open.
func TestSharedDB(t *testing.T) {
	dsn := freshSchema(t)
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	s, err := pgstore.New(t.Context(), db, directory.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := db.Ping(); err != nil {
		t.Errorf("Close closed the caller's database: %v", err)
	}
	var version int
	if err := db.QueryRow("SELECT MAX(version) FROM directory_schema").Scan(&version); err != nil || version < 1 {
		t.Errorf("schema version %d, %v", version, err)
	}
}

// TestNewerSchemaRefused: a binary must not write to a schema newer than
// it knows.
func TestNewerSchemaRefused(t *testing.T) {
	dsn := freshSchema(t)
	s, err := pgstore.Open(t.Context(), dsn, directory.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec("INSERT INTO directory_schema (version, applied_at) VALUES (999, 0)"); err != nil {
		t.Fatal(err)
	}
	if _, err := pgstore.Open(t.Context(), dsn, directory.Options{}); err == nil || !strings.Contains(err.Error(), "newer") {
		t.Errorf("Open on a newer schema: %v", err)
	}
}
