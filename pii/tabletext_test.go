package pii

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestTableText: a cell of a Markdown table or of an SQL VALUES list is read under its column's
// name: a person's name under "owner" or "full_name", a date of birth under "birth_date"; the
// same tables with columns that name nothing personal, or a date under "created_at", pass.
func TestTableText(t *testing.T) {
	sc := mustScanner(t)
	r := rand.New(rand.NewPCG(31, 32))
	for k := 0; k < 30; k++ {
		name := genUnknownName(r)
		date := fmt.Sprintf("%04d-%02d-%02d", 1940+r.IntN(60), 1+r.IntN(12), 1+r.IntN(28))
		var rows []string
		for i := 0; i < 1+r.IntN(3); i++ {
			rows = append(rows, fmt.Sprintf("| %s | %s | %s |", []string{"fix login", "Q3 report", "vendor audit"}[r.IntN(3)], name,
				[]string{"open", "done", "blocked"}[r.IntN(3)]))
		}
		md := "| task | " + []string{"owner", "assignee", "reviewer"}[r.IntN(3)] + " | status |\n|---|---|---|\n" + strings.Join(rows, "\n")
		sql := fmt.Sprintf("INSERT INTO patients (mrn, full_name, birth_date) VALUES ('M%07d', '%s', '%s');", r.IntN(9999999), name, date)
		dob := fmt.Sprintf("INSERT INTO patients (mrn, birth_date) VALUES ('M%07d', '%s'), ('M%07d', '%s');", r.IntN(9999999), date, r.IntN(9999999), date)
		for _, c := range []struct {
			s string
			t Type
		}{{md, TypeName}, {sql, TypeName}, {sql, TypeDOB}, {dob, TypeDOB}} {
			if !hasType(sc.ScanText(c.s), c.t) {
				t.Errorf("%q: no %v", c.s, c.t)
			}
		}
		negs := []string{
			strings.ReplaceAll(md, "| task | owner |", "| task | region |"),
			fmt.Sprintf("INSERT INTO builds (id, branch, created_at) VALUES (%d, 'main', '%s');", r.IntN(9999), date),
			fmt.Sprintf("INSERT INTO orders (id, sku, qty) VALUES (%d, 'ABC-%d', %d), (%d, 'XYZ-9', 1);", r.IntN(99), r.IntN(999), r.IntN(9), r.IntN(99)),
		}
		for _, neg := range negs {
			if strings.Contains(neg, "owner") || strings.Contains(neg, "assignee") || strings.Contains(neg, "reviewer") {
				continue
			}
			if fs := sc.ScanText(neg); len(fs) > 0 {
				t.Errorf("%q: %v", neg, fs)
			}
		}
	}
}

// TestBirthCuesWorldwide: a date after a birth cue in the languages of Northern, Central and
// Eastern Europe, Greek and Korean, including dates written with ". ", is a date of birth; the
// same dates after other words are not.
func TestBirthCuesWorldwide(t *testing.T) {
	sc := mustScanner(t)
	r := rand.New(rand.NewPCG(33, 34))
	for k := 0; k < 30; k++ {
		y, m, d := 1940+r.IntN(65), 1+r.IntN(12), 1+r.IntN(28)
		cue := []string{"Дата рождения: %02d.%02d.%04d", "Född %02[1]d.%02[2]d.%04[3]d enligt passet.", "Syntynyt %d.%d.%04d",
			"Datum narození: %d. %d. %04d", "Ημερομηνία γέννησης: %02d/%02d/%04d", "Rođen %02d.%02d.%04d."}[r.IntN(6)]
		s := fmt.Sprintf(cue, d, m, y)
		if !hasType(sc.ScanText(s), TypeDOB) {
			t.Errorf("%q: no date of birth", s)
		}
		neg := fmt.Sprintf([]string{"Dodáno %d. %d. %04d.", "Faktura z %02d.%02d.%04d", "Toimitettu %d.%d.%04d"}[r.IntN(3)], d, m, y)
		if fs := sc.ScanText(neg); hasType(fs, TypeDOB) {
			t.Errorf("%q: %v", neg, fs)
		}
	}
}
