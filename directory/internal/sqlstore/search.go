package sqlstore

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/moltgate/moltgate/directory"
)

// healthSQL is health (liveness.go) of the liveness row l, in SQL.
const healthSQL = `CASE l.status WHEN 'degraded' THEN 3 WHEN 'unhealthy' THEN 2 ` +
	`WHEN 'offline' THEN 0 WHEN 'decommissioned' THEN 0 ELSE 4 END`

// livenessCols are the liveness columns of a search row, scanned by
// livenessDest.
const livenessCols = `l.status, l.load, l.queue_depth, l.capabilities_active, l.first_seen, l.last_seen, l.up_sum, l.up_hours`

// builder accumulates a query and its arguments.
type builder struct {
	sb   strings.Builder
	args []any
}

func (b *builder) add(sql string, args ...any) {
	b.sb.WriteString(sql)
	b.args = append(b.args, args...)
}

func (b *builder) in(vals []string) {
	b.sb.WriteString("(" + placeholders(len(vals)) + ")")
	for _, v := range vals {
		b.args = append(b.args, v)
	}
}

// listed adds the condition that a search by v may return the entry
// whose visibility columns are those of alias (e for entries, c for the
// capability index) and whose row id is idCol.
func (b *builder) listed(alias, idCol string, v directory.Viewer, includeHidden bool) {
	switch {
	case v.Local && includeHidden:
		b.add(`1 = 1`)
	case v.Local:
		b.add(fmt.Sprintf(`%s.visibility <> %d`, alias, visUnlisted))
	default:
		b.add(fmt.Sprintf(`%s.visibility = %d AND `, alias, visPublic))
		b.admitted(alias, idCol, v)
	}
}

// seesExported adds the condition that v may look entry e up by id,
// private entries excluded whoever asks (registry sync never exports
// them).
func (b *builder) seesExported(v directory.Viewer) {
	b.add(fmt.Sprintf(`e.visibility IN (%d, %d)`, visPublic, visUnlisted))
	if !v.Local {
		b.add(` AND `)
		b.admitted("e", "e.id", v)
	}
}

// admitted adds the audience restriction for a remote viewer.
func (b *builder) admitted(alias, idCol string, v directory.Viewer) {
	if v.Org == "" {
		b.add(alias + `.restricted = 0`)
		return
	}
	b.add(`(`+alias+`.restricted = 0 OR `+alias+`.org = ? OR EXISTS (SELECT 1 FROM directory_peers p WHERE p.entry = `+
		idCol+` AND p.org = ?))`, v.Org, v.Org)
}

// sortKeys returns the key columns of an order, all descending; the last
// is the row id, which makes the order total.
func sortKeys(o directory.Sort) []string {
	switch o {
	case directory.SortUptime:
		return []string{"k_uptime", "k_points", "k_updated", "k_id"}
	case directory.SortRecent:
		return []string{"k_updated", "k_points", "k_id"}
	}
	return []string{"k_points", "k_uptime", "k_updated", "k_id"}
}

// plan is a search query compiled for the store.
//
// The candidates query selects, for every entry the query and the viewer
// admit, only its sort keys and row id. With capabilities named it reads
// the capability index alone, which carries copies of the entry columns
// search filters on and of the agent's health and uptime; a listing reads
// the entries and their liveness. The page query orders and pages the
// candidates and only then fetches the full entries of the page; a second
// query counts the candidates.
type plan struct {
	cand    builder
	keys    []string
	denom   int // capabilities named by the query (1 when none)
	caps    map[string]bool
	q       *directory.Query
	limit   int
	sort    directory.Sort
	cursor  []int64 // nil on the first page
	fingerp [8]byte
}

func (s *Store) compile(q *directory.Query, now int64) (*plan, error) {
	if err := q.Validate(); err != nil {
		return nil, err
	}
	sort, _ := directory.ParseSort(string(q.Sort))
	all, any := q.Capabilities()
	p := &plan{q: q, limit: q.EffectiveLimit(), sort: sort, keys: sortKeys(sort), denom: 1, caps: map[string]bool{}}
	for _, c := range all {
		p.caps[c] = true
	}
	for _, c := range any {
		p.caps[c] = true
	}
	p.fingerp = fingerprint(q, sort, all, any)
	if q.Cursor != "" {
		c, err := decodeCursor(q.Cursor, p.fingerp, len(p.keys))
		if err != nil {
			return nil, err
		}
		p.cursor = c
	}

	b := &p.cand
	filters := func(alias string) {
		if q.Verified {
			b.add(` AND ` + alias + `.verified = 1`)
		}
		if len(q.Orgs) > 0 {
			b.add(` AND ` + alias + `.org IN `)
			b.in(q.Orgs)
		}
	}
	minUptime := int64(q.MinUptime*ppm + 0.5)
	hidden := q.Viewer.Local && q.IncludeHidden
	healthy := "c.health > 0 "
	if hidden {
		healthy = "c.health >= 0 " // keeps the index range of the default order
	}
	switch n := len(all) + len(any); {
	case n == 0:
		// A listing: every entry the viewer may see, with its liveness
		// joined (the capability index is of no help).
		b.add(`SELECT 1 AS matched, ` + healthSQL + ` AS k_points, COALESCE(l.uptime_ppm, -1) AS k_uptime, ` +
			`e.updated_at AS k_updated, e.id AS k_id FROM directory_entries e` +
			` LEFT JOIN directory_liveness l ON l.org = e.org AND l.agent = e.agent`)
		b.add(` WHERE e.removed = 0 AND e.expires_at > ? AND `, now)
		b.listed("e", "e.id", q.Viewer, q.IncludeHidden)
		filters("e")
		if !hidden {
			b.add(` AND ` + healthSQL + ` > 0`)
		}
		if q.MinUptime > 0 {
			b.add(` AND l.uptime_ppm >= ?`, minUptime)
		}
	case n == 1:
		// The common case reads one stretch of the capability index.
		b.add(`SELECT 1 AS matched, c.health AS k_points, c.uptime_ppm AS k_uptime, c.updated_at AS k_updated, ` +
			`c.entry AS k_id FROM directory_caps c`)
		b.add(` WHERE c.cap = ? AND c.expires_at > ? AND `+healthy+`AND `, append(all, any...)[0], now)
		b.listed("c", "c.entry", q.Viewer, q.IncludeHidden)
		filters("c")
		if q.MinUptime > 0 {
			b.add(` AND c.uptime_ppm >= ?`, minUptime)
		}
	default:
		p.denom = n
		b.add(`SELECT m.matched, m.matched * m.health AS k_points, m.uptime_ppm AS k_uptime, m.updated_at AS k_updated, ` +
			`m.entry AS k_id FROM (SELECT c.entry, c.updated_at, c.health, c.uptime_ppm, COUNT(*) AS matched, `)
		if len(all) > 0 {
			b.add(`SUM(CASE WHEN c.cap IN `)
			b.in(all)
			b.add(` THEN 1 ELSE 0 END) AS matched_all`)
		} else {
			b.add(`0 AS matched_all`)
		}
		b.add(` FROM directory_caps c WHERE c.cap IN `)
		b.in(append(append([]string{}, all...), any...))
		b.add(` AND c.expires_at > ? AND `+healthy+`AND `, now)
		b.listed("c", "c.entry", q.Viewer, q.IncludeHidden)
		filters("c")
		if q.MinUptime > 0 {
			b.add(` AND c.uptime_ppm >= ?`, minUptime)
		}
		b.add(` GROUP BY c.entry, c.updated_at, c.health, c.uptime_ppm) m`)
		minAny := 0
		if len(any) > 0 {
			minAny = 1
		}
		b.add(` WHERE m.matched_all = ? AND m.matched - m.matched_all >= ?`, int64(len(all)), int64(minAny))
	}
	return p, nil
}

// Search implements directory.Store.
func (s *Store) Search(ctx context.Context, q *directory.Query) (directory.Page, error) {
	p, err := s.compile(q, s.now())
	if err != nil {
		return directory.Page{}, err
	}
	if q.Requirements.Empty() {
		return s.searchPaged(ctx, p)
	}
	return s.searchFiltered(ctx, p)
}

func (p *plan) orderBy(prefix string) string {
	parts := make([]string, len(p.keys))
	for i, k := range p.keys {
		parts[i] = prefix + k + " DESC"
	}
	return " ORDER BY " + strings.Join(parts, ", ")
}

// withEntries wraps a query producing candidate rows (alias pg) with the
// entry and liveness columns of each.
func withEntries(b *builder, inner func(*builder)) {
	b.add(`SELECT ` + entryCols + `, ` + livenessCols + `, pg.matched, pg.k_points, pg.k_uptime, pg.k_updated, pg.k_id` +
		` FROM (`)
	inner(b)
	b.add(`) pg CROSS JOIN directory_entries e LEFT JOIN directory_liveness l ON l.org = e.org AND l.agent = e.agent` +
		` WHERE e.id = pg.k_id`)
}

// searchPaged lets the database order, page and count. For a search by
// one capability in the default order, SQLite walks the capability index
// in that order and stops at the end of the page.
func (s *Store) searchPaged(ctx context.Context, p *plan) (directory.Page, error) {
	b := p.pageQuery()
	rc := s.rconn()
	rows, err := rc.query(ctx, s.q(b.sb.String()), b.args...)
	if err != nil {
		return directory.Page{}, fmt.Errorf("search: %w", err)
	}
	defer rows.Close()
	var page directory.Page
	var last []int64
	for rows.Next() {
		sr, err := scanSearchRow(rows.Rows)
		if err != nil {
			return directory.Page{}, err
		}
		if len(page.Results) == p.limit {
			page.Next = encodeCursor(p.fingerp, last)
			break
		}
		page.Results = append(page.Results, p.result(sr))
		last = sr.keys(p.sort)
	}
	if err := rows.Err(); err != nil {
		return directory.Page{}, fmt.Errorf("search: %w", err)
	}
	rows.Close()
	// The total is counted apart, which costs less than numbering the
	// candidates in the page query; a write in between may make it differ
	// from the page by that write.
	if page.Next == "" && p.cursor == nil {
		page.Total = len(page.Results)
		return page, nil
	}
	var c builder
	c.add(`SELECT COUNT(*) FROM (`)
	c.add(p.cand.sb.String(), p.cand.args...)
	c.add(`) t`)
	var total int64
	if err := rc.scanRow(ctx, s.q(c.sb.String()), c.args, &total); err != nil {
		return directory.Page{}, fmt.Errorf("search count: %w", err)
	}
	page.Total = int(total)
	return page, nil
}

// pageQuery selects the page after the cursor, one row more to tell
// whether there is a next page.
func (p *plan) pageQuery() *builder {
	var b builder
	withEntries(&b, func(b *builder) {
		b.add(`SELECT * FROM (`)
		b.add(p.cand.sb.String(), p.cand.args...)
		b.add(`) t`)
		if p.cursor != nil {
			b.add(` WHERE (` + strings.Join(p.keys, ", ") + `) < (` + placeholders(len(p.keys)) + `)`)
			for _, v := range p.cursor {
				b.args = append(b.args, v)
			}
		}
		b.add(p.orderBy(""))
		b.add(` LIMIT ?`, int64(p.limit+1))
	})
	b.add(p.orderBy("pg."))
	return &b
}

// searchFiltered applies metadata requirements, which the database cannot
// evaluate the same way on every backend. It walks the candidates in
// order with their metadata only (from directory_metadata, a dense copy),
// keeping count of the matches and the page after the cursor, then reads
// the entries of that page.
func (s *Store) searchFiltered(ctx context.Context, p *plan) (directory.Page, error) {
	var b builder
	b.add(`SELECT pg.matched, pg.k_points, pg.k_uptime, pg.k_updated, pg.k_id, md.metadata FROM (`)
	b.add(p.cand.sb.String(), p.cand.args...)
	b.add(`) pg LEFT JOIN directory_metadata md ON md.entry = pg.k_id`)
	b.add(p.orderBy("pg."))
	rc := s.rconn()
	rows, err := rc.query(ctx, s.q(b.sb.String()), b.args...)
	if err != nil {
		return directory.Page{}, fmt.Errorf("search: %w", err)
	}
	defer rows.Close()
	var page directory.Page
	var picked []*searchRow
	var last []int64
	var meta []byte
	for rows.Next() {
		sr := &searchRow{}
		if err := rows.Scan(&sr.matched, &sr.points, &sr.uptime, &sr.updated, &sr.rowID, &meta); err != nil {
			return directory.Page{}, fmt.Errorf("search: scan: %w", err)
		}
		if !p.q.Requirements.Match(meta) {
			continue
		}
		page.Total++
		keys := sr.keys(p.sort)
		if p.cursor != nil && !lessKeys(keys, p.cursor) {
			continue
		}
		switch {
		case len(picked) < p.limit:
			picked = append(picked, sr)
			last = keys
		case page.Next == "":
			page.Next = encodeCursor(p.fingerp, last)
		}
	}
	if err := rows.Err(); err != nil {
		return directory.Page{}, fmt.Errorf("search: %w", err)
	}
	rows.Close()
	if len(picked) == 0 {
		return page, nil
	}
	ids := make([]any, len(picked))
	for i, sr := range picked {
		ids[i] = sr.rowID
	}
	erows, err := rc.query(ctx, s.q(`SELECT `+entryCols+`, `+livenessCols+` FROM directory_entries e`+
		` LEFT JOIN directory_liveness l ON l.org = e.org AND l.agent = e.agent WHERE e.id IN (`+placeholders(len(ids))+`)`), ids...)
	if err != nil {
		return directory.Page{}, fmt.Errorf("search: %w", err)
	}
	defer erows.Close()
	byID := map[int64]*searchRow{}
	for erows.Next() {
		sr := &searchRow{}
		dest, finish := entryDest(&sr.r)
		ld, lfinish := livenessDest()
		if err := erows.Scan(append(dest, ld...)...); err != nil {
			return directory.Page{}, fmt.Errorf("search: scan: %w", err)
		}
		if err := finish(); err != nil {
			return directory.Page{}, err
		}
		if sr.live, err = lfinish(); err != nil {
			return directory.Page{}, err
		}
		byID[sr.r.id] = sr
	}
	if err := erows.Err(); err != nil {
		return directory.Page{}, fmt.Errorf("search: %w", err)
	}
	for _, k := range picked {
		sr, ok := byID[k.rowID]
		if !ok {
			continue // removed since the first read
		}
		sr.matched, sr.points, sr.uptime, sr.updated, sr.rowID = k.matched, k.points, k.uptime, k.updated, k.rowID
		page.Results = append(page.Results, p.result(sr))
	}
	return page, nil
}

// lessKeys compares key tuples as the descending order does: a < b means a
// comes after b.
func lessKeys(a, b []int64) bool {
	for i := range a {
		if a[i] != b[i] {
			return a[i] < b[i]
		}
	}
	return false
}

// searchRow is one scanned search row.
type searchRow struct {
	r                              row
	live                           *directory.Liveness
	matched                        int64
	points, uptime, updated, rowID int64
}

func (sr *searchRow) keys(o directory.Sort) []int64 {
	switch o {
	case directory.SortUptime:
		return []int64{sr.uptime, sr.points, sr.updated, sr.rowID}
	case directory.SortRecent:
		return []int64{sr.updated, sr.points, sr.rowID}
	}
	return []int64{sr.points, sr.uptime, sr.updated, sr.rowID}
}

func scanSearchRow(rows *sql.Rows) (*searchRow, error) {
	sr := &searchRow{}
	dest, finish := entryDest(&sr.r)
	ld, lfinish := livenessDest()
	dest = append(dest, ld...)
	dest = append(dest, &sr.matched, &sr.points, &sr.uptime, &sr.updated, &sr.rowID)
	if err := rows.Scan(dest...); err != nil {
		return nil, fmt.Errorf("search: scan: %w", err)
	}
	if err := finish(); err != nil {
		return nil, err
	}
	live, err := lfinish()
	if err != nil {
		return nil, err
	}
	sr.live = live
	return sr, nil
}

func (p *plan) result(sr *searchRow) directory.Result {
	res := directory.Result{
		Entry:      sr.r.e,
		MatchScore: float64(sr.points) / float64(weightFull*p.denom),
		Liveness:   sr.live,
	}
	for _, c := range sr.r.e.Capabilities {
		if p.caps[c] {
			res.CapabilitiesMatched = append(res.CapabilitiesMatched, c)
		}
	}
	return res
}

// Cursors: base64url of a version byte, eight bytes of the query's
// fingerprint, and the sort keys of the last result, eight bytes each.
const cursorVersion = 1

func fingerprint(q *directory.Query, sort directory.Sort, all, any []string) [8]byte {
	b, _ := json.Marshal(struct {
		All, Any      []string
		Req           directory.Requirements
		Verified      bool
		MinUptime     float64
		Orgs          []string
		Sort          directory.Sort
		Viewer        directory.Viewer
		IncludeHidden bool
	}{all, any, q.Requirements, q.Verified, q.MinUptime, q.Orgs, sort, q.Viewer, q.IncludeHidden})
	sum := sha256.Sum256(b)
	var f [8]byte
	copy(f[:], sum[:])
	return f
}

func encodeCursor(fp [8]byte, keys []int64) string {
	buf := make([]byte, 0, 1+8+8*len(keys))
	buf = append(buf, cursorVersion)
	buf = append(buf, fp[:]...)
	for _, k := range keys {
		buf = binary.BigEndian.AppendUint64(buf, uint64(k))
	}
	return base64.RawURLEncoding.EncodeToString(buf)
}

func decodeCursor(s string, fp [8]byte, n int) ([]int64, error) {
	buf, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil || len(buf) != 1+8+8*n || buf[0] != cursorVersion || [8]byte(buf[1:9]) != fp {
		return nil, directory.ErrBadCursor
	}
	keys := make([]int64, n)
	for i := range keys {
		keys[i] = int64(binary.BigEndian.Uint64(buf[9+8*i:]))
	}
	return keys, nil
}
