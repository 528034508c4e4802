package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/moltgate/moltgate/directory"
)

// Uptime arithmetic is in integers so that adding an hour and pruning it
// later cancel exactly: an hour with ok up observations out of total
// contributes part(ok, total) parts per million to directory_liveness.up_sum,
// and up_hours counts the hours. uptime_ppm = up_sum / up_hours is kept for
// filtering and sorting.
const ppm = 1_000_000

const hourMs = int64(time.Hour / time.Millisecond)

func part(ok, total int64) int64 { return ok * ppm / total }

// The capability index carries a copy of each agent's health and
// uptime_ppm, so that search needs no other table to filter and sort its
// candidates. health is the search weight of the latest status in
// quarters (see directory.Query); 0 leaves the agent out of search. The
// copy is written with the entry, and again whenever a liveness record or
// a sweep changes it (syncHealth).
const weightFull = 4

func health(status string, observed bool) int64 {
	if !observed {
		return weightFull
	}
	switch st := directory.Status(status); {
	case !st.Searchable():
		return 0
	case st == directory.StatusDegraded:
		return 3
	case st == directory.StatusUnhealthy:
		return 2
	}
	return weightFull
}

// agentHealth reads health and uptime_ppm (-1 when never observed) of
// agent id, waiting for a liveness write in progress where rows are
// locked.
func (s *Store) agentHealth(ctx context.Context, c conn, id directory.ID) (h, uptime int64, err error) {
	lock := ""
	if s.d.LockRows {
		lock = " FOR SHARE"
	}
	var status string
	var up sql.NullInt64
	err = c.scanRow(ctx, s.q(`SELECT status, uptime_ppm FROM directory_liveness WHERE org = ? AND agent = ?`+lock),
		[]any{id.Org, id.Agent}, &status, &up)
	if errors.Is(err, sql.ErrNoRows) {
		return weightFull, -1, nil
	}
	if err != nil {
		return 0, 0, fmt.Errorf("read liveness of %s: %w", id, err)
	}
	if !up.Valid {
		up.Int64 = -1
	}
	return health(status, true), up.Int64, nil
}

// syncHealth copies an agent's health and uptime into the capability
// rows of its entry, if it has one, unless they hold them already.
func (s *Store) syncHealth(ctx context.Context, c conn, id directory.ID, status string, observed bool, uptime sql.NullInt64) error {
	var entry int64
	// No lock on the entry here: RecordLiveness holds it already, and a
	// sweep, which holds liveness rows, must not wait for it (locks are
	// taken in the order entry, liveness, index).
	err := c.scanRow(ctx, s.q(`SELECT id FROM directory_entries WHERE org = ? AND agent = ? AND removed = 0`),
		[]any{id.Org, id.Agent}, &entry)
	if errors.Is(err, sql.ErrNoRows) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("find entry %s: %w", id, err)
	}
	h, up := health(status, observed), int64(-1)
	if uptime.Valid {
		up = uptime.Int64
	}
	_, err = c.exec(ctx, s.q(`UPDATE directory_caps SET health = ?, uptime_ppm = ?
WHERE entry = ? AND (health <> ? OR uptime_ppm <> ?)`), h, up, entry, h, up)
	if err != nil {
		return fmt.Errorf("update capability index of %s: %w", id, err)
	}
	return nil
}

// RecordLiveness implements directory.Store.
func (s *Store) RecordLiveness(ctx context.Context, id directory.ID, h directory.Heartbeat) error {
	if err := h.Validate(); err != nil {
		return err
	}
	status, _ := directory.ParseStatus(string(h.Status))
	var up int64
	if status.Up() {
		up = 1
	}
	caps := encodeList(h.CapabilitiesActive)
	return s.w.Write(ctx, func(ctx context.Context, tx *sql.Tx) error {
		c := s.wconn(tx)
		now := s.now()
		at := ms(h.At)
		if at == 0 || at > now {
			at = now
		}
		if at <= now-int64(directory.UptimeWindow/time.Millisecond) {
			return directory.ErrStale
		}
		if s.d.LockRows {
			// Take the entry's lock before liveness, in the order Put
			// takes them, so that the copy in the capability index
			// cannot miss this write.
			var entry int64
			err := c.scanRow(ctx, s.q(`SELECT id FROM directory_entries WHERE org = ? AND agent = ? FOR UPDATE`),
				[]any{id.Org, id.Agent}, &entry)
			if err != nil && !errors.Is(err, sql.ErrNoRows) {
				return fmt.Errorf("record liveness of %s: %w", id, err)
			}
		}
		hour := at / hourMs
		var ok, total int64
		err := c.scanRow(ctx, s.q(`INSERT INTO directory_liveness_hours (org, agent, hour, ok, total)
VALUES (?, ?, ?, ?, 1)
ON CONFLICT (org, agent, hour) DO UPDATE SET ok = directory_liveness_hours.ok + excluded.ok,
	total = directory_liveness_hours.total + 1
RETURNING ok, total`), []any{id.Org, id.Agent, hour, up}, &ok, &total)
		if err != nil {
			return fmt.Errorf("record liveness of %s: %w", id, err)
		}
		// The change this observation made to the agent's sums.
		dSum, dHours := part(ok, total), int64(1)
		if total > 1 {
			dSum -= part(ok-up, total-1)
			dHours = 0
		}
		var first any // uptime_ppm of a new row
		if dHours > 0 {
			first = dSum / dHours
		}
		var latest string
		var uptime sql.NullInt64
		err = c.scanRow(ctx, s.q(`INSERT INTO directory_liveness (org, agent, status, load, queue_depth,
	capabilities_active, first_seen, last_seen, up_sum, up_hours, uptime_ppm)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
ON CONFLICT (org, agent) DO UPDATE SET
	status = CASE WHEN excluded.last_seen >= directory_liveness.last_seen THEN excluded.status ELSE directory_liveness.status END,
	load = CASE WHEN excluded.last_seen >= directory_liveness.last_seen THEN excluded.load ELSE directory_liveness.load END,
	queue_depth = CASE WHEN excluded.last_seen >= directory_liveness.last_seen THEN excluded.queue_depth ELSE directory_liveness.queue_depth END,
	capabilities_active = CASE WHEN excluded.last_seen >= directory_liveness.last_seen THEN excluded.capabilities_active ELSE directory_liveness.capabilities_active END,
	first_seen = CASE WHEN excluded.first_seen < directory_liveness.first_seen THEN excluded.first_seen ELSE directory_liveness.first_seen END,
	last_seen = CASE WHEN excluded.last_seen > directory_liveness.last_seen THEN excluded.last_seen ELSE directory_liveness.last_seen END,
	up_sum = directory_liveness.up_sum + excluded.up_sum,
	up_hours = directory_liveness.up_hours + excluded.up_hours,
	uptime_ppm = CASE WHEN directory_liveness.up_hours + excluded.up_hours > 0
		THEN (directory_liveness.up_sum + excluded.up_sum) / (directory_liveness.up_hours + excluded.up_hours) END
RETURNING status, uptime_ppm`),
			[]any{id.Org, id.Agent, string(status), h.Load, int64(h.QueueDepth), caps, at, at, dSum, dHours, first},
			&latest, &uptime)
		if err != nil {
			return fmt.Errorf("record liveness of %s: %w", id, err)
		}
		return s.syncHealth(ctx, c, id, latest, true, uptime)
	})
}

// livenessDest returns scan destinations for livenessCols (all nullable,
// from a LEFT JOIN) and a function that makes the Liveness, nil when the
// agent was never observed.
func livenessDest() ([]any, func() (*directory.Liveness, error)) {
	var status, caps sql.NullString
	var load sql.NullFloat64
	var queue, first, last, upSum, upHours sql.NullInt64
	dest := []any{&status, &load, &queue, &caps, &first, &last, &upSum, &upHours}
	return dest, func() (*directory.Liveness, error) {
		if !status.Valid {
			return nil, nil
		}
		l := &directory.Liveness{
			Status:        directory.Status(status.String),
			Load:          load.Float64,
			QueueDepth:    int(queue.Int64),
			FirstSeen:     fromMs(first.Int64),
			LastSeen:      fromMs(last.Int64),
			ObservedHours: int(upHours.Int64),
		}
		if upHours.Int64 > 0 {
			l.Uptime30d = float64(upSum.Int64) / float64(upHours.Int64*ppm)
		}
		if err := decodeList(caps.String, &l.CapabilitiesActive); err != nil {
			return nil, fmt.Errorf("decode active capabilities: %w", err)
		}
		return l, nil
	}
}

// Liveness implements directory.Store.
func (s *Store) Liveness(ctx context.Context, id directory.ID) (directory.Liveness, error) {
	dest, finish := livenessDest()
	err := s.rconn().scanRow(ctx, s.q(`SELECT `+livenessCols+` FROM directory_liveness l WHERE l.org = ? AND l.agent = ?`),
		[]any{id.Org, id.Agent}, dest...)
	if errors.Is(err, sql.ErrNoRows) {
		return directory.Liveness{}, directory.ErrNotFound
	}
	if err != nil {
		return directory.Liveness{}, fmt.Errorf("read liveness of %s: %w", id, err)
	}
	l, err := finish()
	if err != nil {
		return directory.Liveness{}, err
	}
	return *l, nil
}

// sweepBatch bounds the rows one sweep transaction deletes, so that
// writers are not held up for long.
const sweepBatch = 1000

// Sweep implements directory.Store.
func (s *Store) Sweep(ctx context.Context) (directory.Swept, error) {
	var out directory.Swept
	now := s.now()
	expiredBefore := now - s.o.ExpiredRetention.Milliseconds()
	n, err := s.sweepRows(ctx, `DELETE FROM directory_entries WHERE id IN (SELECT id FROM directory_entries
WHERE removed = 0 AND expires_at <= ? LIMIT ?)`, expiredBefore)
	out.Expired = n
	if err != nil {
		return out, fmt.Errorf("sweep expired entries: %w", err)
	}
	n, err = s.sweepRows(ctx, `DELETE FROM directory_entries WHERE id IN (SELECT id FROM directory_entries
WHERE removed = 1 AND expires_at <= ? AND updated_at <= ? LIMIT ?)`, now, now-s.o.TombstoneRetention.Milliseconds())
	out.Tombstones = n
	if err != nil {
		return out, fmt.Errorf("sweep tombstones: %w", err)
	}
	cutoff := (now - directory.UptimeWindow.Milliseconds()) / hourMs
	for {
		n, err := s.pruneHours(ctx, cutoff)
		out.LivenessRecords += n
		if err != nil {
			return out, fmt.Errorf("sweep liveness: %w", err)
		}
		if n < sweepBatch {
			break
		}
	}
	n, err = s.forgetAgents(ctx)
	out.LivenessAgents = n
	if err != nil {
		return out, fmt.Errorf("sweep liveness: %w", err)
	}
	return out, nil
}

// PurgeOrg implements directory.Store.
func (s *Store) PurgeOrg(ctx context.Context, org string) (int, error) {
	n, err := s.sweepRows(ctx, `DELETE FROM directory_entries WHERE id IN (SELECT id FROM directory_entries
WHERE org = ? LIMIT ?)`, org)
	if err != nil {
		return n, fmt.Errorf("purge the entries of %s: %w", org, err)
	}
	for _, table := range []string{"directory_liveness_hours", "directory_liveness"} {
		if _, err := s.sweepRows(ctx, `DELETE FROM `+table+` WHERE (org, agent) IN (SELECT org, agent FROM `+table+`
WHERE org = ? LIMIT ?)`, org); err != nil {
			return n, fmt.Errorf("purge the liveness of %s: %w", org, err)
		}
	}
	return n, nil
}

// forgetAgents deletes the liveness of agents with no observation left in
// the window; their entries go back to never observed.
func (s *Store) forgetAgents(ctx context.Context) (int, error) {
	total := 0
	for {
		n := 0
		err := s.w.Write(ctx, func(ctx context.Context, tx *sql.Tx) error {
			c := s.wconn(tx)
			n = 0
			rows, err := c.query(ctx, s.q(`DELETE FROM directory_liveness WHERE (org, agent) IN
(SELECT org, agent FROM directory_liveness WHERE up_hours <= 0 LIMIT ?) RETURNING org, agent`), int64(sweepBatch))
			if err != nil {
				return err
			}
			var ids []directory.ID
			for rows.Next() {
				var id directory.ID
				if err := rows.Scan(&id.Org, &id.Agent); err != nil {
					rows.Close()
					return err
				}
				ids = append(ids, id)
			}
			if err := rows.Close(); err != nil {
				return err
			}
			n = len(ids)
			for _, id := range ids {
				if err := s.syncHealth(ctx, c, id, "", false, sql.NullInt64{}); err != nil {
					return err
				}
			}
			return nil
		})
		total += n
		if err != nil || n < sweepBatch {
			return total, err
		}
	}
}

// sweepRows runs a batched DELETE, whose last placeholder is the batch
// size, until it deletes less than a batch.
func (s *Store) sweepRows(ctx context.Context, query string, args ...any) (int, error) {
	total := 0
	args = append(args, int64(sweepBatch))
	for {
		var n int64
		err := s.w.Write(ctx, func(ctx context.Context, tx *sql.Tx) error {
			res, err := s.wconn(tx).exec(ctx, s.q(query), args...)
			if err != nil {
				return err
			}
			n, err = res.RowsAffected()
			return err
		})
		total += int(n)
		if err != nil || n < sweepBatch {
			return total, err
		}
	}
}

// pruneHours deletes a batch of hourly records older than cutoff and
// takes exactly what it deleted off the agents' sums.
func (s *Store) pruneHours(ctx context.Context, cutoff int64) (int, error) {
	deleted := 0
	err := s.w.Write(ctx, func(ctx context.Context, tx *sql.Tx) error {
		c := s.wconn(tx)
		deleted = 0
		rows, err := c.query(ctx, s.q(`DELETE FROM directory_liveness_hours WHERE (org, agent, hour) IN
(SELECT org, agent, hour FROM directory_liveness_hours WHERE hour < ? LIMIT ?) RETURNING org, agent, ok, total`),
			cutoff, int64(sweepBatch))
		if err != nil {
			return err
		}
		type sums struct{ sum, hours int64 }
		byAgent := map[directory.ID]*sums{}
		var order []directory.ID
		for rows.Next() {
			var id directory.ID
			var ok, total int64
			if err := rows.Scan(&id.Org, &id.Agent, &ok, &total); err != nil {
				rows.Close()
				return err
			}
			deleted++
			a := byAgent[id]
			if a == nil {
				a = &sums{}
				byAgent[id] = a
				order = append(order, id)
			}
			a.sum += part(ok, total)
			a.hours++
		}
		if err := rows.Err(); err != nil {
			return err
		}
		rows.Close()
		for _, id := range order {
			a := byAgent[id]
			var status string
			var uptime sql.NullInt64
			err := c.scanRow(ctx, s.q(`UPDATE directory_liveness SET up_sum = up_sum - ?, up_hours = up_hours - ?,
	uptime_ppm = CASE WHEN up_hours - ? > 0 THEN (up_sum - ?) / (up_hours - ?) END
WHERE org = ? AND agent = ? RETURNING status, uptime_ppm`), []any{a.sum, a.hours, a.hours, a.sum, a.hours, id.Org, id.Agent},
				&status, &uptime)
			if errors.Is(err, sql.ErrNoRows) {
				continue
			}
			if err != nil {
				return err
			}
			if err := s.syncHealth(ctx, c, id, status, true, uptime); err != nil {
				return err
			}
		}
		return nil
	})
	return deleted, err
}
