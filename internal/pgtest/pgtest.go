// Package pgtest gives tests a PostgreSQL schema of their own in the
// database named by MOLTGATE_TEST_POSTGRES (which .ci/postgres.sh sets), so
// that tests running at once do not see each other's rows.
package pgtest

import (
	"database/sql"
	"fmt"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // database/sql driver "pgx"
)

var seq atomic.Int64

// DSN returns a connection string whose search_path is a fresh schema,
// dropped when the test ends. Without MOLTGATE_TEST_POSTGRES the test is
// skipped, or fails if MOLTGATE_REQUIRE_POSTGRES is set (as in CI).
func DSN(t testing.TB) string {
	t.Helper()
	dsn := os.Getenv("MOLTGATE_TEST_POSTGRES")
	if dsn == "" {
		if os.Getenv("MOLTGATE_REQUIRE_POSTGRES") != "" {
			t.Fatal("MOLTGATE_TEST_POSTGRES is not set")
		}
		t.Skip("no PostgreSQL: set MOLTGATE_TEST_POSTGRES (see .ci/postgres.sh)")
	}
	admin, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	schema := fmt.Sprintf("t_%d_%d", time.Now().UnixNano(), seq.Add(1))
	if _, err := admin.Exec("CREATE SCHEMA " + schema); err != nil {
		admin.Close()
		t.Fatal(err)
	}
	t.Cleanup(func() { admin.Exec("DROP SCHEMA " + schema + " CASCADE"); admin.Close() })
	sep := "?"
	if strings.Contains(dsn, "?") {
		sep = "&"
	}
	return dsn + sep + "search_path=" + schema
}

// DB opens a handle on DSN(t), closed when the test ends.
func DB(t testing.TB) *sql.DB {
	t.Helper()
	db, err := sql.Open("pgx", DSN(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}
