// Package pgshared keeps the state that several replicas of one gateway must
// share in PostgreSQL: the replay window's ids and challenges, consent
// revocations and uses of one-time consents, and the token buckets of the
// rate limits. (The directory has
// its own tables, in package pgstore.)
//
// Every table is named moltgate_*, so the database can be the one the
// directory uses. The schema is created on Open under an advisory lock, so
// replicas that start together do not race.
package pgshared

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"sync"
	"sync/atomic"
	"time"
)

// schema is the state's tables. Version 1.
const schema = `
CREATE TABLE IF NOT EXISTS moltgate_replay (
	ns      bytea       NOT NULL, -- the window's namespaces and keys are binary
	key     bytea       NOT NULL,
	expires timestamptz NOT NULL,
	PRIMARY KEY (ns, key)
);
CREATE INDEX IF NOT EXISTS moltgate_replay_expires ON moltgate_replay (expires);
CREATE TABLE IF NOT EXISTS moltgate_revocations (
	id      text        PRIMARY KEY,
	expires timestamptz NOT NULL
);
CREATE TABLE IF NOT EXISTS moltgate_consent_spent (
	id      text        PRIMARY KEY,
	expires timestamptz NOT NULL
);
CREATE TABLE IF NOT EXISTS moltgate_rate (
	key     text             PRIMARY KEY,
	tokens  double precision NOT NULL,
	updated timestamptz      NOT NULL,
	taken   double precision NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS moltgate_replicas (
	id   text        PRIMARY KEY,
	seen timestamptz NOT NULL
);
`

// lockID is the advisory lock taken while creating the schema.
const lockID = 0x6d6f6c74 // "molt"

// Shared is the replicas' shared state on one database.
type Shared struct {
	db       *sql.DB
	now      func() time.Time
	id       string       // this replica's heartbeat row
	replicas atomic.Int64 // replicas serving at the last heartbeat
}

// Open creates the tables if needed. db is shared with the rest of the
// gateway and stays open when the gateway closes Shared. now is the clock;
// nil means time.Now.
func Open(ctx context.Context, db *sql.DB, now func() time.Time) (*Shared, error) {
	if now == nil {
		now = time.Now
	}
	conn, err := db.Conn(ctx)
	if err != nil {
		return nil, fmt.Errorf("open shared state: %w", err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, `SELECT pg_advisory_lock($1)`, lockID); err != nil {
		return nil, fmt.Errorf("open shared state: %w", err)
	}
	defer conn.ExecContext(context.WithoutCancel(ctx), `SELECT pg_advisory_unlock($1)`, lockID)
	if _, err := conn.ExecContext(ctx, schema); err != nil {
		return nil, fmt.Errorf("open shared state: create tables: %w", err)
	}
	s := &Shared{db: db, now: now, id: replicaID()}
	if _, err := s.Heartbeat(ctx); err != nil {
		return nil, fmt.Errorf("open shared state: %w", err)
	}
	return s, nil
}

// Replay returns the replay window's storage.
func (s *Shared) Replay() *Replay { return &Replay{s} }

// Replay is a replay.Storage in PostgreSQL: an id seen by one replica is
// refused by all.
type Replay struct{ s *Shared }

// Insert records key until expires; false if it is already recorded and
// unexpired.
func (r *Replay) Insert(ctx context.Context, ns, key string, expires time.Time) (bool, error) {
	// An expired row is as good as none: the conflict update revives it,
	// an unexpired one makes the statement return no row.
	row := r.s.db.QueryRowContext(ctx, `
		INSERT INTO moltgate_replay (ns, key, expires) VALUES ($1, $2, $3)
		ON CONFLICT (ns, key) DO UPDATE SET expires = EXCLUDED.expires
		WHERE moltgate_replay.expires <= $4
		RETURNING true`, []byte(ns), []byte(key), expires, r.s.now())
	var ok bool
	switch err := row.Scan(&ok); err {
	case nil:
		return true, nil
	case sql.ErrNoRows:
		return false, nil
	default:
		return false, fmt.Errorf("replay store: %w", err)
	}
}

// Take deletes key and reports whether it was recorded and unexpired.
func (r *Replay) Take(ctx context.Context, ns, key string) (bool, error) {
	row := r.s.db.QueryRowContext(ctx, `DELETE FROM moltgate_replay WHERE ns = $1 AND key = $2 RETURNING expires`, []byte(ns), []byte(key))
	var exp time.Time
	switch err := row.Scan(&exp); err {
	case nil:
		return exp.After(r.s.now()), nil
	case sql.ErrNoRows:
		return false, nil
	default:
		return false, fmt.Errorf("replay store: %w", err)
	}
}

// Revoked reports whether consent id has been revoked.
func (s *Shared) Revoked(ctx context.Context, id string) (bool, error) {
	var one int
	err := s.db.QueryRowContext(ctx, `SELECT 1 FROM moltgate_revocations WHERE id = $1`, id).Scan(&one)
	switch err {
	case nil:
		return true, nil
	case sql.ErrNoRows:
		return false, nil
	}
	return false, fmt.Errorf("revocations: %w", err)
}

// Revoke records that consent id is revoked. The record is kept until the
// consent would have expired anyway.
func (s *Shared) Revoke(ctx context.Context, id string, expires time.Time) error {
	_, err := s.db.ExecContext(ctx, `
		INSERT INTO moltgate_revocations (id, expires) VALUES ($1, $2)
		ON CONFLICT (id) DO UPDATE SET expires = GREATEST(moltgate_revocations.expires, EXCLUDED.expires)`, id, expires)
	if err != nil {
		return fmt.Errorf("revoke: %w", err)
	}
	return nil
}

// Spend records the use of one-time consent id and reports whether it was
// the first, on any replica: the insert that wins the primary key is the
// one use. The record is kept until the consent would have expired.
func (s *Shared) Spend(ctx context.Context, id string, expires time.Time) (bool, error) {
	res, err := s.db.ExecContext(ctx, `
		INSERT INTO moltgate_consent_spent (id, expires) VALUES ($1, $2) ON CONFLICT (id) DO NOTHING`, id, expires)
	if err != nil {
		return false, fmt.Errorf("spend consent: %w", err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return false, fmt.Errorf("spend consent: %w", err)
	}
	return n == 1, nil
}

// Prune deletes replay records, revocations and spent consents that no
// longer matter.
func (s *Shared) Prune(ctx context.Context) error {
	now := s.now()
	if _, err := s.db.ExecContext(ctx, `DELETE FROM moltgate_replay WHERE expires <= $1`, now); err != nil {
		return fmt.Errorf("prune: %w", err)
	}
	if _, err := s.db.ExecContext(ctx, `DELETE FROM moltgate_revocations WHERE expires <= $1`, now); err != nil {
		return fmt.Errorf("prune: %w", err)
	}
	if _, err := s.db.ExecContext(ctx, `DELETE FROM moltgate_consent_spent WHERE expires <= $1`, now); err != nil {
		return fmt.Errorf("prune: %w", err)
	}
	return nil
}

// Buckets are token buckets shared by the replicas. A round trip to the
// database for every message would cost more than handling it, so each
// replica leases a slice of a bucket's tokens at a time and spends them
// locally; the bucket's rate and burst hold across replicas to within one
// lease per replica.
type Buckets struct {
	s     *Shared
	rate  float64 // tokens per second
	burst float64
	lease float64

	mu     sync.Mutex
	leases map[string]float64 // tokens held locally per key
}

// Buckets returns token buckets of the given rate (per second) and burst.
func (s *Shared) Buckets(rate float64, burst int) *Buckets {
	lease := math.Max(1, math.Floor(float64(burst)/10))
	return &Buckets{s: s, rate: rate, burst: float64(burst), lease: lease, leases: map[string]float64{}}
}

// Rate is the buckets' rate in tokens a second, and Burst their size, for
// all replicas together.
func (b *Buckets) Rate() float64 { return b.rate }

// Burst is the buckets' size for all replicas together.
func (b *Buckets) Burst() int { return int(b.burst) }

// Replicas is how many replicas share the buckets, as of the last
// heartbeat.
func (b *Buckets) Replicas() int { return b.s.Replicas() }

// Allow takes one token for key. When none is left it reports how long
// until the bucket has a lease's worth again.
func (b *Buckets) Allow(ctx context.Context, key string) (bool, time.Duration, error) {
	b.mu.Lock()
	if b.leases[key] >= 1 {
		b.leases[key]--
		b.mu.Unlock()
		return true, 0, nil
	}
	b.mu.Unlock()
	// Refill the bucket for the time passed and take a lease in one
	// statement, so that replicas serialise on the row and never take the
	// same tokens twice. Every SET expression sees the old row.
	now := b.s.now()
	var got, left float64
	err := b.s.db.QueryRowContext(ctx, `
		INSERT INTO moltgate_rate (key, tokens, updated, taken)
		VALUES ($1::text, $2::float8 - LEAST($5::float8, $2::float8), $3::timestamptz, LEAST($5::float8, $2::float8))
		ON CONFLICT (key) DO UPDATE SET
			tokens = LEAST($2::float8, moltgate_rate.tokens + GREATEST(0, EXTRACT(EPOCH FROM ($3::timestamptz - moltgate_rate.updated))) * $4::float8)
				- CASE WHEN LEAST($2::float8, moltgate_rate.tokens + GREATEST(0, EXTRACT(EPOCH FROM ($3::timestamptz - moltgate_rate.updated))) * $4::float8) >= 1 THEN LEAST($5::float8, FLOOR(LEAST($2::float8, moltgate_rate.tokens + GREATEST(0, EXTRACT(EPOCH FROM ($3::timestamptz - moltgate_rate.updated))) * $4::float8))) ELSE 0 END,
			taken = CASE WHEN LEAST($2::float8, moltgate_rate.tokens + GREATEST(0, EXTRACT(EPOCH FROM ($3::timestamptz - moltgate_rate.updated))) * $4::float8) >= 1 THEN LEAST($5::float8, FLOOR(LEAST($2::float8, moltgate_rate.tokens + GREATEST(0, EXTRACT(EPOCH FROM ($3::timestamptz - moltgate_rate.updated))) * $4::float8))) ELSE 0 END,
			updated = GREATEST(moltgate_rate.updated, $3::timestamptz)
		RETURNING taken, tokens`, key, b.burst, now, b.rate, b.lease).Scan(&got, &left)
	if err != nil {
		return false, 0, fmt.Errorf("rate limit: %w", err)
	}
	if got < 1 {
		wait := time.Second
		if b.rate > 0 {
			wait = time.Duration((1 - left) / b.rate * float64(time.Second))
		}
		return false, max(wait, time.Millisecond), nil
	}
	b.mu.Lock()
	b.leases[key] += got - 1
	b.mu.Unlock()
	return true, 0, nil
}
