// Package sqlitestore keeps the directory in an embedded SQLite file, the
// default backend: one file in the gateway's data directory, no set-up, no
// cgo.
//
// The file is opened in WAL mode with full synchronous commits, so a
// write is on disk when Put returns and a crash (of the process or the
// machine) never leaves the file damaged. Writes go through one connection
// and are committed in groups (many concurrent writes share one sync);
// reads use a pool of read-only connections and never wait for writers.
// Memory is bounded by SQLite's page caches (see maxReaders), not by the
// number of entries.
// Several processes may open the same file: SQLite's locks serialise them
// and a busy timeout makes them wait rather than fail.
package sqlitestore

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"runtime"
	"strings"

	"github.com/moltgate/moltgate/directory"
	"github.com/moltgate/moltgate/directory/internal/sqlstore"

	_ "modernc.org/sqlite" // registers the "sqlite" database/sql driver
)

//go:embed migrations/*.sql
var migrations embed.FS

var dialect = sqlstore.Dialect{Name: "sqlite", CacheStatements: true}

// Memory: SQLite's page cache is 8 MiB on each of the two writing
// connections and 4 MiB on each reading one, of which there are
// GOMAXPROCS, at least 4 and at most maxReaders. That bounds the store's
// memory whatever the number of entries: 48 MiB with 4 readers, 80 at
// most.
const maxReaders = 16

// Store is a directory.Store in a SQLite file.
type Store struct {
	directory.Store
	w, r *sql.DB
	path string
}

// Open opens (creating it if needed, with mode 0600) the SQLite database
// at path and brings its schema up to date.
func Open(ctx context.Context, path string, o directory.Options) (*Store, error) {
	if path == "" || strings.ContainsAny(path, "?#") {
		return nil, fmt.Errorf("open directory database %q: the path must be non-empty and contain no ? or #", path)
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open directory database: %w", err)
	}
	f.Close()

	common := "&_pragma=busy_timeout(10000)&_pragma=foreign_keys(1)&_pragma=temp_store(memory)"
	w, err := sql.Open("sqlite", "file:"+escapePath(path)+
		"?_txlock=immediate&_pragma=journal_mode(WAL)&_pragma=synchronous(FULL)&_pragma=cache_size(-8192)"+common)
	if err != nil {
		return nil, fmt.Errorf("open directory database: %w", err)
	}
	// Writes run one transaction at a time (BatchWriter) instead of
	// contending for SQLite's write lock. The second connection only
	// prepares statements for the cache while the first is in a
	// transaction.
	w.SetMaxOpenConns(2)
	w.SetMaxIdleConns(2)
	if err := w.PingContext(ctx); err != nil {
		w.Close()
		return nil, fmt.Errorf("open directory database %s: %w", path, err)
	}
	sub, _ := fs.Sub(migrations, "migrations")
	if err := sqlstore.Migrate(ctx, w, dialect, sub, ""); err != nil {
		w.Close()
		return nil, fmt.Errorf("open directory database %s: %w", path, err)
	}
	r, err := sql.Open("sqlite", "file:"+escapePath(path)+"?_pragma=query_only(1)&_pragma=cache_size(-4096)"+common)
	if err != nil {
		w.Close()
		return nil, fmt.Errorf("open directory database: %w", err)
	}
	n := min(max(4, runtime.GOMAXPROCS(0)), maxReaders)
	r.SetMaxOpenConns(n)
	r.SetMaxIdleConns(n)
	s := &Store{w: w, r: r, path: path}
	s.Store = sqlstore.New(sqlstore.BatchWriter(w), w, r, dialect, o, func() error {
		return errors.Join(r.Close(), w.Close())
	})
	return s, nil
}

// escapePath makes path safe to put in a file: URI.
func escapePath(p string) string {
	return (&url.URL{Path: p}).EscapedPath()
}

// Check runs SQLite's integrity and foreign-key checks over the whole
// file and reports the first problem found.
func (s *Store) Check(ctx context.Context) error {
	var res string
	if err := s.r.QueryRowContext(ctx, "PRAGMA integrity_check").Scan(&res); err != nil {
		return fmt.Errorf("check directory database: %w", err)
	}
	if res != "ok" {
		return fmt.Errorf("check directory database: integrity: %s", res)
	}
	rows, err := s.r.QueryContext(ctx, "PRAGMA foreign_key_check")
	if err != nil {
		return fmt.Errorf("check directory database: %w", err)
	}
	defer rows.Close()
	if rows.Next() {
		return errors.New("check directory database: a foreign key is broken")
	}
	return rows.Err()
}

// Path returns the database file's path.
func (s *Store) Path() string { return s.path }
