package pii

import (
	"crypto/sha256"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"
)

var probeBeforeFlag = flag.String("probe.before", "", "with TestProbe, write the named probe's figures as its before file: NAME@COMMIT (e.g. probe2@497c9af), once, before any detector is changed for it")

// probes are the probes of the corpus: sets of rows written apart from the other generators, in
// the shapes of agents' tool calls, to measure how the detectors generalise to phrasings and
// formats they were not written from. Each was scored once before any detector was changed for it
// (testdata/corpus/NAME_before.json).
var probes = []struct{ name, source string }{
	{"probe", "probe/"},
	{"probe2", "probe2/"},
	{"probe3", "probe3/"},
	{"probe4", "probe4/"},
	{"probe5", "probe5/"},
	{"probe6", "probe6/"},
	{"probe7", "probe7/"},
	{"probe8", "probe8/"},
	{"probe9", "probe9/"},
	{"probe10", "probe10/"},
}

// TestProbe scores the gate, as TestAccuracy scores a row, on each probe (testdata/corpus/probe.jsonl
// from pii/internal/corpusgen/probe_rows.py, probe2.jsonl from probe2_rows.py, probe3.jsonl from
// probe3_rows.py, probe4.jsonl from probe4_rows.py, apart/probe5.jsonl from probe5_rows.py, apart/probe6.jsonl from
// probe6_rows.py, apart/probe7.jsonl from probe7_rows.py, apart/probe8.jsonl from probe8_rows.py,
// apart/probe9.jsonl from probe9_rows.py, apart/probe10.jsonl from probe10_rows.py). It holds
// each probe to its own making (every family, at least 20 rows per shape, the split by hash of id) and
// logs the figures per family and shape; TestAccuracy holds the probes' test rows, with the rest of the
// corpus, to the targets, but for the probes kept apart (probe_apart_test.go), whose figures are this
// test's alone. With -v it lists the development parts' misses.
func TestProbe(t *testing.T) {
	sc, err := New(nil)
	if err != nil {
		t.Fatal(err)
	}
	all := append(readCorpus(t), readCorpusApart(t)...)
	for _, p := range probes {
		t.Run(p.name, func(t *testing.T) {
			var rows []corpusRow
			for _, r := range all {
				if strings.HasPrefix(r.Source, p.source) {
					rows = append(rows, r)
				}
			}
			before := scoreProbe(t, sc, rows)
			if name, commit, ok := strings.Cut(*probeBeforeFlag, "@"); ok && name == p.name {
				writeProbeBefore(t, p.name, commit, before)
			}
		})
	}
}

type probeTally struct{ all, dev, test ratio }

// scoreProbe logs one probe's figures and returns them per family ("overall block", "overall pass"
// and the families).
func scoreProbe(t *testing.T, sc *Scanner, rows []corpusRow) map[string]*probeTally {
	if len(rows) < 600 {
		t.Fatalf("the probe has %d rows, want at least 600", len(rows))
	}
	fams := map[string]*probeTally{"overall block": {}, "overall pass": {}}
	shapes := map[string]*ratio{}
	for _, r := range rows {
		h := sha256.Sum256([]byte(r.ID))
		if want := map[bool]string{true: "dev", false: "test"}[h[0] < 128]; r.Split != want {
			t.Errorf("%s: split %s, its hash says %s", r.ID, r.Split, want)
		}
		block, fs := gateDecision(sc, r.payload(t))
		x := fams[r.Family]
		if x == nil {
			x = &probeTally{}
			fams[r.Family] = x
		}
		s := shapes[r.Family+" "+r.Source]
		if s == nil {
			s = &ratio{}
			shapes[r.Family+" "+r.Source] = s
		}
		tot := fams["overall block"]
		if !r.MustBlock {
			tot = fams["overall pass"]
		}
		part, totPart := &x.test, &tot.test
		if r.Split == "dev" {
			part, totPart = &x.dev, &tot.dev
			if block != r.MustBlock {
				t.Log(devMiss(r, fs))
			}
		}
		for _, q := range []*ratio{&x.all, &tot.all, s, part, totPart} {
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
	line := func(name string, must bool, x *probeTally) {
		if x != nil {
			t.Logf("%-18s %-5s %-18s %-18s %-18s", name, map[bool]string{true: "block", false: "pass"}[must], x.all, x.dev, x.test)
		}
	}
	line("overall", true, fams["overall block"])
	line("overall", false, fams["overall pass"])
	for _, fam := range blockFamilies {
		line(fam, true, fams[fam])
	}
	for _, fam := range passFamilies {
		line(fam, false, fams[fam])
	}
	for _, k := range keys {
		t.Logf("shape %-48s %s", k, fmt.Sprint(*shapes[k]))
	}
	return fams
}

// writeProbeBefore writes testdata/corpus/NAME_before.json, refusing to replace one: the figure
// before any detector was changed for a probe is taken once.
func writeProbeBefore(t *testing.T, name, commit string, fams map[string]*probeTally) {
	path := filepath.Join("testdata", "corpus", name+"_before.json")
	if _, err := os.Stat(path); err == nil {
		t.Fatalf("%s exists: a probe's before figure is taken once", path)
	}
	var keys []string
	for k := range fams {
		keys = append(keys, k)
	}
	order := append([]string{"overall block", "overall pass"}, append(slices.Clone(blockFamilies), passFamilies...)...)
	slices.SortFunc(keys, func(a, b string) int { return slices.Index(order, a) - slices.Index(order, b) })
	var b strings.Builder
	fmt.Fprintf(&b, "{\n\"what\": \"the probe scored by the detectors of commit %s, before any was changed for it: [rows blocked, rows], all rows and the test part\",\n", commit)
	fmt.Fprintf(&b, "\"date\": %q, \"commit\": %q,\n\"families\": {\n", time.Now().UTC().Format(time.DateOnly), commit)
	for i, k := range keys {
		x := fams[k]
		sep := ","
		if i == len(keys)-1 {
			sep = ""
		}
		fmt.Fprintf(&b, "  %q: {\"all\": [%d, %d], \"test\": [%d, %d]}%s\n", k, x.all.hit, x.all.n, x.test.hit, x.test.n, sep)
	}
	b.WriteString("}\n}\n")
	var check probeBefore
	if err := json.Unmarshal([]byte(b.String()), &check); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}
