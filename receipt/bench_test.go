package receipt

import (
	"strings"
	"testing"

	"github.com/moltgate/moltgate/wire"
)

// BenchmarkDigest digests a reply of some 2 KiB, as each side does for
// every exchange.
func BenchmarkDigest(b *testing.B) {
	m, err := wire.Parse([]byte(`{"from":{"agent":"echo","org":"globex"},"id":"71c91a30-48f0-42cd-af93-367de7565399","op":"respond",`+
		`"p":{"data":{"text":"`+strings.Repeat("The morning build ran its tests. ", 64)+`"},"status":"success"},`+
		`"re":"7c61bf19-b269-4024-aa53-7ba5c74d7385","to":{"agent":"client","org":"acme"},"ts":1795738154989,"v":"0.1"}`), 0)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		_ = Digest(m)
	}
}
