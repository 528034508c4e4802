package audit

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"time"
)

// ChainError is a break in the chain: the first entry that was edited,
// deleted or moved, and what gave it away.
type ChainError struct {
	// Seq is the entry at which the chain breaks; for a chain cut short at
	// its end, the first missing entry.
	Seq int64
	// EventID is the id of the event stored there, when it could be read.
	EventID string
	// Reason says what does not hold, in words.
	Reason string
}

func (e *ChainError) Error() string {
	id := ""
	if e.EventID != "" {
		id = " (event " + e.EventID + ")"
	}
	return fmt.Sprintf("audit ledger: entry %d%s: %s", e.Seq, id, e.Reason)
}

// Verify walks the whole chain from its first link and checks every one:
// the numbering has no gap, each link names the hash of the one before,
// each hash is that of the link's own bytes, each event is a valid
// CloudEvent and the link's columns agree with its events, and the head
// names the last link. It returns the number of events checked, and a
// *ChainError for the first link that fails.
func (l *Ledger) Verify(ctx context.Context) (int64, error) {
	var headSeq int64
	var headHex string
	if err := l.db.QueryRowContext(ctx, "SELECT seq, hash FROM audit_head WHERE id = 1").Scan(&headSeq, &headHex); err != nil {
		return 0, fmt.Errorf("audit ledger: read head: %w", err)
	}
	rows, err := l.db.QueryContext(ctx, "SELECT seq, prev, hash, at, type, peer, event FROM audit_entries ORDER BY seq")
	if err != nil {
		return 0, fmt.Errorf("audit ledger: read entries: %w", err)
	}
	defer rows.Close()
	var prev [32]byte
	var n, events int64
	for rows.Next() {
		var (
			seq, at                          int64
			prevHex, hashHex, typ, peer, raw string
		)
		if err := rows.Scan(&seq, &prevHex, &hashHex, &at, &typ, &peer, &raw); err != nil {
			return events, fmt.Errorf("audit ledger: read entries: %w", err)
		}
		want := n + 1
		lines := [][]byte{[]byte(raw)}
		if typ == batchType {
			lines = bytes.Split([]byte(raw), []byte{'\n'})
		}
		// The first event's id names the link until one at fault is
		// known.
		var first Event
		json.Unmarshal(lines[0], &first)
		bad := func(id, reason string, a ...any) error {
			return &ChainError{Seq: seq, EventID: id, Reason: fmt.Sprintf(reason, a...)}
		}
		if seq != want {
			return events, &ChainError{Seq: want, Reason: fmt.Sprintf("missing: the next entry stored is %d (deleted or renumbered)", seq)}
		}
		p, err := parseHash(prevHex)
		if err != nil {
			return events, bad(first.ID, "previous hash unreadable: %v", err)
		}
		if p != prev {
			return events, bad(first.ID, "does not follow entry %d: it names another previous hash (moved, or an entry before it was replaced)", seq-1)
		}
		h, err := parseHash(hashHex)
		if err != nil {
			return events, bad(first.ID, "hash unreadable: %v", err)
		}
		if typ == batchType {
			if LinkBatch(prev, seq, lines) != h {
				return events, bad(first.ID, "its hash does not match its content (edited)")
			}
		} else if Link(prev, seq, []byte(raw)) != h {
			return events, bad(first.ID, "its hash does not match its content (edited)")
		}
		var last int64
		for i, line := range lines {
			var ev Event
			if err := json.Unmarshal(line, &ev); err != nil {
				return events, bad("", "event %d is not JSON: %v", i, err)
			}
			if err := ev.validate(); err != nil {
				return events, bad(ev.ID, "event %d: %v", i, err)
			}
			if typ != batchType && (ev.Time.UnixMilli() != at || ev.Type != typ || peerOf(&ev) != peer) {
				return events, bad(ev.ID, "its time, type or peer columns disagree with its event (edited)")
			}
			last = max(last, ev.Time.UnixMilli())
		}
		if typ == batchType && (at != last || peer != "") {
			return events, bad(first.ID, "its time or peer columns disagree with its events (edited)")
		}
		prev = h
		n = seq
		events += int64(len(lines))
	}
	if err := rows.Err(); err != nil {
		return events, fmt.Errorf("audit ledger: read entries: %w", err)
	}
	if headSeq != n {
		if headSeq > n {
			return events, &ChainError{Seq: n + 1, Reason: fmt.Sprintf("missing: the head names entry %d as the last (entries cut off the end)", headSeq)}
		}
		return events, &ChainError{Seq: headSeq + 1, Reason: "written outside the ledger: the head names an earlier entry as the last"}
	}
	if headHex != hex.EncodeToString(prev[:]) {
		return events, &ChainError{Seq: n, Reason: "the head names another hash for the last entry"}
	}
	return events, nil
}

// Filter selects entries for Entries. The zero Filter selects all.
type Filter struct {
	// Since keeps entries whose event time is at or after it.
	Since time.Time
	// Peer keeps entries about this organisation.
	Peer string
	// Type keeps entries of this event type.
	Type string
	// Limit bounds the number returned (newest kept); 0 means no bound.
	Limit int
}

// Entries returns the events f selects, oldest first, each with its
// link's place and hashes. It does not verify the chain; Verify does.
func (l *Ledger) Entries(ctx context.Context, f Filter) ([]Entry, error) {
	// The columns narrow the links to read; the events of a batch are
	// filtered one by one.
	q := "SELECT seq, prev, hash, type, event FROM audit_entries WHERE 1 = 1"
	var args []any
	if !f.Since.IsZero() {
		q += " AND at >= ?"
		args = append(args, f.Since.UnixMilli())
	}
	if f.Peer != "" {
		q += " AND (peer = ? OR type = ?)"
		args = append(args, f.Peer, batchType)
	}
	if f.Type != "" {
		q += " AND (type = ? OR type = ?)"
		args = append(args, f.Type, batchType)
	}
	q += " ORDER BY seq DESC"
	rows, err := l.db.QueryContext(ctx, l.d.q(q), args...)
	if err != nil {
		return nil, fmt.Errorf("audit ledger: read entries: %w", err)
	}
	defer rows.Close()
	var out []Entry
	for rows.Next() && (f.Limit <= 0 || len(out) < f.Limit) {
		var e Entry
		var prevHex, hashHex, typ, raw string
		if err := rows.Scan(&e.Seq, &prevHex, &hashHex, &typ, &raw); err != nil {
			return nil, fmt.Errorf("audit ledger: read entries: %w", err)
		}
		if e.Prev, err = parseHash(prevHex); err != nil {
			return nil, fmt.Errorf("audit ledger: entry %d: %w", e.Seq, err)
		}
		if e.Hash, err = parseHash(hashHex); err != nil {
			return nil, fmt.Errorf("audit ledger: entry %d: %w", e.Seq, err)
		}
		if typ != batchType {
			e.Event = json.RawMessage(raw)
			out = append(out, e)
			continue
		}
		lines := bytes.Split([]byte(raw), []byte{'\n'})
		for i := len(lines) - 1; i >= 0 && (f.Limit <= 0 || len(out) < f.Limit); i-- {
			var ev Event
			if err := json.Unmarshal(lines[i], &ev); err != nil {
				return nil, fmt.Errorf("audit ledger: entry %d, event %d: %w", e.Seq, i, err)
			}
			if (!f.Since.IsZero() && ev.Time.Before(f.Since)) || (f.Peer != "" && peerOf(&ev) != f.Peer) || (f.Type != "" && ev.Type != f.Type) {
				continue
			}
			one := e
			one.Index, one.Event = i, json.RawMessage(lines[i])
			out = append(out, one)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("audit ledger: read entries: %w", err)
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out, nil
}
