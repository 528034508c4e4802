// Command namesgen writes pii/names/namewords.txt.gz, the list of words known as given names
// or surnames that the scanner's name detection uses as evidence beside its cues (see
// pii/names/README.md):
//
//	npm pack humannames@1.0.5 && tar xzf humannames-1.0.5.tgz
//	go run ./pii/internal/namesgen -humannames package/list.txt -dict /usr/share/dict/american-english \
//		-names pii/names -out pii/names/namewords.txt.gz
//
// It keeps the words of humannames (MIT) that are not already in the given-name, ambiguous or
// surname lists of -names, and that the dictionary (Debian's wamerican) does not hold in any
// case, nor the plural of one ("Broncos"), so that neither a common word ("Apple", "Bank",
// "Monday") nor a place or a brand the dictionary spells ("Denver", "Chicago") is taken for
// evidence of a person. The output is
// sorted, one lower-case word a line, and the same inputs give the same bytes.
package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unicode"
)

func main() {
	hn := flag.String("humannames", "", "list.txt of the npm package humannames")
	dict := flag.String("dict", "/usr/share/dict/american-english", "a word list, one word a line")
	names := flag.String("names", "pii/names", "folder of the scanner's given.txt.gz, ambiguous.txt.gz, surnames.txt.gz")
	out := flag.String("out", "pii/names/namewords.txt.gz", "the list to write")
	flag.Parse()
	if err := run(*hn, *dict, *names, *out); err != nil {
		fmt.Fprintln(os.Stderr, "namesgen:", err)
		os.Exit(1)
	}
}

func run(hn, dict, names, out string) error {
	if hn == "" {
		return fmt.Errorf("-humannames is required: the list.txt of the npm package humannames 1.0.5")
	}
	skip := map[string]bool{}
	words, err := readLines(dict)
	if err != nil {
		return fmt.Errorf("dictionary: %w", err)
	}
	for _, w := range words {
		skip[strings.ToLower(w)] = true
	}
	for _, f := range []string{"given.txt.gz", "ambiguous.txt.gz", "surnames.txt.gz"} {
		ws, err := readGz(filepath.Join(names, f))
		if err != nil {
			return fmt.Errorf("names: %w", err)
		}
		for _, w := range ws {
			skip[w] = true
		}
	}
	src, err := readLines(hn)
	if err != nil {
		return fmt.Errorf("humannames: %w", err)
	}
	set := map[string]bool{}
	for _, w := range src {
		lw := strings.ToLower(strings.TrimSpace(w))
		if len(lw) < 3 || skip[lw] || !nameShaped(lw) || plural(lw, skip) {
			continue
		}
		set[lw] = true
	}
	list := make([]string, 0, len(set))
	for w := range set {
		list = append(list, w)
	}
	slices.Sort(list)
	var buf bytes.Buffer
	zw, err := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	if err != nil {
		return err
	}
	if _, err := io.WriteString(zw, strings.Join(list, "\n")); err != nil {
		return err
	}
	if err := zw.Close(); err != nil {
		return err
	}
	if err := os.WriteFile(out, buf.Bytes(), 0o644); err != nil {
		return fmt.Errorf("write %s: %w", out, err)
	}
	fmt.Fprintf(os.Stderr, "namesgen: %d words from %d in %s\n", len(list), len(src), hn)
	return nil
}

// plural reports the plural of a word of the dictionary ("broncos", "ponies", "boxes"), which
// the dictionary itself does not list.
func plural(w string, dict map[string]bool) bool {
	switch {
	case strings.HasSuffix(w, "ies") && dict[strings.TrimSuffix(w, "ies")+"y"]:
		return true
	case strings.HasSuffix(w, "es") && dict[strings.TrimSuffix(w, "es")]:
		return true
	}
	return strings.HasSuffix(w, "s") && dict[strings.TrimSuffix(w, "s")]
}

// nameShaped: letters, with an apostrophe or a hyphen inside.
func nameShaped(w string) bool {
	for i, r := range w {
		if unicode.IsLetter(r) {
			continue
		}
		if (r == '\'' || r == '-') && i > 0 && i < len(w)-1 {
			continue
		}
		return false
	}
	return true
}

func readLines(path string) ([]string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var out []string
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		if l := strings.TrimSpace(sc.Text()); l != "" {
			out = append(out, l)
		}
	}
	return out, sc.Err()
}

func readGz(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	b, err := io.ReadAll(zr)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return strings.Split(string(b), "\n"), nil
}
