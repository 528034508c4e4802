package pii

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/moltgate/moltgate/wire"
)

var lowerFloors = flag.Bool("corpus.lower", false, "with -update, let measures fall below their target or their floor: only after a change to the corpus")

// The targets of the evaluation (issue 20). A family of hard negatives is held to the overall
// false-block bound too, so that no kind of ordinary traffic is given up for the others.
const (
	targetRecall       = 0.97
	targetFamilyRecall = 0.90
	targetFalseBlock   = 0.02
)

// corpusRow is one line of testdata/corpus/*.jsonl; README.md there describes the format.
type corpusRow struct {
	ID        string          `json:"id"`
	Family    string          `json:"family"`
	Source    string          `json:"source"`
	Split     string          `json:"split"`
	MustBlock bool            `json:"must_block"`
	Types     []string        `json:"types"`
	Text      *string         `json:"text"`
	JSON      json.RawMessage `json:"json"`
}

var (
	blockFamilies = []string{"struct_pii", "intl_phone", "national_id", "dob_context", "names_context", "health",
		"vendor_secret", "url_credentials", "password_prose", "keyword_token", "pem_key", "encoded", "split_json", "error_text"}
	passFamilies = []string{"bad_checksum", "labelled_number", "git_ssh", "benign_prose", "benign_code", "benign_health",
		"benign_names", "benign_secretlike"}
)

func readCorpus(t *testing.T) []corpusRow {
	t.Helper()
	return readCorpusFiles(t, filepath.Join("testdata", "corpus", "*.jsonl"))
}

// readCorpusFiles reads and checks the rows of the files that pattern names.
func readCorpusFiles(t *testing.T, pattern string) []corpusRow {
	t.Helper()
	files, err := filepath.Glob(pattern)
	if err != nil || len(files) == 0 {
		t.Fatalf("no corpus at %s: %v", pattern, err)
	}
	var rows []corpusRow
	seen := map[string]bool{}
	for _, name := range files {
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(bytes.NewReader(data))
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for n := 1; sc.Scan(); n++ {
			var r corpusRow
			if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
				t.Fatalf("%s:%d: %v", name, n, err)
			}
			wantBlock := slices.Contains(blockFamilies, r.Family)
			switch {
			case seen[r.ID]:
				t.Fatalf("%s:%d: id %s appears twice", name, n, r.ID)
			case !wantBlock && !slices.Contains(passFamilies, r.Family):
				t.Fatalf("%s:%d: unknown family %q", name, n, r.Family)
			case r.MustBlock != wantBlock:
				t.Fatalf("%s:%d: family %s is must_block=%v, row says %v", name, n, r.Family, wantBlock, r.MustBlock)
			case r.Split != "dev" && r.Split != "test":
				t.Fatalf("%s:%d: split %q, want dev or test", name, n, r.Split)
			case (r.Text == nil) == (r.JSON == nil):
				t.Fatalf("%s:%d: a row has either text or json", name, n)
			}
			seen[r.ID] = true
			rows = append(rows, r)
		}
	}
	return rows
}

// gateHeader is the message header the gate leaves to the decoder and the signature
// (classify.Gate scans every member but these).
func gateHeader(key string) bool {
	switch key {
	case "v", "id", "ts", "op", "from", "to", "cls", "sig", "re", "exp", "cap", "pii_meta":
		return true
	}
	return false
}

// gateDecision is what the gate decides for a message of class int (below pii) with no consent
// whose payload is p: it scans the message tree outside the header, blocks any secret, and
// blocks any personal data, for which a consent would be needed. It returns the findings.
func gateDecision(sc *Scanner, p wire.Value) (bool, []Finding) {
	return gateBlocks(sc, gateMessage(p))
}

// gateMessage is a message of class int, without pii_meta, whose payload is p.
func gateMessage(p wire.Value) wire.Value {
	return wire.ObjectValue(
		wire.Member{Key: "v", Value: wire.StringValue("1")},
		wire.Member{Key: "op", Value: wire.StringValue("task")},
		wire.Member{Key: "cls", Value: wire.StringValue("int")},
		wire.Member{Key: "p", Value: p})
}

func gateBlocks(sc *Scanner, msg wire.Value) (bool, []Finding) {
	fs := sc.ScanTree("", msg, gateHeader)
	sum := Summarize(fs)
	return sum.Secret || len(sum.Types) > 0, fs
}

// payload is the row as the gate sees it: a text row is the string value of a payload member,
// a json row is the payload.
func (r corpusRow) payload(t *testing.T) wire.Value {
	if r.Text != nil {
		return wire.ObjectValue(wire.Member{Key: "text", Value: wire.StringValue(*r.Text)})
	}
	v, err := wire.Parse(r.JSON, 0)
	if err != nil {
		t.Fatalf("%s: json: %v", r.ID, err)
	}
	return v
}

// measure is one figure of the table: a recall (higher is better) or a false-block rate.
type measure struct {
	name   string // "recall overall", "recall health", "false blocks benign_code"...
	hit, n int
	recall bool
}

func (m measure) v() float64 {
	if m.n == 0 {
		return 0
	}
	return float64(m.hit) / float64(m.n)
}

// r4 is the figure as the floors file and the document hold it.
func (m measure) r4() float64 { return math.Round(m.v()*10000) / 10000 }

func (m measure) target() float64 {
	switch {
	case !m.recall:
		return targetFalseBlock
	case m.name == "recall overall":
		return targetRecall
	}
	return targetFamilyRecall
}

func (m measure) meets() bool {
	if m.recall {
		return m.v() >= m.target()
	}
	return m.v() <= m.target()
}

// TestAccuracy scores the gate's decision on the test part of the corpus, per family, against
// the targets, and against the recorded floors for the measures still below them. With -v it
// lists the misses and false blocks of the development part, never of the test part.
func TestAccuracy(t *testing.T) {
	sc, err := New(nil)
	if err != nil {
		t.Fatal(err)
	}
	rows := readCorpus(t)
	type tally struct{ hit, n int }
	res := map[string]map[string]*tally{"dev": {}, "test": {}} // split → family → blocked
	blocked := make([]bool, len(rows))
	for i, r := range rows {
		block, fs := gateDecision(sc, r.payload(t))
		blocked[i] = block
		f := res[r.Split][r.Family]
		if f == nil {
			f = &tally{}
			res[r.Split][r.Family] = f
		}
		f.n++
		if block {
			f.hit++
		}
		if r.Split == "dev" && block != r.MustBlock {
			t.Log(devMiss(r, fs))
		}
	}
	var ms []measure
	all := measure{name: "recall overall", recall: true}
	fb := measure{name: "false blocks overall"}
	for _, fam := range blockFamilies {
		x := res["test"][fam]
		if x == nil {
			t.Fatalf("family %s has no test rows", fam)
		}
		ms = append(ms, measure{name: "recall " + fam, hit: x.hit, n: x.n, recall: true})
		all.hit += x.hit
		all.n += x.n
	}
	for _, fam := range passFamilies {
		x := res["test"][fam]
		if x == nil {
			t.Fatalf("family %s has no test rows", fam)
		}
		ms = append(ms, measure{name: "false blocks " + fam, hit: x.hit, n: x.n})
		fb.hit += x.hit
		fb.n += x.n
	}
	ms = append([]measure{all, fb}, ms...)
	for _, m := range ms {
		t.Logf("test: %-32s %.4f (%d/%d)", m.name, m.v(), m.hit, m.n)
	}

	floorsPath := filepath.Join("testdata", "corpus", "floors.json")
	floors := map[string]float64{}
	if b, err := os.ReadFile(floorsPath); err == nil {
		if err := json.Unmarshal(b, &floors); err != nil {
			t.Fatalf("%s: %v", floorsPath, err)
		}
	}
	next := map[string]float64{}
	for _, m := range ms {
		if m.meets() {
			continue
		}
		f, ok := floors[m.name]
		worse := ok && (m.recall && m.r4() < f || !m.recall && m.r4() > f)
		lower := *update && *lowerFloors
		switch {
		case !ok && !lower:
			t.Errorf("%s: %.4f misses the target %.2f; it met it before (it has no floor in %s)", m.name, m.v(), m.target(), floorsPath)
		case worse && !lower:
			t.Errorf("%s: %.4f is worse than its floor %.4f (target %.2f)", m.name, m.r4(), f, m.target())
		}
		next[m.name] = m.r4()
	}
	yard := readYardstick(t)
	checkYardstick(t, rows, yard)
	apart, apartBlocked := scoreApart(t, sc)
	doc := corpusDoc(rows, blocked, ms, next, yard, apart, apartBlocked)
	docPath := filepath.Join("..", "docs", "pii-accuracy.md")
	if *update {
		if t.Failed() {
			t.Fatalf("%s and %s left as they are: a measure fell (only -corpus.lower, after a change to the corpus, lets it)", floorsPath, docPath)
		}
		b, _ := json.MarshalIndent(next, "", "  ")
		if err := os.WriteFile(floorsPath, append(b, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(docPath, []byte(doc), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	for name := range floors {
		if _, ok := next[name]; !ok {
			t.Errorf("%s now meets its target: run go test ./pii -run TestAccuracy -update to drop its floor", name)
		} else if next[name] != floors[name] {
			t.Errorf("%s moved from its floor %.4f to %.4f: run go test ./pii -run TestAccuracy -update", name, floors[name], next[name])
		}
	}
	got, err := os.ReadFile(docPath)
	if err != nil {
		t.Fatalf("read %s: %v (run with -update)", docPath, err)
	}
	if string(got) != doc {
		t.Errorf("%s is out of date: run go test ./pii -run TestAccuracy -update", docPath)
	}
}

// devMiss says why a development row was decided wrongly, for the detector's authors.
func devMiss(r corpusRow, fs []Finding) string {
	text := ""
	if r.Text != nil {
		text = *r.Text
	} else {
		text = string(r.JSON)
	}
	text = strings.ReplaceAll(trunc(text), "\n", `\n`)
	if r.MustBlock {
		return fmt.Sprintf("dev miss %s %s: passed, wants %s: %s", r.Family, r.ID, strings.Join(r.Types, ","), text)
	}
	var why []string
	for _, f := range fs {
		why = append(why, f.Type.String()+" by "+f.Rule)
	}
	return fmt.Sprintf("dev false block %s %s: %s: %s", r.Family, r.ID, strings.Join(dedup(why), ", "), text)
}

// corpusStats counts rows per family and split, and the sources of each family.
func corpusStats(rows []corpusRow) (map[string][2]int, map[string][]string) {
	counts := map[string][2]int{}
	sources := map[string][]string{}
	for _, r := range rows {
		c := counts[r.Family]
		if r.Split == "dev" {
			c[0]++
		} else {
			c[1]++
		}
		counts[r.Family] = c
		src, _, _ := strings.Cut(r.Source, "/")
		if !slices.Contains(sources[r.Family], src) {
			sources[r.Family] = append(sources[r.Family], src)
		}
	}
	for _, s := range sources {
		sort.Strings(s)
	}
	return counts, sources
}
