package gateway

import (
	"context"
	"database/sql"
	"fmt"
	"log/slog"
	"path/filepath"

	"github.com/moltgate/moltgate/audit"
	"github.com/moltgate/moltgate/gateway/trail"
)

// AuditFileName is the audit ledger's file in the data directory when the
// gateway keeps its state in SQLite.
const AuditFileName = "audit.db"

// openAudit opens the ledger beside the gateway's other state: the SQLite
// file DATA/data/audit.db, or the tables of the PostgreSQL database the
// replicas share, so that they keep one chain.
func openAudit(d Dir, cfg *Config, db *sql.DB, log *slog.Logger, src audit.Config, stored func(error)) (*trail.Trail, error) {
	ctx := context.Background()
	var (
		l   *audit.Ledger
		err error
	)
	if db != nil {
		l, err = audit.OpenPostgres(ctx, db)
	} else {
		l, err = audit.OpenSQLite(ctx, filepath.Join(d.DataDir(), AuditFileName))
	}
	if err != nil {
		return nil, fmt.Errorf("audit ledger: %w", err)
	}
	var sink *audit.Sink
	if cfg.Audit.SinkURL != "" {
		if sink, err = audit.NewSink(audit.SinkConfig{URL: cfg.Audit.SinkURL, Log: log}); err != nil {
			l.Close()
			return nil, &ConfigError{Key: "audit.sink_url", Msg: err.Error()}
		}
	}
	return trail.New(trail.Config{Ledger: l, Sink: sink, Events: src, All: cfg.Audit.Decisions == AuditAll, Log: log, Stored: stored}), nil
}
