// Command gitleaksyard measures gitleaks, with its default rules, on the secret rows of the test
// part of the pii accuracy corpus, as a yardstick for the gate. It is a module of its own so that
// gitleaks never enters the gateway's build:
//
//	cd pii/internal/gitleaksyard && go run .
//
// writes pii/testdata/corpus/gitleaks.json, which TestAccuracy puts beside the gate's figures in
// docs/pii-accuracy.md. A row counts as detected when gitleaks reports any finding in it: its
// text, or the JSON text of a payload row.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"sort"

	"github.com/zricethezav/gitleaks/v8/detect"
)

type row struct {
	ID        string          `json:"id"`
	Family    string          `json:"family"`
	Split     string          `json:"split"`
	MustBlock bool            `json:"must_block"`
	Types     []string        `json:"types"`
	Text      *string         `json:"text"`
	JSON      json.RawMessage `json:"json"`
}

// The same selection as the gate's side of the table (pii/corpus_doc_test.go): must-block rows
// holding a secret type, and the must-pass families where a secret scanner can raise alarms.
var (
	secretTypes        = []string{"api_token", "cloud_token", "jwt", "password", "private_key", "secret"}
	secretPassFamilies = []string{"benign_code", "benign_secretlike"}
)

func (r row) secretRow() bool {
	if !r.MustBlock {
		return slices.Contains(secretPassFamilies, r.Family)
	}
	return slices.ContainsFunc(r.Types, func(t string) bool { return slices.Contains(secretTypes, t) })
}

type tally struct {
	Rows     int `json:"rows"`
	Detected int `json:"detected"`
}

type result struct {
	Tool     string            `json:"tool"`
	Split    string            `json:"split"`
	Families map[string]*tally `json:"families"`
}

func main() {
	dir := flag.String("corpus", "../../testdata/corpus", "directory of the corpus")
	flag.Parse()
	if err := run(*dir); err != nil {
		fmt.Fprintln(os.Stderr, "gitleaksyard:", err)
		os.Exit(1)
	}
}

func run(dir string) error {
	d, err := detect.NewDetectorDefaultConfig()
	if err != nil {
		return fmt.Errorf("gitleaks default config: %w", err)
	}
	res := result{Tool: "gitleaks " + version(), Split: "test", Families: map[string]*tally{}}
	files, err := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	if err != nil || len(files) == 0 {
		return fmt.Errorf("no corpus files in %s", dir)
	}
	sort.Strings(files)
	for _, name := range files {
		f, err := os.Open(name)
		if err != nil {
			return err
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for n := 1; sc.Scan(); n++ {
			var r row
			if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
				f.Close()
				return fmt.Errorf("%s:%d: %w", name, n, err)
			}
			if r.Split != "test" || !r.secretRow() {
				continue
			}
			text := string(r.JSON)
			if r.Text != nil {
				text = *r.Text
			}
			t := res.Families[r.Family]
			if t == nil {
				t = &tally{}
				res.Families[r.Family] = t
			}
			t.Rows++
			if len(d.DetectString(text)) > 0 {
				t.Detected++
			}
		}
		f.Close()
		if err := sc.Err(); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
	}
	b, err := json.MarshalIndent(res, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "gitleaks.json"), append(b, '\n'), 0o644)
}

// version is the gitleaks module's version this binary was built with.
func version() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, m := range bi.Deps {
			if m.Path == "github.com/zricethezav/gitleaks/v8" {
				return m.Version
			}
		}
	}
	return "v8 (version unknown)"
}
