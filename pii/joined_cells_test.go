package pii

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// TestCellSplitValue: a value split over cells ({"v":…} objects in an array) is read in the
// array's joined view as scalar items are, and a phone number whose country code is written with
// its '+' in a part of its own, its groups in the parts after, is one wherever the parts are
// cells, fragments or items; every walk finds it and MaskTree hides every piece. Lists of small
// numbers after a "+1" and cells of words are none.
func TestCellSplitValue(t *testing.T) {
	sc := mustScanner(t)
	r := rand.New(rand.NewPCG(67, 68))
	digits := func(n int) string {
		var b strings.Builder
		for ; n > 0; n-- {
			b.WriteByte(byte('0' + r.IntN(10)))
		}
		return b.String()
	}
	n := map[Type]int{}
	for k := 0; k < 60; k++ {
		var typ Type
		var pieces []string
		switch k % 3 {
		case 0:
			typ = TypePhone
			cc, rest := []string{"+31", "+33", "+506", "+49"}[k/3%4], ""
			switch cc {
			case "+31":
				rest = "6" + string("12345"[r.IntN(5)]) + digits(7)
			case "+33":
				rest = "6" + digits(8)
			case "+506":
				rest = "8" + string("345678"[r.IntN(6)]) + digits(6)
			case "+49":
				rest = "151" + digits(8)
			}
			cut := 3 + r.IntN(len(rest)-5)
			pieces = []string{cc, rest[:cut], rest[cut:]}
		case 1:
			typ = TypeEmail
			v := genValues(r, 1)[0] // the first of genValues is an address
			local, domain, _ := strings.Cut(v.v, "@")
			pieces = []string{local, "@", domain}
		default:
			typ = TypeCard
			v := genValues(r, 2)[1] // the second of genValues is a card number
			for i := 0; i < len(v.v); i += 4 {
				pieces = append(pieces, v.v[i:min(i+4, len(v.v))])
			}
		}
		var items []any
		cellKey := []string{"v", "value", "content"}[r.IntN(3)]
		for _, p := range pieces {
			if k%2 == 0 {
				items = append(items, map[string]any{cellKey: p})
			} else {
				items = append(items, p)
			}
		}
		payload := map[string]any{"row": map[string]any{"cells": items}, "sheet": "S1"}
		if typ == TypePhone && k%2 == 1 {
			payload = map[string]any{"fragments": items, "join": ""}
		}
		tree, value, masked := scanAllWays(t, sc, payload)
		if !slices.ContainsFunc(tree, func(f Finding) bool { return f.Type == typ }) {
			t.Errorf("%v: no %s: %v", payload, typ, tree)
			continue
		}
		if !slices.ContainsFunc(value, func(f Finding) bool { return f.Type == typ }) {
			t.Errorf("%v: ScanValue finds no %s: %v", payload, typ, value)
		}
		for _, p := range pieces {
			if p != "@" && strings.Contains(masked, `"`+p+`"`) {
				t.Errorf("MaskTree leaves the piece %q: %s", p, masked)
			}
		}
		n[typ]++
	}
	for _, neg := range []any{
		map[string]any{"scores": []any{"+1", "2", "3", "45"}},
		map[string]any{"deltas": []any{map[string]any{"v": "+12"}, map[string]any{"v": "4400"}, map[string]any{"v": "-3"}}},
		map[string]any{"cells": []any{map[string]any{"v": "Total"}, map[string]any{"v": "+5"}, map[string]any{"v": fmt.Sprint(r.IntN(90))}}},
		map[string]any{"cells": []any{map[string]any{"v": "Order"}, map[string]any{"v": "shipped"}, map[string]any{"v": "2026-03-01"}}},
	} {
		if tree, _, _ := scanAllWays(t, sc, neg); len(tree) > 0 {
			t.Errorf("%v: %v", neg, tree)
		}
	}
	for _, typ := range []Type{TypePhone, TypeEmail, TypeCard} {
		if n[typ] < 15 {
			t.Errorf("%s: %d variants found, want at least 15", typ, n[typ])
		}
	}
}
