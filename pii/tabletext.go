package pii

import "strings"

// Tables and SQL written as text. An agent's tool output often carries records as a Markdown
// table or an SQL statement inside a string: "| task | owner |\n|---|---|\n| Q3 report | Indah
// Siregar |", "INSERT INTO patients (mrn, full_name, birth_date) VALUES ('M87', 'Tone
// Sivertsen', '1976-03-03')". The column's name says what each cell holds as a member's name
// says what its value holds, so each cell is read again under its column's name, as a value is
// under its key: the name under "owner", the date of birth under "birth_date". The scan notes
// where such a table or statement starts when it meets a '|' at the start of a line or the word
// VALUES; the cells are read after the scan of the string, and text without either costs nothing.

const (
	maxTableRows = 200
	maxCellLen   = 256
)

// noteStructure records where a Markdown table or an SQL VALUES list starts, once per string.
func (x *scanCtx) noteStructure(i int) {
	if x.structAt == 0 {
		x.structAt = i + 1
	}
}

// structured reads the cells of the table or statement the scan noted under their columns' names.
func (x *scanCtx) structured() {
	at := x.structAt - 1
	x.structAt = 0
	if at < 0 || at >= len(x.s) {
		return
	}
	if x.s[at] == '|' {
		x.markdownTable(at)
	} else {
		x.sqlValues(at)
	}
}

// markdownTable reads the table whose header line starts at at.
func (x *scanCtx) markdownTable(at int) {
	s := x.s
	line := func(k int) (int, int) {
		e := strings.IndexByte(s[k:], '\n')
		if e < 0 {
			return k, len(s)
		}
		return k, k + e
	}
	ha, he := line(at)
	if he >= len(s) {
		return
	}
	sa, se := line(he + 1)
	if !separatorRow(s[sa:se]) {
		return
	}
	var heads []keyKind
	for _, c := range cells(s, ha, he) {
		heads = append(heads, x.keyOf(strings.TrimSpace(s[c[0]:c[1]])))
	}
	catalogueHealth(heads)
	k := se + 1
	for r := 0; r < maxTableRows && k < len(s) && s[k] == '|'; r++ {
		ra, re := line(k)
		for i, c := range cells(s, ra, re) {
			if i < len(heads) && heads[i] != keyNone {
				x.cellAs(c[0], c[1], heads[i])
			}
		}
		k = re + 1
	}
}

// separatorRow reports a Markdown table's line under its header: '|', '-', ':' and spaces.
func separatorRow(l string) bool {
	dash := false
	for i := 0; i < len(l); i++ {
		switch l[i] {
		case '-':
			dash = true
		case '|', ':', ' ', '\r':
		default:
			return false
		}
	}
	return dash
}

// cells returns the spans of a table line's cells between its '|'.
func cells(s string, a, e int) [][2]int {
	var out [][2]int
	k := a
	if k < e && s[k] == '|' {
		k++
	}
	for k < e && len(out) < 32 {
		n := strings.IndexByte(s[k:e], '|')
		end := e
		if n >= 0 {
			end = k + n
		}
		ca, ce := k, end
		for ca < ce && (s[ca] == ' ' || s[ca] == '\t') {
			ca++
		}
		for ce > ca && (s[ce-1] == ' ' || s[ce-1] == '\t' || s[ce-1] == '\r') {
			ce--
		}
		out = append(out, [2]int{ca, ce})
		if n < 0 {
			break
		}
		k = end + 1
	}
	return out
}

// sqlValues reads "INSERT INTO t (col, ...) VALUES (v, ...), (...)" around the word VALUES at at.
func (x *scanCtx) sqlValues(at int) {
	s := x.s
	// The column list: the last parenthesised list before VALUES.
	ce := strings.LastIndexByte(s[max(0, at-1024):at], ')')
	if ce < 0 {
		return
	}
	ce += max(0, at-1024)
	if strings.TrimSpace(s[ce+1:at]) != "" {
		return
	}
	ca := strings.LastIndexByte(s[:ce], '(')
	if ca < 0 {
		return
	}
	var heads []keyKind
	for _, c := range strings.Split(s[ca+1:ce], ",") {
		heads = append(heads, x.keyOf(strings.Trim(c, " \t\n`\"[]")))
	}
	k := at + len("VALUES")
	for r := 0; r < maxTableRows; r++ {
		for k < len(s) && (s[k] == ' ' || s[k] == '\n' || s[k] == '\t' || s[k] == ',') {
			k++
		}
		if k >= len(s) || s[k] != '(' {
			return
		}
		k++
		for col := 0; k < len(s); col++ {
			for k < len(s) && s[k] == ' ' {
				k++
			}
			va, ve, next := sqlLiteral(s, k)
			if next <= k {
				return
			}
			if col < len(heads) && heads[col] != keyNone && ve > va {
				x.cellAs(va, ve, heads[col])
			}
			k = next
			for k < len(s) && s[k] == ' ' {
				k++
			}
			if k < len(s) && s[k] == ',' {
				k++
				continue
			}
			if k < len(s) && s[k] == ')' {
				k++
			}
			break
		}
	}
}

// sqlLiteral returns the span of the SQL literal at k (inside its quotes, if quoted) and where
// what follows it starts.
func sqlLiteral(s string, k int) (a, e, next int) {
	if k >= len(s) {
		return k, k, k
	}
	if q := s[k]; q == '\'' || q == '"' {
		e = k + 1
		for e < len(s) && e-k < 4096 {
			if s[e] == q {
				if e+1 < len(s) && s[e+1] == q {
					e += 2 // '' inside a string
					continue
				}
				return k + 1, e, e + 1
			}
			e++
		}
		return k, k, k
	}
	e = k
	for e < len(s) && s[e] != ',' && s[e] != ')' && s[e] != '\n' && e-k < 256 {
		e++
	}
	ee := e
	for ee > k && s[ee-1] == ' ' {
		ee--
	}
	return k, ee, e
}

// cellAs reads the cell s[a:e] as the value of a member whose name is of kind key.
func (x *scanCtx) cellAs(a, e int, key keyKind) {
	if e-a < 2 || e-a > maxCellLen {
		return
	}
	s, k, base := x.s, x.key, x.base
	start := len(x.out)
	x.s, x.key = s[a:e], key
	x.keyContext()
	for i := start; i < len(x.out); i++ {
		x.out[i].Start += a
		x.out[i].End += a
	}
	x.s, x.key, x.base = s, k, base
}

// catalogueHealth drops the health columns of a table that has no column about a person: "|
// Condition | Waiting period | Cover |" is an insurer's terms, a formulary or a guideline, and its
// conditions are no one's. Their words are still read as the text's, and count as the conditions
// of prose do, when the table or its message identifies someone.
func catalogueHealth(heads []keyKind) {
	for _, h := range heads {
		if h != keyNone && h != keyHealth {
			return
		}
	}
	for i, h := range heads {
		if h == keyHealth {
			heads[i] = keyNone
		}
	}
}
