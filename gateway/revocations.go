package gateway

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/moltgate/moltgate/internal/pgshared"
	"github.com/moltgate/moltgate/pii/consent"
)

// RevocationList is a gateway's list of revoked consents.
type RevocationList interface {
	Revoke(ctx context.Context, id string, expires time.Time) error
	Revoked(ctx context.Context, id string) (bool, error)
}

// OpenRevocations opens the revocation list the gateway in d reads: a file
// in its data directory with SQLite, the shared table with PostgreSQL. The
// closer releases it.
func OpenRevocations(ctx context.Context, d Dir) (RevocationList, io.Closer, error) {
	cfg, err := d.ReadConfig()
	if err != nil {
		return nil, nil, err
	}
	if cfg.Storage.Driver != "postgres" {
		f, err := consent.OpenFile(filepath.Join(d.DataDir(), consent.FileName), nil)
		if err != nil {
			return nil, nil, err
		}
		return f, io.NopCloser(nil), nil
	}
	dsn := cfg.Storage.DSN
	if env := os.Getenv("MOLTGATE_POSTGRES_DSN"); env != "" {
		dsn = env
	}
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		return nil, nil, fmt.Errorf("postgres: %w", err)
	}
	sh, err := pgshared.Open(ctx, db, nil)
	if err != nil {
		db.Close()
		return nil, nil, fmt.Errorf("postgres: %w", err)
	}
	return sh, db, nil
}
