package gateway

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/moltgate/moltgate/directory"
	"github.com/moltgate/moltgate/directory/pgstore"
	"github.com/moltgate/moltgate/directory/sqlitestore"
	"github.com/moltgate/moltgate/handshake/replay/journal"
	"github.com/moltgate/moltgate/internal/pgshared"
	"github.com/moltgate/moltgate/wire"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	_ "github.com/jackc/pgx/v5/stdlib" // the PostgreSQL driver behind database/sql
)

// closeStorage closes what openStorage opened, when Open fails after it.
func (s *Server) closeStorage() {
	if s.audit != nil {
		s.audit.Close(context.Background())
	}
	s.store.Close()
	if s.replayJournal != nil {
		s.replayJournal.Close()
	}
	if s.db != nil {
		s.db.Close()
	}
}

// openStorage opens the directory store and, with PostgreSQL, the state
// shared with other replicas, on one connection pool.
func (s *Server) openStorage() error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	opts := directory.Options{Now: s.now}
	if s.cfg.Storage.Driver != "postgres" {
		st, err := sqlitestore.Open(ctx, filepath.Join(s.dir.DataDir(), "moltgate.db"), opts)
		if err != nil {
			return err
		}
		// The replay window outlives a restart: a signed message accepted
		// just before one must not be accepted again just after it.
		j, err := journal.OpenSQLite(ctx, filepath.Join(s.dir.DataDir(), journal.FileName), s.now)
		if err != nil {
			st.Close()
			return err
		}
		s.store, s.replayJournal = st, j
		return nil
	}
	dsn, key := s.cfg.Storage.DSN, "storage.dsn"
	if env := os.Getenv("MOLTGATE_POSTGRES_DSN"); env != "" {
		dsn, key = env, "MOLTGATE_POSTGRES_DSN"
	}
	if _, err := pgx.ParseConfig(dsn); err != nil {
		return &ConfigError{Key: key, Msg: "not a PostgreSQL connection string (postgres://USER@HOST:PORT/DB): " + dsnCause(err)}
	}
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		return fmt.Errorf("postgres: %w", err)
	}
	db.SetMaxOpenConns(32)
	st, err := pgstore.New(ctx, db, opts)
	if err != nil {
		db.Close()
		return databaseError(key, err)
	}
	if s.shared, err = pgshared.Open(ctx, db, s.now); err != nil {
		st.Close()
		db.Close()
		return databaseError(key, err)
	}
	s.store, s.db = st, db
	return nil
}

// dsnCause is why a connection string did not parse, without the string,
// which may hold a password.
func dsnCause(err error) string {
	var pe *pgconn.ParseConfigError
	if !errors.As(err, &pe) {
		return oneLine(err.Error())
	}
	msg := pe.Error()
	if i := strings.Index(msg, "`: "); i >= 0 {
		msg = msg[i+len("`: "):]
	}
	return oneLine(msg)
}

// databaseError says what stopped the gateway from using its PostgreSQL
// database, named by the setting key that gave it, in one line (the
// driver's errors span several). A server that refused the connection is
// the operator's to put right; one that could not be reached may come
// back.
func databaseError(key string, err error) error {
	var ce *pgconn.ConnectError
	if !errors.As(err, &ce) {
		return fmt.Errorf("postgres: %w", err)
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return &ConfigError{Key: key, Msg: "the database refused the connection: " + oneLine(pe.Message), Err: err}
	}
	return &wire.Error{Code: wire.ErrPeerUnavailable, Field: key, Message: "cannot reach the PostgreSQL database: " + oneLine(ce.Error()), Err: err}
}
