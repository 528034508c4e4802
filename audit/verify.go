package audit

import (
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

// Verify walks the whole chain from its first entry and checks every link:
// the numbering has no gap, each entry names the hash of the one before,
// each hash is that of the entry's own bytes, each event is a valid
// CloudEvent whose columns agree with it, and the head names the last
// entry. It returns the number of entries checked, and a *ChainError for
// the first entry that fails.
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
	var n int64
	for rows.Next() {
		var (
			seq, at                          int64
			prevHex, hashHex, typ, peer, raw string
		)
		if err := rows.Scan(&seq, &prevHex, &hashHex, &at, &typ, &peer, &raw); err != nil {
			return n, fmt.Errorf("audit ledger: read entries: %w", err)
		}
		want := n + 1
		var ev Event
		jerr := json.Unmarshal([]byte(raw), &ev)
		bad := func(reason string, a ...any) error {
			return &ChainError{Seq: seq, EventID: ev.ID, Reason: fmt.Sprintf(reason, a...)}
		}
		if seq != want {
			return n, &ChainError{Seq: want, Reason: fmt.Sprintf("missing: the next entry stored is %d (deleted or renumbered)", seq)}
		}
		p, err := parseHash(prevHex)
		if err != nil {
			return n, bad("previous hash unreadable: %v", err)
		}
		if p != prev {
			return n, bad("does not follow entry %d: it names another previous hash (moved, or an entry before it was replaced)", seq-1)
		}
		h, err := parseHash(hashHex)
		if err != nil {
			return n, bad("hash unreadable: %v", err)
		}
		if Link(prev, seq, []byte(raw)) != h {
			return n, bad("its hash does not match its content (edited)")
		}
		if jerr != nil {
			return n, bad("event is not JSON: %v", jerr)
		}
		if err := ev.validate(); err != nil {
			return n, bad("%v", err)
		}
		if ev.Time.UnixMilli() != at || ev.Type != typ || peerOf(&ev) != peer {
			return n, bad("its time, type or peer columns disagree with its event (edited)")
		}
		prev = h
		n = seq
	}
	if err := rows.Err(); err != nil {
		return n, fmt.Errorf("audit ledger: read entries: %w", err)
	}
	if headSeq != n {
		if headSeq > n {
			return n, &ChainError{Seq: n + 1, Reason: fmt.Sprintf("missing: the head names entry %d as the last (entries cut off the end)", headSeq)}
		}
		return n, &ChainError{Seq: headSeq + 1, Reason: "written outside the ledger: the head names an earlier entry as the last"}
	}
	if headHex != hex.EncodeToString(prev[:]) {
		return n, &ChainError{Seq: n, Reason: "the head names another hash for the last entry"}
	}
	return n, nil
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

// Entries returns the entries f selects, oldest first. It does not verify
// the chain; Verify does.
func (l *Ledger) Entries(ctx context.Context, f Filter) ([]Entry, error) {
	q := "SELECT seq, prev, hash, event FROM audit_entries WHERE 1 = 1"
	var args []any
	if !f.Since.IsZero() {
		q += " AND at >= ?"
		args = append(args, f.Since.UnixMilli())
	}
	if f.Peer != "" {
		q += " AND peer = ?"
		args = append(args, f.Peer)
	}
	if f.Type != "" {
		q += " AND type = ?"
		args = append(args, f.Type)
	}
	q += " ORDER BY seq DESC"
	if f.Limit > 0 {
		q += fmt.Sprintf(" LIMIT %d", f.Limit)
	}
	rows, err := l.db.QueryContext(ctx, l.d.q(q), args...)
	if err != nil {
		return nil, fmt.Errorf("audit ledger: read entries: %w", err)
	}
	defer rows.Close()
	var out []Entry
	for rows.Next() {
		var e Entry
		var prevHex, hashHex, raw string
		if err := rows.Scan(&e.Seq, &prevHex, &hashHex, &raw); err != nil {
			return nil, fmt.Errorf("audit ledger: read entries: %w", err)
		}
		if e.Prev, err = parseHash(prevHex); err != nil {
			return nil, fmt.Errorf("audit ledger: entry %d: %w", e.Seq, err)
		}
		if e.Hash, err = parseHash(hashHex); err != nil {
			return nil, fmt.Errorf("audit ledger: entry %d: %w", e.Seq, err)
		}
		e.Event = json.RawMessage(raw)
		out = append(out, e)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("audit ledger: read entries: %w", err)
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out, nil
}
