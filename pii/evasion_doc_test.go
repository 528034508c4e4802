package pii

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// evasionSection renders the section of docs/pii-accuracy.md on hostile rewriting from
// testdata/corpus/evasion_before.json (the figures before normalisation was changed for them)
// and evasion.json (the figures TestEvasion -update last recorded).
func evasionSection() string {
	read := func(name string) map[string]evFigures {
		b, err := os.ReadFile(filepath.Join("testdata", "corpus", name))
		if err != nil {
			return nil
		}
		var m map[string]evFigures
		if json.Unmarshal(b, &m) != nil {
			return nil
		}
		return m
	}
	before, now := read("evasion_before.json"), read("evasion.json")
	if before == nil || now == nil {
		return ""
	}
	var s strings.Builder
	p := func(format string, a ...any) { fmt.Fprintf(&s, format, a...) }
	p("## Hostile rewriting\n\n")
	p("An agent that means to get a value past the gate rewrites it. `go test ./pii -run TestEvasion` takes each\n")
	p("row of the development part that the gate decides rightly as written, rewrites it in each of the ways\n")
	p("below, and scores the gate's decision on the rewritten row: a row that must be blocked must still be\n")
	p("blocked, and a row that must pass must still pass. The values a rewriting aims at are what the gate\n")
	p("found in the row as written (for a row that must pass, its words holding a digit or '@' or of ten bytes or\n")
	p("more). Where, with what and how much a rewriting changes are drawn from a stream seeded by a hash of the\n")
	p("row's id and the rewriting's name; the same hash puts each pair (row, rewriting) in a development or a\n")
	p("test part. Normalisation is worked on from the development part's misses only, which `-v` lists; the\n")
	p("test part's pairs are counted, never listed. \"Before\" is the measure before normalisation was changed\n")
	p("for it (testdata/corpus/evasion_before.json); \"now\" the one TestEvasion -update last recorded\n")
	p("(evasion.json), which the test holds as a floor. A must-pass row's rewriting that changes its words\n")
	p("themselves (reversed, look-alikes for digits) may make a value of its own, so the last columns measure\n")
	p("new values as well as what normalisation makes of ordinary text.\n\n")
	p("| rewriting | must block, still blocked: dev before | dev now | test before | test now | must pass, blocked: dev before | dev now | test before | test now |\n")
	p("|---|---|---|---|---|---|---|---|---|\n")
	for _, t := range evTransforms {
		b, n := before[t.name], now[t.name]
		p("| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", t.name, b.DevBlock, n.DevBlock, b.TestBlock, n.TestBlock,
			b.DevPass, n.DevPass, b.TestPass, n.TestPass)
	}
	p("\nThe rewritings:\n\n")
	for _, t := range evTransforms {
		p("- %s: %s\n", t.name, t.what)
	}
	p("\n")
	return s.String()
}
