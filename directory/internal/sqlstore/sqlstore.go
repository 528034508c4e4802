// Package sqlstore implements directory.Store over database/sql, for both
// SQLite and PostgreSQL. The two backends share every query; what differs
// (placeholders, row locks, which errors are worth a retry, how writes are
// committed) is described by a Dialect and a Writer.
//
// Schema: directory_entries holds one row per agent@org, tombstones
// included; directory_caps indexes (capability, entry) so that discovery
// reads only the entries offering a capability; directory_peers holds the
// organisations an entry is restricted to; directory_liveness holds each
// agent's latest health and its uptime sums, and directory_liveness_hours
// one row per agent per observed hour.
package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/moltgate/moltgate/directory"
)

// Dialect describes what differs between the SQL databases.
type Dialect struct {
	Name string
	// Numbered placeholders ($1, $2, …) instead of ?.
	Numbered bool
	// LockRows appends FOR UPDATE to the reads of a write transaction.
	// SQLite needs none: its write transactions are exclusive.
	LockRows bool
	// CacheStatements keeps prepared statements (SQLite; pgx caches
	// them per connection already). The writing *sql.DB then needs a
	// second connection, on which statements are first prepared while the
	// first is inside a transaction.
	CacheStatements bool
}

// Store is a directory.Store on a SQL database.
type Store struct {
	w      Writer
	r      *sql.DB
	d      Dialect
	o      directory.Options
	closer func() error
	wcache *stmtCache // statements of wdb, or nil
	rcache *stmtCache // statements of r, or nil
}

// New returns a store that writes through w, whose transactions are on
// wdb, and reads from r. The schema must be migrated already. Close calls
// closer.
func New(w Writer, wdb, r *sql.DB, d Dialect, o directory.Options, closer func() error) *Store {
	s := &Store{w: w, r: r, d: d, o: o.WithDefaults(), closer: closer}
	if d.CacheStatements {
		s.wcache = newStmtCache(wdb)
		s.rcache = newStmtCache(r)
	}
	return s
}

// Close closes the writer, then calls the closer given to New.
func (s *Store) Close() error {
	err := s.w.Close()
	if s.wcache != nil {
		s.wcache.close()
		s.rcache.close()
	}
	if s.closer != nil {
		err = errors.Join(err, s.closer())
	}
	return err
}

// Ping implements directory.Store. It reads from a table of the
// directory's schema, not just the connection: a database that answers but
// was never migrated, or lost its tables, does not serve the directory.
func (s *Store) Ping(ctx context.Context) error {
	var n int
	if err := s.rconn().scanRow(ctx, `SELECT COUNT(*) FROM (SELECT 1 FROM directory_caps LIMIT 1) t`, nil, &n); err != nil {
		return fmt.Errorf("ping directory database: %w", err)
	}
	return nil
}

// wconn runs statements in the write transaction tx.
func (s *Store) wconn(tx *sql.Tx) conn { return conn{cache: s.wcache, tx: tx} }

// rconn runs statements on the read pool.
func (s *Store) rconn() conn { return conn{cache: s.rcache, db: s.r} }

func (s *Store) now() int64 { return s.o.Now().UnixMilli() }

// q rewrites ? placeholders for the dialect. Queries never contain a
// literal question mark.
func (s *Store) q(query string) string {
	if !s.d.Numbered {
		return query
	}
	var b strings.Builder
	b.Grow(len(query) + 16)
	n := 0
	for i := 0; i < len(query); i++ {
		if query[i] == '?' {
			n++
			b.WriteByte('$')
			b.WriteString(strconv.Itoa(n))
			continue
		}
		b.WriteByte(query[i])
	}
	return b.String()
}

func (s *Store) forUpdate() string {
	if s.d.LockRows {
		return " FOR UPDATE"
	}
	return ""
}

// ms converts a time to the stored unix milliseconds; the zero time is 0.
func ms(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixMilli()
}

// fromMs is the inverse of ms.
func fromMs(v int64) time.Time {
	if v == 0 {
		return time.Time{}
	}
	return time.UnixMilli(v)
}

// placeholders returns "?, ?, …" for n values.
func placeholders(n int) string {
	return strings.TrimSuffix(strings.Repeat("?, ", n), ", ")
}
