package pii

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// TestColumnSplitValue: a value split down a column of a table's rows ({"values":[["field",
// "part"],["card","4508"],…]}), under a header row or not, in cells or cell objects, is found by
// every walk on each piece and MaskTree hides each; a table of orders, SKUs and amounts, and one
// of words, is none.
func TestColumnSplitValue(t *testing.T) {
	sc := mustScanner(t)
	r := rand.New(rand.NewPCG(79, 80))
	n := map[Type]int{}
	for k := 0; k < 40; k++ {
		vals := genValues(r, 2)
		val := vals[k%2]
		var pieces []string
		if val.typ == TypeEmail {
			local, domain, _ := strings.Cut(val.v, "@")
			pieces = []string{local, "@", domain}
		} else {
			for i := 0; i < len(val.v); i += 4 {
				pieces = append(pieces, val.v[i:min(i+4, len(val.v))])
			}
		}
		var rows []any
		if k%3 != 0 {
			rows = append(rows, []any{"field", "part"})
		}
		for _, p := range pieces {
			var cell any = p
			if k%4 == 1 {
				cell = map[string]any{"v": p}
			}
			rows = append(rows, []any{string(val.typ), cell})
		}
		payload := map[string]any{"range": "Sheet1!A1:B9", "values": rows}
		tree, value, masked := scanAllWays(t, sc, payload)
		if !slices.ContainsFunc(tree, func(f Finding) bool { return f.Type == val.typ }) {
			t.Errorf("%v: no %s: %v", payload, val.typ, tree)
			continue
		}
		if !slices.ContainsFunc(value, func(f Finding) bool { return f.Type == val.typ }) {
			t.Errorf("%v: ScanValue finds no %s: %v", payload, val.typ, value)
		}
		for _, p := range pieces {
			if p != "@" && strings.Contains(masked, `"`+p+`"`) {
				t.Errorf("MaskTree leaves the piece %q: %s", p, masked)
			}
		}
		n[val.typ]++
	}
	for _, typ := range []Type{TypeEmail, TypeCard} {
		if n[typ] < 15 {
			t.Errorf("%s: %d found, want at least 15", typ, n[typ])
		}
	}
	for k := 0; k < 20; k++ {
		rows := []any{[]any{"Order", "SKU", "Qty", "Amount"}}
		for i := 0; i < 2+r.IntN(4); i++ {
			rows = append(rows, []any{"7" + digitString(r, 9), "SKU-" + digitString(r, 8), digitString(r, 2), digitString(r, 4) + ".50"})
		}
		if tree, _, _ := scanAllWays(t, sc, map[string]any{"values": rows}); len(tree) > 0 {
			t.Errorf("%v: %v", rows, tree)
		}
	}
}

func digitString(r *rand.Rand, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte('0' + r.IntN(10))
	}
	return string(b)
}
