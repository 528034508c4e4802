package pii

import (
	"crypto/ed25519"
	"encoding/json"
	"runtime"
	"strings"
	"testing"

	"github.com/moltgate/moltgate/internal/benchcpu"
)

// benchProse is ordinary agent-to-agent traffic: requests, summaries and tool output, with the
// numbers, dates, versions and code words such text has and no personal data.
const benchProse = `The quarterly planning summary covers the migration of the billing service to the new
cluster. Latency at the 99th percentile dropped from 420 ms to 180 ms after the cache change in
release 2.14.3, and error rates stayed below 0.2% for the whole of week 37. The team recommends
moving the remaining three workers on 2024-10-14, once the load test with 12,000 requests per second
has passed twice. Open questions: should the retry budget stay at 3 attempts, and who owns the
dashboard after the hand-over? The search agent found 27 matching documents; the top five discuss
rate limiting, connection pooling and the schema change to the orders table. Please summarise them
in under 200 words and flag anything that contradicts the design note from March. Tool output:
status=ok, duration=1.8s, rows=1532, cache_hit=true, region=eu-west-1, version=v3.2.0.
Next steps are to review the capacity model, update the runbook, and schedule the review for Friday
at 10:00 with the platform group. `

// benchMessage returns n bytes of prose with sparse personal data: one e-mail address and one
// phone number in every 16 KiB, the first of them in the first KiB.
func benchMessage(n int) string {
	clean := strings.Repeat(benchProse, (n+32768)/len(benchProse)+2)
	var b strings.Builder
	for off := 0; b.Len() < n; off += 16384 {
		block := clean[off%len(benchProse):][:16384]
		k := strings.Index(block[300:], ". ") + 302
		b.WriteString(block[:k])
		b.WriteString("Contact the owner at ops.lead@example.org or +44 20 7946 0958 for access. ")
		b.WriteString(block[k:])
	}
	return b.String()[:n]
}

func benchScan(b *testing.B, n int, clean bool) {
	sc, err := New(nil)
	if err != nil {
		b.Fatal(err)
	}
	text := benchMessage(n)
	if clean {
		text = strings.Repeat(benchProse, n/len(benchProse)+1)[:n]
	}
	warmUp(func() { sc.ScanText(text) })
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	defer benchcpu.Start(b)()
	for b.Loop() {
		sc.ScanText(text)
	}
}

// warmUp runs f once and collects the garbage: the name lists and filters are decompressed on
// first use, and the collection of what that leaves would otherwise fall into the measured
// loop, in some runs and not in others.
func warmUp(f func()) {
	f()
	runtime.GC()
}

func BenchmarkScanText1KiBClean(b *testing.B)  { benchScan(b, 1<<10, true) }
func BenchmarkScanText4KiBClean(b *testing.B)  { benchScan(b, 4<<10, true) }
func BenchmarkScanText16KiBClean(b *testing.B) { benchScan(b, 16<<10, true) }
func BenchmarkScanText64KiBClean(b *testing.B) { benchScan(b, 64<<10, true) }
func BenchmarkScanText1KiB(b *testing.B)       { benchScan(b, 1<<10, false) }
func BenchmarkScanText64KiB(b *testing.B)      { benchScan(b, 64<<10, false) }

// BenchmarkScanJSON1KiB scans a 1 KiB tool-call payload as raw bytes.
func BenchmarkScanJSON1KiB(b *testing.B) {
	sc, _ := New(nil)
	p := map[string]any{"tool": "summarise", "input": map[string]any{
		"text": benchProse[:700], "max_words": 200, "style": "brief", "tags": []any{"planning", "billing"},
		"key": "ed25519:11qYAYKxCrfVS/7TyWQHOg7hcvPapiMlrwIaaPcHURo=",
	}}
	data, _ := json.Marshal(p)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	defer benchcpu.Start(b)()
	for b.Loop() {
		if _, err := sc.ScanJSON("p", data); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkEd25519SignVerify1KiB is the machine's yardstick: one signature and one verification of
// a 1 KiB message, as every MoltSpeak message costs.
func BenchmarkEd25519SignVerify1KiB(b *testing.B) {
	_, priv, _ := ed25519.GenerateKey(nil)
	pub := priv.Public().(ed25519.PublicKey)
	msg := []byte(benchMessage(1 << 10))
	b.SetBytes(int64(len(msg)))
	defer benchcpu.Start(b)()
	for b.Loop() {
		sig := ed25519.Sign(priv, msg)
		if !ed25519.Verify(pub, msg, sig) {
			b.Fatal("verify")
		}
	}
}
