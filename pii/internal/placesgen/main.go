// Command placesgen writes pii/names/places.txt.gz, the names of places of two words or more
// that the scanner's name detection takes for places rather than people ("Virginia Beach",
// "Corpus Christi", "San Francisco"; see pii/names/README.md):
//
//	npm pack city-timezones@1.3.4 && tar xzf city-timezones-1.3.4.tgz
//	go run ./pii/internal/placesgen -cities package/data/cityMap.json -out pii/names/places.txt.gz
//
// It keeps every city, province and country name of the list (Natural Earth's populated
// places, public domain, as the MIT-licensed package city-timezones ships them) that has at
// least two words, in lower case, with "st." and "saint" each also written the other way.
// The output is sorted, one name a line, and the same input gives the same bytes.
package main

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"slices"
	"strings"
)

func main() {
	cities := flag.String("cities", "", "data/cityMap.json of the npm package city-timezones")
	out := flag.String("out", "pii/names/places.txt.gz", "the list to write")
	flag.Parse()
	if err := run(*cities, *out); err != nil {
		fmt.Fprintln(os.Stderr, "placesgen:", err)
		os.Exit(1)
	}
}

func run(cities, out string) error {
	if cities == "" {
		return fmt.Errorf("-cities is required: data/cityMap.json of the npm package city-timezones 1.3.4")
	}
	b, err := os.ReadFile(cities)
	if err != nil {
		return err
	}
	var rows []map[string]any
	if err := json.Unmarshal(b, &rows); err != nil {
		return fmt.Errorf("%s: %w", cities, err)
	}
	set := map[string]bool{}
	for _, r := range rows {
		for _, k := range []string{"city", "city_ascii", "province", "country"} {
			v, _ := r[k].(string)
			v = strings.ToLower(strings.Join(strings.Fields(v), " "))
			if !strings.Contains(v, " ") {
				continue
			}
			set[v] = true
			switch {
			case strings.HasPrefix(v, "st. "):
				set["saint "+v[4:]] = true
				set["st "+v[4:]] = true
			case strings.HasPrefix(v, "saint "):
				set["st. "+v[6:]] = true
			}
		}
	}
	names := make([]string, 0, len(set))
	for n := range set {
		names = append(names, n)
	}
	slices.Sort(names)
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	zw.Write([]byte(strings.Join(names, "\n") + "\n"))
	if err := zw.Close(); err != nil {
		return err
	}
	return os.WriteFile(out, buf.Bytes(), 0o644)
}
