// Package journal keeps a gateway's replay window in a SQLite file, so
// that the message ids it accepted outside sessions outlive a restart
// (replay.Durable reads them back at start).
//
// Each accepted id is one row, written in WAL mode with synchronous=FULL,
// so that an id acknowledged is on disk. Expired rows are deleted as new
// ones arrive, a batch at a time.
package journal

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"os"
	"strings"
	"sync/atomic"
	"time"

	_ "modernc.org/sqlite" // database/sql driver "sqlite"
)

// FileName is the journal's file in a gateway's data directory.
const FileName = "replay.db"

const schema = `
CREATE TABLE IF NOT EXISTS replay (
	ns      BLOB    NOT NULL,
	key     BLOB    NOT NULL,
	expires INTEGER NOT NULL,
	PRIMARY KEY (ns, key)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS replay_expires ON replay (expires);
`

// pruneEvery is how many records pass between deletions of expired rows.
const pruneEvery = 512

// Journal is a replay.Journal in a SQLite file.
type Journal struct {
	db      *sql.DB
	now     func() time.Time
	records atomic.Int64
}

// OpenSQLite opens (creating it with mode 0600 if needed) the journal at
// path. now is the clock that decides what has expired (nil: time.Now).
func OpenSQLite(ctx context.Context, path string, now func() time.Time) (*Journal, error) {
	if path == "" || strings.ContainsAny(path, "?#") {
		return nil, fmt.Errorf("open replay journal %q: the path must be non-empty and contain no ? or #", path)
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open replay journal: %w", err)
	}
	f.Close()
	db, err := sql.Open("sqlite", "file:"+(&url.URL{Path: path}).EscapedPath()+
		"?_pragma=journal_mode(WAL)&_pragma=synchronous(FULL)&_pragma=busy_timeout(10000)")
	if err != nil {
		return nil, fmt.Errorf("open replay journal: %w", err)
	}
	db.SetMaxOpenConns(1)
	if _, err := db.ExecContext(ctx, schema); err != nil {
		db.Close()
		return nil, fmt.Errorf("open replay journal %s: %w", path, err)
	}
	if now == nil {
		now = time.Now
	}
	return &Journal{db: db, now: now}, nil
}

// Record implements replay.Journal.
func (j *Journal) Record(ctx context.Context, ns, key string, expires time.Time) error {
	if _, err := j.db.ExecContext(ctx, `INSERT OR REPLACE INTO replay (ns, key, expires) VALUES (?, ?, ?)`,
		[]byte(ns), []byte(key), expires.UnixMilli()); err != nil {
		return fmt.Errorf("replay journal: %w", err)
	}
	if j.records.Add(1)%pruneEvery == 0 {
		if _, err := j.db.ExecContext(ctx, `DELETE FROM replay WHERE expires <= ?`, j.now().UnixMilli()); err != nil {
			return fmt.Errorf("replay journal: prune: %w", err)
		}
	}
	return nil
}

// Load implements replay.Journal; it deletes what has expired first.
func (j *Journal) Load(ctx context.Context, now time.Time, fn func(ns, key string, expires time.Time)) error {
	if _, err := j.db.ExecContext(ctx, `DELETE FROM replay WHERE expires <= ?`, now.UnixMilli()); err != nil {
		return fmt.Errorf("replay journal: prune: %w", err)
	}
	rows, err := j.db.QueryContext(ctx, `SELECT ns, key, expires FROM replay`)
	if err != nil {
		return fmt.Errorf("replay journal: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var ns, key []byte
		var exp int64
		if err := rows.Scan(&ns, &key, &exp); err != nil {
			return fmt.Errorf("replay journal: %w", err)
		}
		fn(string(ns), string(key), time.UnixMilli(exp))
	}
	return rows.Err()
}

// Close closes the file.
func (j *Journal) Close() error { return j.db.Close() }
