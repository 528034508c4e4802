package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Migrate brings the directory's tables up to the newest version in
// fsys, whose files are named NNNN_description.sql and applied in order,
// each once, all in one transaction. lockSQL, run first in that
// transaction, keeps concurrent migrators apart where beginning a write
// transaction does not (PostgreSQL's advisory lock); it may be empty.
// A database newer than fsys is refused: an older binary must not write to
// a schema it does not know.
func Migrate(ctx context.Context, db *sql.DB, d Dialect, fsys fs.FS, lockSQL string) error {
	files, err := fs.Glob(fsys, "*.sql")
	if err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	type step struct {
		version int
		name    string
	}
	var steps []step
	for _, f := range files {
		num, _, ok := strings.Cut(path.Base(f), "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil || v <= 0 {
			return fmt.Errorf("migrate: bad migration name %q", f)
		}
		steps = append(steps, step{v, f})
	}
	slices.SortFunc(steps, func(a, b step) int { return a.version - b.version })
	for i := range steps {
		if steps[i].version != i+1 {
			return fmt.Errorf("migrate: migrations must be numbered 1, 2, 3…; found %q", steps[i].name)
		}
	}
	latest := len(steps)

	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("migrate: begin: %w", err)
	}
	defer tx.Rollback()
	if lockSQL != "" {
		if _, err := tx.ExecContext(ctx, lockSQL); err != nil {
			return fmt.Errorf("migrate: lock: %w", err)
		}
	}
	if _, err := tx.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS directory_schema (
	version    INTEGER PRIMARY KEY,
	applied_at BIGINT NOT NULL
)`); err != nil {
		return fmt.Errorf("migrate: create version table: %w", err)
	}
	var current int
	if err := tx.QueryRowContext(ctx, `SELECT COALESCE(MAX(version), 0) FROM directory_schema`).Scan(&current); err != nil {
		return fmt.Errorf("migrate: read version: %w", err)
	}
	if current > latest {
		return fmt.Errorf("migrate: the directory schema is at version %d, newer than this program knows (%d)", current, latest)
	}
	for _, st := range steps[current:] {
		body, err := fs.ReadFile(fsys, st.name)
		if err != nil {
			return fmt.Errorf("migrate: %w", err)
		}
		if _, err := tx.ExecContext(ctx, string(body)); err != nil {
			return fmt.Errorf("migrate: apply %s: %w", st.name, err)
		}
		q := `INSERT INTO directory_schema (version, applied_at) VALUES (?, ?)`
		if d.Numbered {
			q = `INSERT INTO directory_schema (version, applied_at) VALUES ($1, $2)`
		}
		if _, err := tx.ExecContext(ctx, q, st.version, time.Now().UnixMilli()); err != nil {
			return fmt.Errorf("migrate: record %s: %w", st.name, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("migrate: commit: %w", err)
	}
	return nil
}
