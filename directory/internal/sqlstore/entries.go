package sqlstore

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/moltgate/moltgate/directory"
)

// Stored codes of directory.Visibility.
const (
	visPublic   = 0
	visUnlisted = 1
	visPrivate  = 2
)

func visCode(v directory.Visibility) int64 {
	switch v {
	case directory.Unlisted:
		return visUnlisted
	case directory.Private:
		return visPrivate
	}
	return visPublic
}

func visFromCode(c int64) directory.Visibility {
	switch c {
	case visUnlisted:
		return directory.Unlisted
	case visPrivate:
		return directory.Private
	}
	return directory.Public
}

// entryCols are the columns scanned by scanEntry, in order.
const entryCols = `e.id, e.org, e.agent, e.name, e.description, e.endpoint_url, e.endpoint_transport,
e.endpoint_websocket, e.public_key, e.encryption_key, e.capabilities, e.metadata, e.tags, e.visibility,
e.allowed_orgs, e.verified, e.registered_at, e.updated_at, e.expires_at, e.signed_at, e.removed`

// row is an entry as stored, with its row id.
type row struct {
	id int64
	e  directory.Entry
}

// entryDest returns scan destinations for entryCols into r, and a
// function that finishes decoding after the scan.
func entryDest(r *row) ([]any, func() error) {
	var caps, tags, allowed string
	var vis, verified, removed, registered, updated, expires, signed int64
	dest := []any{&r.id, &r.e.Org, &r.e.AgentID, &r.e.Name, &r.e.Description, &r.e.Endpoint.URL,
		&r.e.Endpoint.Transport, &r.e.Endpoint.WebSocket, &r.e.PublicKey, &r.e.EncryptionKey, &caps,
		&r.e.Metadata, &tags, &vis, &allowed, &verified, &registered, &updated, &expires, &signed, &removed}
	finish := func() error {
		if err := decodeList(caps, &r.e.Capabilities); err != nil {
			return fmt.Errorf("decode capabilities of %s@%s: %w", r.e.AgentID, r.e.Org, err)
		}
		if err := decodeList(tags, &r.e.Tags); err != nil {
			return fmt.Errorf("decode tags of %s@%s: %w", r.e.AgentID, r.e.Org, err)
		}
		if err := decodeList(allowed, &r.e.AllowedOrgs); err != nil {
			return fmt.Errorf("decode allowed orgs of %s@%s: %w", r.e.AgentID, r.e.Org, err)
		}
		if len(r.e.Metadata) == 0 {
			r.e.Metadata = nil
		}
		r.e.Visibility = visFromCode(vis)
		r.e.Verified = verified != 0
		r.e.Removed = removed != 0
		r.e.RegisteredAt = fromMs(registered)
		r.e.UpdatedAt = fromMs(updated)
		r.e.ExpiresAt = fromMs(expires)
		r.e.SignedAt = fromMs(signed)
		return nil
	}
	return dest, finish
}

func encodeList(l []string) string {
	if len(l) == 0 {
		return "[]"
	}
	b, _ := json.Marshal(l) // a []string always marshals
	return string(b)
}

func decodeList(s string, dst *[]string) error {
	*dst = nil
	if s == "" || s == "[]" {
		return nil
	}
	return json.Unmarshal([]byte(s), dst)
}

var errNoRow = errors.New("no row")

// load reads the entry id with its registration bytes, locking the row
// when the dialect needs it.
func (s *Store) load(ctx context.Context, c conn, id directory.ID) (*row, error) {
	var r row
	dest, finish := entryDest(&r)
	dest = append(dest, &r.e.Registration)
	query := s.q(`SELECT ` + entryCols + `, e.registration FROM directory_entries e WHERE e.org = ? AND e.agent = ?` + s.forUpdate())
	err := c.scanRow(ctx, query, []any{id.Org, id.Agent}, dest...)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, errNoRow
	}
	if err != nil {
		return nil, fmt.Errorf("read entry %s: %w", id, err)
	}
	return &r, finish()
}

// older reports whether a write signed at t with bytes b loses to what is
// stored: it is older, or as old with smaller bytes (see the package
// documentation of directory).
func older(t time.Time, b []byte, cur *directory.Entry) bool {
	if c := ms(t) - ms(cur.SignedAt); c != 0 {
		return c < 0
	}
	return bytes.Compare(b, cur.Registration) < 0
}

// Put implements directory.Store.
func (s *Store) Put(ctx context.Context, e *directory.Entry, o directory.PutOptions) (directory.Entry, error) {
	if err := e.Validate(); err != nil {
		return directory.Entry{}, err
	}
	in := *e
	var out directory.Entry
	err := s.w.Write(ctx, func(ctx context.Context, tx *sql.Tx) error {
		c := s.wconn(tx)
		now := s.now()
		cur, err := s.load(ctx, c, in.ID())
		if err != nil && err != errNoRow {
			return err
		}
		next := in
		next.UpdatedAt = fromMs(now)
		next.RegisteredAt = fromMs(now)
		if cur == nil {
			if o.Update {
				return directory.ErrNotFound
			}
			if in.Removed {
				next.RegisteredAt = time.Time{}
			}
			id, err := s.insert(ctx, c, &next)
			if err != nil {
				return err
			}
			out = next
			return s.writeIndex(ctx, c, id, nil, &next)
		}
		if older(in.SignedAt, in.Registration, &cur.e) {
			return directory.ErrStale
		}
		live := cur.e.Live(fromMs(now))
		if o.Update && !live {
			if cur.e.Removed {
				return directory.ErrNotFound
			}
			return directory.ErrExpired
		}
		if live && cur.e.PublicKey != in.PublicKey && (o.RotateFrom == "" || o.RotateFrom != cur.e.PublicKey) {
			return directory.ErrConflict
		}
		switch {
		case in.Removed:
			// A tombstone outlives whatever it removed (Options.TombstoneRetention).
			next.RegisteredAt = time.Time{}
			if cur.e.ExpiresAt.After(next.ExpiresAt) {
				next.ExpiresAt = cur.e.ExpiresAt
			}
		case live:
			next.RegisteredAt = cur.e.RegisteredAt
			// The same registration again (registry sync): keep the later
			// expiry, which a renewal may have moved.
			if ms(in.SignedAt) == ms(cur.e.SignedAt) && bytes.Equal(in.Registration, cur.e.Registration) &&
				cur.e.ExpiresAt.After(next.ExpiresAt) {
				next.ExpiresAt = cur.e.ExpiresAt
			}
		}
		if err := s.update(ctx, c, cur.id, &next); err != nil {
			return err
		}
		out = next
		return s.writeIndex(ctx, c, cur.id, &cur.e, &next)
	})
	if err != nil {
		return directory.Entry{}, err
	}
	return normalized(out), nil
}

// normalized returns e with times rounded to the stored milliseconds.
func normalized(e directory.Entry) directory.Entry {
	e.RegisteredAt = fromMs(ms(e.RegisteredAt))
	e.UpdatedAt = fromMs(ms(e.UpdatedAt))
	e.ExpiresAt = fromMs(ms(e.ExpiresAt))
	e.SignedAt = fromMs(ms(e.SignedAt))
	return e
}

func boolInt(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// entryArgs returns the values of the writable columns, in the order of
// entryWriteCols.
func entryArgs(e *directory.Entry) []any {
	var meta any
	if e.Metadata != nil {
		meta = []byte(e.Metadata)
	}
	var reg any
	if e.Registration != nil {
		reg = []byte(e.Registration)
	}
	return []any{e.Name, e.Description, e.Endpoint.URL, e.Endpoint.Transport, e.Endpoint.WebSocket,
		e.PublicKey, e.EncryptionKey, encodeList(e.Capabilities), meta, encodeList(e.Tags),
		visCode(e.Visibility), encodeList(e.AllowedOrgs), boolInt(len(e.AllowedOrgs) > 0),
		boolInt(e.Verified), ms(e.RegisteredAt), ms(e.UpdatedAt), ms(e.ExpiresAt), ms(e.SignedAt),
		boolInt(e.Removed), reg}
}

var entryWriteCols = []string{"name", "description", "endpoint_url", "endpoint_transport",
	"endpoint_websocket", "public_key", "encryption_key", "capabilities", "metadata", "tags",
	"visibility", "allowed_orgs", "restricted", "verified", "registered_at", "updated_at",
	"expires_at", "signed_at", "removed", "registration"}

func (s *Store) insert(ctx context.Context, c conn, e *directory.Entry) (int64, error) {
	query := `INSERT INTO directory_entries (org, agent`
	for _, c := range entryWriteCols {
		query += ", " + c
	}
	query += `) VALUES (?, ?, ` + placeholders(len(entryWriteCols)) + `) RETURNING id`
	args := append([]any{e.Org, e.AgentID}, entryArgs(e)...)
	var id int64
	if err := c.scanRow(ctx, s.q(query), args, &id); err != nil {
		return 0, fmt.Errorf("insert entry %s: %w", e.ID(), err)
	}
	return id, nil
}

func (s *Store) update(ctx context.Context, c conn, id int64, e *directory.Entry) error {
	query := `UPDATE directory_entries SET `
	for i, c := range entryWriteCols {
		if i > 0 {
			query += ", "
		}
		query += c + " = ?"
	}
	query += ` WHERE id = ?`
	args := append(entryArgs(e), id)
	if _, err := c.exec(ctx, s.q(query), args...); err != nil {
		return fmt.Errorf("update entry %s: %w", e.ID(), err)
	}
	return nil
}

// writeIndex brings the capability, metadata and peer rows of entry id
// from cur's (nil for a new entry) to next's. Capability rows carry copies
// of the entry's columns that search filters and sorts on, so they are
// written afresh with every write; a tombstone has none, nor metadata. It
// keeps its peer rows, which registry sync filters on.
func (s *Store) writeIndex(ctx context.Context, c conn, id int64, cur, next *directory.Entry) error {
	var hl, uptime int64
	if !next.Removed {
		// Read liveness before touching the index: the lock order is
		// entry, liveness, index, as in RecordLiveness.
		var err error
		if hl, uptime, err = s.agentHealth(ctx, c, next.ID()); err != nil {
			return err
		}
	}
	if cur != nil && !cur.Removed {
		if _, err := c.exec(ctx, s.q(`DELETE FROM directory_caps WHERE entry = ?`), id); err != nil {
			return fmt.Errorf("clear capability index: %w", err)
		}
	}
	if !next.Removed && len(next.Capabilities) > 0 {
		query := `INSERT INTO directory_caps (cap, entry, org, agent, visibility, restricted, verified, expires_at,
	updated_at, health, uptime_ppm) VALUES `
		args := make([]any, 0, 11*len(next.Capabilities))
		for i, cp := range next.Capabilities {
			if i > 0 {
				query += ", "
			}
			query += "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
			args = append(args, cp, id, next.Org, next.AgentID, visCode(next.Visibility),
				boolInt(len(next.AllowedOrgs) > 0), boolInt(next.Verified), ms(next.ExpiresAt), ms(next.UpdatedAt),
				hl, uptime)
		}
		if _, err := c.exec(ctx, s.q(query), args...); err != nil {
			return fmt.Errorf("write capability index: %w", err)
		}
	}
	if cur != nil && !cur.Removed && cur.Metadata != nil {
		if _, err := c.exec(ctx, s.q(`DELETE FROM directory_metadata WHERE entry = ?`), id); err != nil {
			return fmt.Errorf("clear metadata index: %w", err)
		}
	}
	if !next.Removed && next.Metadata != nil {
		if _, err := c.exec(ctx, s.q(`INSERT INTO directory_metadata (entry, metadata) VALUES (?, ?)`), id, []byte(next.Metadata)); err != nil {
			return fmt.Errorf("write metadata index: %w", err)
		}
	}
	var curPeers []string
	if cur != nil {
		curPeers = cur.AllowedOrgs
	}
	if cur != nil && sameSet(curPeers, next.AllowedOrgs) {
		return nil
	}
	if len(curPeers) > 0 {
		if _, err := c.exec(ctx, s.q(`DELETE FROM directory_peers WHERE entry = ?`), id); err != nil {
			return fmt.Errorf("clear allowed orgs: %w", err)
		}
	}
	if len(next.AllowedOrgs) > 0 {
		query := `INSERT INTO directory_peers (entry, org) VALUES `
		args := make([]any, 0, 2*len(next.AllowedOrgs))
		for i, o := range next.AllowedOrgs {
			if i > 0 {
				query += ", "
			}
			query += "(?, ?)"
			args = append(args, id, o)
		}
		if _, err := c.exec(ctx, s.q(query), args...); err != nil {
			return fmt.Errorf("write allowed orgs: %w", err)
		}
	}
	return nil
}

func sameSet(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}

// Get implements directory.Store.
func (s *Store) Get(ctx context.Context, id directory.ID, v directory.Viewer) (directory.Entry, error) {
	var r row
	dest, finish := entryDest(&r)
	dest = append(dest, &r.e.Registration)
	query := s.q(`SELECT ` + entryCols + `, e.registration FROM directory_entries e WHERE e.org = ? AND e.agent = ?`)
	err := s.rconn().scanRow(ctx, query, []any{id.Org, id.Agent}, dest...)
	if errors.Is(err, sql.ErrNoRows) {
		return directory.Entry{}, directory.ErrNotFound
	}
	if err != nil {
		return directory.Entry{}, fmt.Errorf("read entry %s: %w", id, err)
	}
	if err := finish(); err != nil {
		return directory.Entry{}, err
	}
	if !r.e.Live(fromMs(s.now())) || !v.Sees(&r.e) {
		return directory.Entry{}, directory.ErrNotFound
	}
	return r.e, nil
}

// Delete implements directory.Store.
func (s *Store) Delete(ctx context.Context, id directory.ID, d directory.Deletion) error {
	if d.SignedAt.IsZero() {
		return &directory.FieldError{Field: "signed_at", Reason: "missing"}
	}
	if len(d.Signed) > directory.MaxRegistration {
		return &directory.FieldError{Field: "registration", Reason: "too long"}
	}
	return s.w.Write(ctx, func(ctx context.Context, tx *sql.Tx) error {
		c := s.wconn(tx)
		cur, err := s.load(ctx, c, id)
		if err == errNoRow {
			return directory.ErrNotFound
		}
		if err != nil {
			return err
		}
		if cur.e.Removed {
			return directory.ErrNotFound
		}
		if d.Key != "" && d.Key != cur.e.PublicKey {
			return directory.ErrConflict
		}
		if older(d.SignedAt, d.Signed, &cur.e) {
			return directory.ErrStale
		}
		t := tombstone(&cur.e, d, fromMs(s.now()))
		if err := s.update(ctx, c, cur.id, &t); err != nil {
			return err
		}
		return s.writeIndex(ctx, c, cur.id, &cur.e, &t)
	})
}

// tombstone keeps of e what registry sync needs: who, which key, who may
// see it, and until when it must be remembered.
func tombstone(e *directory.Entry, d directory.Deletion, now time.Time) directory.Entry {
	return directory.Entry{
		AgentID:      e.AgentID,
		Org:          e.Org,
		PublicKey:    e.PublicKey,
		Visibility:   e.Visibility,
		AllowedOrgs:  e.AllowedOrgs,
		UpdatedAt:    now,
		ExpiresAt:    e.ExpiresAt,
		SignedAt:     d.SignedAt,
		Removed:      true,
		Registration: d.Signed,
	}
}

// Renew implements directory.Store.
func (s *Store) Renew(ctx context.Context, id directory.ID, key string, expiresAt time.Time) (directory.Entry, error) {
	if expiresAt.IsZero() {
		return directory.Entry{}, &directory.FieldError{Field: "expires_at", Reason: "missing"}
	}
	var out directory.Entry
	err := s.w.Write(ctx, func(ctx context.Context, tx *sql.Tx) error {
		c := s.wconn(tx)
		now := s.now()
		cur, err := s.load(ctx, c, id)
		if err == errNoRow {
			return directory.ErrNotFound
		}
		if err != nil {
			return err
		}
		if cur.e.Removed {
			return directory.ErrNotFound
		}
		// The key first: only the entry's key learns that it expired.
		if key != "" && key != cur.e.PublicKey {
			return directory.ErrConflict
		}
		if !cur.e.Live(fromMs(now)) {
			return directory.ErrExpired
		}
		for _, query := range []string{
			`UPDATE directory_entries SET expires_at = ?, updated_at = ? WHERE id = ?`,
			`UPDATE directory_caps SET expires_at = ?, updated_at = ? WHERE entry = ?`,
		} {
			if _, err := c.exec(ctx, s.q(query), ms(expiresAt), now, cur.id); err != nil {
				return fmt.Errorf("renew entry %s: %w", id, err)
			}
		}
		out = cur.e
		out.ExpiresAt = fromMs(ms(expiresAt))
		out.UpdatedAt = fromMs(now)
		return nil
	})
	return out, err
}
