// Package pgstore keeps the directory in PostgreSQL, for an organisation
// that runs several replicas of its gateway: every replica opens the same
// database and sees every registration at once.
//
// Writes are transactions at READ COMMITTED that lock the entry they
// change; a transaction that loses a race (two replicas creating the same
// agent, a deadlock, a serialisation failure) is retried. Replicas starting
// together migrate the schema one at a time under an advisory lock. Tables
// are named directory_*, so the database may be shared with other parts of
// the gateway.
package pgstore

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/stdlib"

	"github.com/moltgate/moltgate/directory"
	"github.com/moltgate/moltgate/directory/internal/sqlstore"
)

//go:embed migrations/*.sql
var migrations embed.FS

var dialect = sqlstore.Dialect{Name: "postgres", Numbered: true, LockRows: true}

// migrationLock is the advisory lock key of the directory's migrations
// ("moltdir" in ASCII).
const migrationLock = 0x6d6f6c74646972

// Store is a directory.Store in PostgreSQL.
type Store struct {
	directory.Store
}

// Open connects to the database named by dsn (a postgres:// URL or
// key=value string, as libpq takes) and brings the directory's schema up
// to date. Close closes the connections.
func Open(ctx context.Context, dsn string, o directory.Options) (*Store, error) {
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("open directory database: %w", err)
	}
	db := stdlib.OpenDB(*cfg)
	s, err := newStore(ctx, db, o, db.Close)
	if err != nil {
		db.Close()
		return nil, err
	}
	return s, nil
}

// New uses db, a database/sql handle on the pgx driver shared with other
// parts of the gateway, and brings the directory's schema up to date.
// Close leaves db open.
func New(ctx context.Context, db *sql.DB, o directory.Options) (*Store, error) {
	return newStore(ctx, db, o, nil)
}

func newStore(ctx context.Context, db *sql.DB, o directory.Options, closer func() error) (*Store, error) {
	if err := db.PingContext(ctx); err != nil {
		return nil, fmt.Errorf("open directory database: %w", err)
	}
	sub, _ := fs.Sub(migrations, "migrations")
	lock := fmt.Sprintf("SELECT pg_advisory_xact_lock(%d)", migrationLock)
	if err := sqlstore.Migrate(ctx, db, dialect, sub, lock); err != nil {
		return nil, fmt.Errorf("open directory database: %w", err)
	}
	return &Store{Store: sqlstore.New(sqlstore.TxWriter(db, retryable), db, db, dialect, o, closer)}, nil
}

// retryable reports the failures a write transaction should be run again
// for: losing an insert race (unique_violation), serialization_failure
// and deadlock_detected.
func retryable(err error) bool {
	var pe *pgconn.PgError
	if !errors.As(err, &pe) {
		return false
	}
	switch pe.Code {
	case "23505", "40001", "40P01":
		return true
	}
	return false
}
