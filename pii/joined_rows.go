package pii

import "github.com/moltgate/moltgate/wire"

// Columns of a table. A sheet's range comes as an array of rows, each an array of cells
// ({"values":[["field","part"],["card","4508"],["card","9129"],…]}), and a value split over the
// rows of a column is read down the column, not across a row: no view reads it otherwise, since
// a row's own view holds one piece and the table's view takes scalar items only. So a row of a few
// short cells is, once walked, one part of its table's view; when every part of a table is a
// row of the same width, each column is read as the items of one array are, and what its view
// finds is reported on each cell it takes. A row is never read in its table's view as a whole:
// rows of numbers side by side would read as numbers no one wrote.

const (
	maxRowCells   = 8  // cells of a row a column view takes
	maxRowCellLen = 64 // bytes of one cell
)

// liftRow returns the parts x.jparts[mark:] of an array that has just been walked, with its step
// on top of x.segs, as one row of its parent's view, when they are the few short scalar cells
// of a table's row and the parent still takes parts.
func (x *scanCtx) liftRow(mark int) (jpart, bool) {
	parts := x.jparts[mark:]
	depth := len(x.segs)
	if len(parts) < 2 || len(parts) > maxRowCells || depth == 0 {
		return jpart{}, false
	}
	for _, p := range parts {
		if p.kids != nil || p.row || len(p.s) > maxRowCellLen || p.seg.isKey {
			return jpart{}, false
		}
	}
	kids, ok := x.liftKids(mark, depth)
	if !ok {
		return jpart{}, false
	}
	seg := x.segs[depth-1]
	return jpart{seg: seg, key: seg.key, depth: depth, kids: kids, row: true}, true
}

// columnViews scans the columns of parts when they are all rows of one width, and reports what
// each column's view finds on the cells it takes, at their paths.
func (x *scanCtx) columnViews(root string, parts []jpart, key keyKind) {
	if len(parts) < 2 || len(parts) >= maxJoinParts {
		return // a longer table is more than the walk lifts rows of
	}
	w := len(parts[0].kids)
	for _, p := range parts {
		if !p.row || len(p.kids) != w {
			return
		}
	}
	// A header row names the columns: its words are no piece of a value below them.
	rows := parts
	if headerRow(parts[0].kids) {
		rows = parts[1:]
		if len(rows) < 2 {
			return
		}
	}
	parts = rows
	col := make([]jpart, len(parts))
	for c := 0; c < w; c++ {
		for i, p := range parts {
			col[i] = p.kids[c]
		}
		if !pieceColumn(col) {
			continue
		}
		for _, h := range x.joinFind(col, key) {
			if h.cue {
				continue // health terms down a column are no statement about a person
			}
			x.segs = append(x.segs, parts[h.part].seg, col[h.part].seg)
			h.f.Path = x.path(root)
			x.segs = x.segs[:len(x.segs)-2]
			if hasFinding(x.out, h.f) {
				continue
			}
			if identifies(h.f.Type) {
				x.identity = true
			}
			x.out = append(x.out, h.f)
		}
	}
}

// withoutRows returns parts without the rows lifted into them, which no view but the columns'
// reads.
func withoutRows(parts []jpart) []jpart {
	for _, p := range parts {
		if p.row {
			out := make([]jpart, 0, len(parts))
			for _, q := range parts {
				if !q.row {
					out = append(out, q)
				}
			}
			return out
		}
	}
	return parts
}

// tableRows returns, for an array v whose items are all rows of one width as liftRow lifts them
// in the walk, each row's cells as parts; MaskTree reads the columns as the scan does.
func tableRows(v wire.Value) ([][]jpart, bool) {
	if v.Kind() != wire.Array || v.Len() < 2 || v.Len() >= maxJoinParts {
		return nil, false
	}
	var rows [][]jpart
	for _, e := range v.Elems() {
		r, ok := rowCells(e.Value)
		if !ok || len(rows) > 0 && len(r) != len(rows[0]) {
			return nil, false
		}
		rows = append(rows, r)
	}
	return rows, true
}

// rowCells returns the cells of the array v as parts, when it is a row liftRow lifts: two to
// maxRowCells items, each a scalar (or a cell object) of at most maxRowCellLen bytes.
func rowCells(v wire.Value) ([]jpart, bool) {
	if v.Kind() != wire.Array || v.Len() < 2 || v.Len() > maxRowCells {
		return nil, false
	}
	cells := make([]jpart, 0, v.Len())
	for _, e := range v.Elems() {
		t, ok := scalarText(e.Value)
		if ok && keyText(t) {
			return nil, false // the walk notes no key text
		}
		if !ok {
			if _, vi, pair := pairMember(e.Value); pair && cellObject(e.Value, vi) {
				t, ok = scalarText(e.Value.Members()[vi].Value)
			}
		}
		if !ok || len(t) > maxRowCellLen {
			return nil, false
		}
		cells = append(cells, jpart{s: t})
	}
	return cells, true
}

// headerRow reports whether cells are a table's header: words of letters (with spaces, '_',
// '-' or '.'), none of them a value's piece.
func headerRow(cells []jpart) bool {
	for _, c := range cells {
		if c.s == "" {
			return false
		}
		for i := 0; i < len(c.s); i++ {
			if b := c.s[i]; !isAlpha(b) && b != ' ' && b != '_' && b != '-' && b != '.' && b < 0x80 {
				return false
			}
		}
	}
	return true
}

// columnHits returns, by row and by cell, what the column views of the table v find, as the walk
// finds it: MaskTree hides each piece.
func (m *masker) columnHits(v wire.Value, key keyKind) map[int]map[int][]Finding {
	rows, ok := tableRows(v)
	if !ok {
		return nil
	}
	start := 0
	if headerRow(rows[0]) {
		start = 1
		if len(rows)-start < 2 {
			return nil
		}
	}
	x := m.sc.getCtx()
	defer m.sc.putCtx(x)
	var out map[int]map[int][]Finding
	col := make([]jpart, len(rows)-start)
	for c := range rows[0] {
		for i := start; i < len(rows); i++ {
			col[i-start] = rows[i][c]
		}
		if !pieceColumn(col) {
			continue
		}
		for _, h := range x.joinFind(col, key) {
			if h.cue {
				continue
			}
			r := h.part + start
			if out == nil {
				out = map[int]map[int][]Finding{}
			}
			if out[r] == nil {
				out[r] = map[int][]Finding{}
			}
			out[r][c] = append(out[r][c], h.f)
		}
	}
	return out
}

// pieceColumn reports whether a column's cells may be the pieces of one value: none holds more
// than eight digits, and none is an amount ("6406.82"). A card's, an account's or a phone
// number's pieces are groups of a few digits; a column of order numbers or of prices, each
// whole, read down is a number no one wrote.
func pieceColumn(col []jpart) bool {
	for _, c := range col {
		n, marks := 0, 0
		for i := 0; i < len(c.s); i++ {
			switch b := c.s[i]; {
			case isDigit(b):
				n++
			case b == '.' || b == ',':
				marks++
			default:
				marks = 2 // letters or other signs: no amount
			}
		}
		if n > 8 || marks == 1 && n > 1 {
			return false
		}
	}
	return true
}
