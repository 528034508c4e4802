package pii

import (
	"crypto/sha256"
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"
)

// TestProbe scores the gate, as TestAccuracy scores a row, on the probe (testdata/corpus/probe.jsonl,
// pii/internal/corpusgen/probe_rows.py): rows written apart from the other generators, in the shapes
// of agents' tool calls, to measure how the detectors generalise to phrasings and formats they were
// not written from. It holds the probe to its own making (every family, at least 20 rows per shape,
// the split by hash of id) and logs the figures per family and shape; TestAccuracy holds the probe's
// test rows, with the rest of the corpus, to the targets. With -v it lists the development part's
// misses.
func TestProbe(t *testing.T) {
	sc, err := New(nil)
	if err != nil {
		t.Fatal(err)
	}
	var rows []corpusRow
	for _, r := range readCorpus(t) {
		if strings.HasPrefix(r.Source, "probe/") {
			rows = append(rows, r)
		}
	}
	if len(rows) < 600 {
		t.Fatalf("the probe has %d rows, want at least 600", len(rows))
	}
	type tally struct{ all, dev, test ratio }
	fams := map[string]*tally{}
	shapes := map[string]*ratio{}
	var total [2]tally // must block, must pass
	for _, r := range rows {
		h := sha256.Sum256([]byte(r.ID))
		if want := map[bool]string{true: "dev", false: "test"}[h[0] < 128]; r.Split != want {
			t.Errorf("%s: split %s, its hash says %s", r.ID, r.Split, want)
		}
		block, fs := gateDecision(sc, r.payload(t))
		x := fams[r.Family]
		if x == nil {
			x = &tally{}
			fams[r.Family] = x
		}
		s := shapes[r.Family+" "+r.Source]
		if s == nil {
			s = &ratio{}
			shapes[r.Family+" "+r.Source] = s
		}
		tot := &total[0]
		if !r.MustBlock {
			tot = &total[1]
		}
		for _, q := range []*ratio{&x.all, &tot.all, s} {
			q.n++
			if block {
				q.hit++
			}
		}
		part := &x.test
		totPart := &tot.test
		if r.Split == "dev" {
			part, totPart = &x.dev, &tot.dev
			if block != r.MustBlock {
				t.Log(devMiss(r, fs))
			}
		}
		for _, q := range []*ratio{part, totPart} {
			q.n++
			if block {
				q.hit++
			}
		}
	}
	for _, fam := range append(slices.Clone(blockFamilies), passFamilies...) {
		if fams[fam] == nil {
			t.Errorf("the probe has no rows of family %s", fam)
		}
	}
	var keys []string
	for k, s := range shapes {
		if s.n < 20 {
			t.Errorf("probe shape %s has %d rows, want at least 20", k, s.n)
		}
		keys = append(keys, k)
	}
	sort.Strings(keys)
	t.Logf("%-18s %-5s %-18s %-18s %-18s", "family", "must", "all", "dev", "test")
	line := func(name string, must bool, x tally) {
		t.Logf("%-18s %-5s %-18s %-18s %-18s", name, map[bool]string{true: "block", false: "pass"}[must], x.all, x.dev, x.test)
	}
	line("overall", true, total[0])
	line("overall", false, total[1])
	for _, fam := range blockFamilies {
		line(fam, true, *fams[fam])
	}
	for _, fam := range passFamilies {
		line(fam, false, *fams[fam])
	}
	for _, k := range keys {
		t.Logf("shape %-48s %s", k, fmt.Sprint(*shapes[k]))
	}
}
