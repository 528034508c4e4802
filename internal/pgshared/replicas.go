package pgshared

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"time"
)

// ReplicaTTL is how long a replica counts as serving after its last
// heartbeat. Heartbeats come every ReplicaTTL/3.
const ReplicaTTL = 30 * time.Second

// replicaID names this process among the replicas: host, process id and a
// random part, so that a restarted process is a new replica and the old
// one's row ages out.
func replicaID() string {
	host, _ := os.Hostname()
	var r [4]byte
	rand.Read(r[:])
	return fmt.Sprintf("%s/%d/%s", host, os.Getpid(), hex.EncodeToString(r[:]))
}

// Heartbeat records that this replica is serving and counts the replicas
// that are, itself included. The count is kept: Replicas reports it while
// the database cannot be reached, which is when it matters, since each
// replica then limits on its own at its share of the shared limits.
func (s *Shared) Heartbeat(ctx context.Context) (int, error) {
	now := s.now()
	var n int
	err := s.db.QueryRowContext(ctx, `
		WITH beat AS (
			INSERT INTO moltgate_replicas (id, seen) VALUES ($1, $2)
			ON CONFLICT (id) DO UPDATE SET seen = EXCLUDED.seen
		)
		SELECT count(*) + 1 FROM moltgate_replicas WHERE id <> $1 AND seen > $3`,
		s.id, now, now.Add(-ReplicaTTL)).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("replica heartbeat: %w", err)
	}
	s.replicas.Store(int64(n))
	if _, err := s.db.ExecContext(ctx, `DELETE FROM moltgate_replicas WHERE seen < $1`, now.Add(-10*ReplicaTTL)); err != nil {
		return n, fmt.Errorf("replica heartbeat: %w", err)
	}
	return n, nil
}

// Replicas is how many replicas were serving at the last heartbeat, at
// least 1.
func (s *Shared) Replicas() int { return int(max(1, s.replicas.Load())) }

// Leave removes this replica's heartbeat, so that the others' shares grow
// at once rather than after ReplicaTTL.
func (s *Shared) Leave(ctx context.Context) error {
	if _, err := s.db.ExecContext(ctx, `DELETE FROM moltgate_replicas WHERE id = $1`, s.id); err != nil {
		return fmt.Errorf("replica leave: %w", err)
	}
	return nil
}
