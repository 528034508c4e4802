package sqlstore

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"

	"github.com/moltgate/moltgate/directory"
)

// Capabilities implements directory.Store.
func (s *Store) Capabilities(ctx context.Context, q *directory.CapabilityQuery) ([]directory.CapabilityCount, error) {
	var b builder
	b.add(`SELECT c.cap, COUNT(*) FROM directory_caps c WHERE c.expires_at > ? AND c.health > 0 AND `, s.now())
	b.listed("c", "c.entry", q.Viewer, false)
	if q.Verified {
		b.add(` AND c.verified = 1`)
	}
	if q.Prefix != "" {
		upper, ok := prefixEnd(q.Prefix)
		if !ok {
			return nil, nil // no capability name can start with it
		}
		b.add(` AND c.cap >= ? AND c.cap < ?`, q.Prefix, upper)
	}
	b.add(` GROUP BY c.cap ORDER BY c.cap`)
	rows, err := s.rconn().query(ctx, s.q(b.sb.String()), b.args...)
	if err != nil {
		return nil, fmt.Errorf("list capabilities: %w", err)
	}
	defer rows.Close()
	var out []directory.CapabilityCount
	for rows.Next() {
		var c directory.CapabilityCount
		var n int64
		if err := rows.Scan(&c.Name, &n); err != nil {
			return nil, fmt.Errorf("list capabilities: %w", err)
		}
		c.Agents = int(n)
		out = append(out, c)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list capabilities: %w", err)
	}
	return out, nil
}

// prefixEnd returns the least string greater than every string starting
// with prefix, which must consist of capability characters.
func prefixEnd(prefix string) (string, bool) {
	for i := 0; i < len(prefix); i++ {
		c := prefix[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '.') {
			return "", false
		}
	}
	b := []byte(prefix)
	b[len(b)-1]++ // stays ASCII: the largest capability character is 'z'
	return string(b), true
}

// Changes implements directory.Store.
func (s *Store) Changes(ctx context.Context, q *directory.ChangesQuery) (directory.ChangePage, error) {
	limit := q.Limit
	switch {
	case limit <= 0:
		limit = directory.DefaultChangesLimit
	case limit > directory.MaxChangesLimit:
		limit = directory.MaxChangesLimit
	}
	fp := changesFingerprint(q)
	var b builder
	b.add(`SELECT ` + entryCols + `, e.registration FROM directory_entries e WHERE `)
	if q.Cursor != "" {
		keys, err := decodeCursor(q.Cursor, fp, 2)
		if err != nil {
			return directory.ChangePage{}, err
		}
		b.add(`(e.updated_at, e.id) > (?, ?)`, keys[0], keys[1])
	} else {
		b.add(`e.updated_at >= ?`, ms(q.Since))
	}
	if q.IncludeRemoved {
		b.add(` AND (e.removed = 1 OR e.expires_at > ?)`, s.now())
	} else {
		b.add(` AND e.removed = 0 AND e.expires_at > ?`, s.now())
	}
	b.add(` AND `)
	b.seesExported(q.Viewer)
	b.add(` ORDER BY e.updated_at, e.id LIMIT ?`, int64(limit+1))

	rows, err := s.rconn().query(ctx, s.q(b.sb.String()), b.args...)
	if err != nil {
		return directory.ChangePage{}, fmt.Errorf("list changes: %w", err)
	}
	defer rows.Close()
	var page directory.ChangePage
	var lastUpdated, lastID int64
	size := 0
	for rows.Next() {
		if len(page.Entries) == limit {
			page.Next = encodeCursor(fp, []int64{lastUpdated, lastID})
			break
		}
		var r row
		dest, finish := entryDest(&r)
		dest = append(dest, &r.e.Registration)
		if err := rows.Scan(dest...); err != nil {
			return directory.ChangePage{}, fmt.Errorf("list changes: %w", err)
		}
		if size += len(r.e.Registration); q.MaxBytes > 0 && size > q.MaxBytes && len(page.Entries) > 0 {
			page.Next = encodeCursor(fp, []int64{lastUpdated, lastID})
			break
		}
		if err := finish(); err != nil {
			return directory.ChangePage{}, err
		}
		page.Entries = append(page.Entries, r.e)
		lastUpdated, lastID = ms(r.e.UpdatedAt), r.id
	}
	if err := rows.Err(); err != nil {
		return directory.ChangePage{}, fmt.Errorf("list changes: %w", err)
	}
	return page, nil
}

func changesFingerprint(q *directory.ChangesQuery) [8]byte {
	b, _ := json.Marshal(struct {
		Changes        bool
		IncludeRemoved bool
		Viewer         directory.Viewer
	}{true, q.IncludeRemoved, q.Viewer})
	sum := sha256.Sum256(b)
	var f [8]byte
	copy(f[:], sum[:])
	return f
}
