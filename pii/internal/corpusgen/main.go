// Command corpusgen writes the generated rows of the pii accuracy corpus (pii/testdata/corpus).
//
// It is a module of its own so that its generators (gofakeit) never enter the gateway's build.
// Every value comes from a seeded source, so a run reproduces the committed files byte for byte:
//
//	cd pii/internal/corpusgen && go run . -out ../../testdata/corpus
//
// The checksums of the identifiers it writes are computed here, independently of the scanner's
// code, and numbers meant to fail a checksum are checked to fail every scheme of their length.
package main

import (
	"bufio"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"

	"github.com/brianvoe/gofakeit/v7"
)

// row is one line of a corpus file; see pii/testdata/corpus/README.md.
type row struct {
	ID        string   `json:"id"`
	Family    string   `json:"family"`
	Source    string   `json:"source"`
	Split     string   `json:"split"`
	MustBlock bool     `json:"must_block"`
	Types     []string `json:"types"`
	Text      string   `json:"text,omitempty"`
	JSON      any      `json:"json,omitempty"`
}

// splitOf assigns a row to the development or the test part once, by a hash of its id.
func splitOf(id string) string {
	if sha256.Sum256([]byte(id))[0] < 128 {
		return "dev"
	}
	return "test"
}

// gen holds the seeded sources and the rows written so far, by output file.
type gen struct {
	r     *rand.Rand
	fk    *gofakeit.Faker
	files map[string][]row
	n     map[string]int
	file  string // the file rows are added to
	src   string // the source rows are attributed to
	// part, when set, is the split of the rows added, in place of the one their id gives: every
	// row of a held-out template falls in its template's part (see phrasings.go).
	part string
}

func newGen(seed uint64) *gen {
	return &gen{
		r:     rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)),
		fk:    gofakeit.New(seed),
		files: map[string][]row{},
		n:     map[string]int{},
	}
}

func (g *gen) add(family string, block bool, types []string, text string, payload any) {
	key := g.src + "-" + family
	id := fmt.Sprintf("%s-%04d", key, g.n[key])
	g.n[key]++
	if types == nil {
		types = []string{}
	}
	sort.Strings(types)
	split := splitOf(id)
	if g.part != "" {
		split = g.part
	}
	g.files[g.file] = append(g.files[g.file], row{ID: id, Family: family, Source: g.src, Split: split,
		MustBlock: block, Types: types, Text: text, JSON: payload})
}

func (g *gen) text(family string, block bool, types []string, text string) {
	g.add(family, block, types, text, nil)
}

func (g *gen) json(family string, block bool, types []string, payload any) {
	g.add(family, block, types, "", payload)
}

// pick returns one of xs.
func pick[T any](g *gen, xs []T) T { return xs[g.r.IntN(len(xs))] }

func main() {
	out := flag.String("out", "../../testdata/corpus", "directory the corpus files are written to")
	pub := flag.String("testdata", "../../testdata", "directory holding the public cases (presidio, gitleaks, stdnum)")
	seed := flag.Uint64("seed", 20261126, "seed of every generator")
	flag.Parse()
	g := newGen(*seed)
	type step struct {
		file, src, name string
		fn              func(*gen)
	}
	steps := []step{
		{"gofakeit.jsonl", "gofakeit", "struct", genStruct},
		{"gofakeit.jsonl", "gofakeit", "phones", genPhones},
		{"gofakeit.jsonl", "gofakeit", "prose", genProse},
		{"national.jsonl", "adversarial", "national", genNational},
		{"national.jsonl", "adversarial", "bad-structured", genBadStructured},
		{"secrets.jsonl", "adversarial", "vendors", genSecrets},
		{"secrets.jsonl", "adversarial", "keyword", genKeywordTokens},
		{"secrets.jsonl", "adversarial", "pem", genPEM},
		{"credentials.jsonl", "adversarial", "credentials", genCredentials},
		{"obfuscated.jsonl", "adversarial", "encoded", genEncoded},
		{"obfuscated.jsonl", "adversarial", "split", genSplit},
		{"obfuscated.jsonl", "adversarial", "errors", genErrors},
		{"negatives.jsonl", "adversarial", "labelled", genLabelled},
		{"negatives.jsonl", "adversarial", "git", genGit},
		{"negatives.jsonl", "adversarial", "code", genCode},
		{"negatives.jsonl", "adversarial", "health", genBenignHealth},
		{"negatives.jsonl", "adversarial", "secretlike", genSecretLike},
		{"phrasings.jsonl", "phrasing", "phrasings", genPhrasings},
	}
	for _, s := range steps {
		// Each generator draws from its own streams, so that a change to one leaves the rows of
		// the others as they are.
		h := sha256.Sum256([]byte(s.file + "/" + s.name))
		sub := binary.BigEndian.Uint64(h[:8])
		g.r = rand.New(rand.NewPCG(*seed, sub))
		g.fk = gofakeit.New(*seed ^ sub)
		g.file, g.src = s.file, s.src
		s.fn(g)
	}
	h := sha256.Sum256([]byte("public.jsonl/public"))
	g.r = rand.New(rand.NewPCG(*seed, binary.BigEndian.Uint64(h[:8])))
	g.file = "public.jsonl"
	if err := genPublic(g, *pub); err != nil {
		fmt.Fprintln(os.Stderr, "corpusgen:", err)
		os.Exit(1)
	}
	for name, rows := range g.files {
		if err := write(filepath.Join(*out, name), rows); err != nil {
			fmt.Fprintln(os.Stderr, "corpusgen:", err)
			os.Exit(1)
		}
	}
}

func write(path string, rows []row) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	for _, r := range rows {
		if err := enc.Encode(r); err != nil {
			f.Close()
			return fmt.Errorf("%s: %w", path, err)
		}
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
