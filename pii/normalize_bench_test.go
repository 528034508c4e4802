package pii

import (
	"encoding/base64"
	"strings"
	"testing"

	"github.com/moltgate/moltgate/internal/benchcpu"
)

// benchEncoded is 1 KiB of prose that carries its personal data hidden: percent-encoded in a
// link, as HTML entities, in base64 and spelt out, so that every view runs.
func benchEncoded() string {
	hidden := " See https://example.net/u?next=%2Fhome&who=ops.lead%40example.org for access, or write to " +
		"ops&#46;lead&#64;example&#46;org; the token is " + base64.StdEncoding.EncodeToString([]byte("owner=ops.lead@example.org")) +
		" and the backup contact is ops dot lead at example dot org. "
	return (benchProse[:400] + hidden + benchProse)[:1024]
}

func BenchmarkScanText1KiBEncoded(b *testing.B) {
	sc := mustScanner(b)
	text := benchEncoded()
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	defer benchcpu.Start(b)()
	for b.Loop() {
		sc.ScanText(text)
	}
}

// BenchmarkScanJSONSplit scans a 1 KiB payload whose e-mail address and card number are split
// over array items and sibling members.
func BenchmarkScanJSONSplit(b *testing.B) {
	sc := mustScanner(b)
	data := []byte(`{"tool":"update_contact","input":{"note":` + jsonString(benchProse[:700]) +
		`,"parts":["ops.lead","@","example.org"],"card":["4111","1111","1111","1111"],"account":{"user":"ops.lead","domain":"example.org"},"tags":["billing","planning"]}}`)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	defer benchcpu.Start(b)()
	for b.Loop() {
		if _, err := sc.ScanJSON("p", data); err != nil {
			b.Fatal(err)
		}
	}
}

func jsonString(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`).Replace(s) + `"`
}
