package sqlstore

import (
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/moltgate/moltgate/directory"

	_ "modernc.org/sqlite"
)

// TestSQLitePlan checks that SQLite answers a search by one capability in
// the default order from the capability index alone, in index order,
// without sorting the candidates: the plan behind the discovery figures
// in docs/benchmarks.md.
func TestSQLitePlan(t *testing.T) {
	db, err := sql.Open("sqlite", "file:"+filepath.Join(t.TempDir(), "plan.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := Migrate(t.Context(), db, Dialect{}, os.DirFS("../../sqlitestore/migrations"), ""); err != nil {
		t.Fatal(err)
	}
	s := New(TxWriter(db, nil), db, db, Dialect{Name: "sqlite"}, directory.Options{}, nil)
	now := time.Now().UnixMilli()
	for _, q := range []directory.Query{
		{Capability: "calendar.schedule", Limit: 10, Viewer: directory.Viewer{Org: "globex"}},
		{Capability: "calendar.schedule", Verified: true, MinUptime: 0.9, Orgs: []string{"acme", "initech"}},
		{Capability: "calendar.schedule", Viewer: directory.Viewer{Local: true}},
		{Capability: "calendar.schedule", Viewer: directory.Viewer{Local: true}, IncludeHidden: true},
	} {
		p, err := s.compile(&q, now)
		if err != nil {
			t.Fatal(err)
		}
		for _, cursor := range [][]int64{nil, {4, 1000000, now, 42}} {
			p.cursor = cursor
			b := p.pageQuery()
			rows, err := db.Query("EXPLAIN QUERY PLAN "+b.sb.String(), b.args...)
			if err != nil {
				t.Fatal(err)
			}
			var plan []string
			for rows.Next() {
				var id, parent, unused int
				var detail string
				if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
					t.Fatal(err)
				}
				plan = append(plan, detail)
			}
			rows.Close()
			text := strings.Join(plan, "\n")
			if strings.Contains(text, "TEMP B-TREE") || !strings.Contains(text, "SEARCH c USING PRIMARY KEY (cap=?") {
				t.Errorf("query %+v, cursor %v: plan\n%s", q, cursor, text)
			}
		}
	}
}
