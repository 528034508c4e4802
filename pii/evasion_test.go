package pii

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

var evasionBefore = flag.Bool("evasion.before", false, "write testdata/corpus/evasion_before.json from the measured figures, once, before the detectors are changed for them")

// TestEvasion is a metamorphic test of hostile rewriting. Each row of the corpus's development
// part that the gate decides rightly as written is rewritten by each of evTransforms the way an
// agent that means to get a value past the gate would (zero-width characters, look-alikes,
// spelling out, encodings, splitting across fields...), and the gate must decide the rewritten
// row the same way: a row that must be blocked is still blocked, a row that must pass still
// passes (normalisation must not make values of ordinary text). The rewriting's parameters
// (where, which characters, which encoding) are drawn from a stream seeded by a hash of the
// row's id and the rewriting's name, and the same hash puts the pair (row, rewriting) in a
// development or a test part: the test part's figures are reported, its misses never listed.
// The corpus's own test part is not used. Figures may not fall below those recorded in
// testdata/corpus/evasion.json (-update rewrites it), from which docs/pii-accuracy.md shows them.
func TestEvasion(t *testing.T) {
	res := evasionResults(t)
	t.Logf("%-22s %-22s %-22s %-22s %-22s", "rewriting", "dev still blocked", "test still blocked", "dev now blocked", "test now blocked")
	for _, name := range evNames() {
		x := res.figures[name]
		t.Logf("%-22s %-22s %-22s %-22s %-22s", name, x.DevBlock, x.TestBlock, x.DevPass, x.TestPass)
	}
	for _, m := range res.devMisses {
		t.Log(m)
	}
	if *evasionBefore {
		path := filepath.Join("testdata", "corpus", "evasion_before.json")
		if _, err := os.Stat(path); err == nil {
			t.Fatalf("%s exists: the figures before are taken once", path)
		}
		if err := os.WriteFile(path, evJSON(res.figures), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	floorsPath := filepath.Join("testdata", "corpus", "evasion.json")
	if *update {
		if err := os.WriteFile(floorsPath, evJSON(res.figures), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	floors := readEvFigures(t, floorsPath)
	for _, name := range evNames() {
		f, ok := floors[name]
		if !ok {
			t.Errorf("%s has no figures in %s: run go test ./pii -run TestEvasion -update", name, floorsPath)
			continue
		}
		if *res.figures[name] != f {
			t.Logf("%s: figures moved from those recorded: run go test ./pii -run TestEvasion -update", name)
		}
		x := res.figures[name]
		for _, c := range []struct {
			part       string
			now, floor evRatio
			recall     bool
		}{{"dev still blocked", x.DevBlock, f.DevBlock, true}, {"test still blocked", x.TestBlock, f.TestBlock, true},
			{"dev false blocks", x.DevPass, f.DevPass, false}, {"test false blocks", x.TestPass, f.TestPass, false}} {
			// The rows rewritten are those the gate decides rightly as written, a set that
			// moves with every detector: a figure may wander by evSlack before it counts as worse.
			if c.recall && c.now.r4() < c.floor.r4()-evSlack || !c.recall && c.now.r4() > c.floor.r4()+evSlack {
				t.Errorf("%s, %s: %s, worse than its floor %s", name, c.part, c.now, c.floor)
			}
		}
	}
}

// evSlack is how far a figure may fall below the one recorded before TestEvasion fails.
const evSlack = 0.01

// evRatio is [rows blocked, rows].
type evRatio [2]int

func (r evRatio) r4() float64 {
	if r[1] == 0 {
		return 0
	}
	return float64(r[0]*10000/r[1]) / 10000
}

func (r evRatio) String() string { return frac(r[0], r[1]) }

// evFigures are one rewriting's figures: of the rows blocked as written that must be blocked,
// how many are blocked rewritten; of the rows passed as written that must pass, how many are
// blocked rewritten; each in the development and the test part.
type evFigures struct {
	DevBlock  evRatio `json:"dev_block"`
	TestBlock evRatio `json:"test_block"`
	DevPass   evRatio `json:"dev_pass"`
	TestPass  evRatio `json:"test_pass"`
}

type evResult struct {
	figures   map[string]*evFigures
	devMisses []string
}

var evOnce struct {
	sync.Once
	res *evResult
}

// evasionResults measures the rewritings once per test binary: TestEvasion and TestAccuracy's
// document share it.
func evasionResults(t *testing.T) *evResult {
	evOnce.Do(func() { evOnce.res = measureEvasion(t) })
	if evOnce.res == nil {
		t.Fatal("the evasion measure failed")
	}
	return evOnce.res
}

func evNames() []string {
	var out []string
	for _, tr := range evTransforms {
		out = append(out, tr.name)
	}
	return out
}

// evSeed is the hash that draws a rewriting's parameters for a row and puts the pair in a part.
func evSeed(id, name string) (dev bool, r *rand.Rand) {
	h := sha256.Sum256([]byte("evasion\x00" + id + "\x00" + name))
	return h[0] < 128, rand.New(rand.NewPCG(binary.LittleEndian.Uint64(h[8:]), binary.LittleEndian.Uint64(h[16:])))
}

func measureEvasion(t *testing.T) *evResult {
	sc, err := New(nil)
	if err != nil {
		t.Fatal(err)
	}
	res := &evResult{figures: map[string]*evFigures{}}
	for _, tr := range evTransforms {
		res.figures[tr.name] = &evFigures{}
	}
	// A few misses per rewriting and family are listed: enough to see what fails.
	const maxShown = 6
	shown := map[string]int{}
	for _, row := range readCorpus(t) {
		if row.Split != "dev" {
			continue
		}
		block, fs := gateDecision(sc, row.payload(t))
		if block != row.MustBlock {
			continue
		}
		base := toENode(row.payload(t))
		base.setSpans(fs)
		for _, tr := range evTransforms {
			dev, r := evSeed(row.ID, tr.name)
			v, name, ok := rewrite(tr, r, base)
			if !ok {
				continue
			}
			got, gfs := gateDecision(sc, v)
			x := res.figures[tr.name]
			q := &x.TestBlock
			switch {
			case dev && row.MustBlock:
				q = &x.DevBlock
			case dev:
				q = &x.DevPass
			case !row.MustBlock:
				q = &x.TestPass
			}
			q[1]++
			if got {
				q[0]++
			}
			if dev && got != row.MustBlock && shown[name+" "+row.Family] < maxShown {
				shown[name+" "+row.Family]++
				b, _ := v.MarshalJSON()
				what := "passed"
				if got {
					var why []string
					for _, f := range gfs {
						why = append(why, f.Type.String()+" by "+f.Rule)
					}
					what = "blocked: " + strings.Join(dedup(why), ", ")
				}
				res.devMisses = append(res.devMisses, fmt.Sprintf("evasion dev %s %s %s %s: %s", name, row.Family, row.ID, what,
					strings.ReplaceAll(truncN(string(b), 240), "\n", `\n`)))
			}
		}
	}
	return res
}

// evJSON writes figures one rewriting a line, in evTransforms' order.
func evJSON(figs map[string]*evFigures) []byte {
	var b strings.Builder
	b.WriteString("{\n")
	for i, name := range evNames() {
		line, _ := json.Marshal(figs[name])
		fmt.Fprintf(&b, "  %q: %s", name, line)
		if i < len(evTransforms)-1 {
			b.WriteString(",")
		}
		b.WriteString("\n")
	}
	b.WriteString("}\n")
	return []byte(b.String())
}

func truncN(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}

func readEvFigures(t *testing.T, path string) map[string]evFigures {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read %s: %v (run with -update)", path, err)
	}
	var m map[string]evFigures
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return m
}
