package pii

import (
	"crypto/ed25519"
	"strings"
	"testing"
	"time"

	"github.com/moltgate/moltgate/internal/benchcpu"
	"github.com/moltgate/moltgate/wire"
)

// BenchmarkGateVsSign1KiB measures the gate's scan of a 1 KiB message (the decision TestAccuracy
// scores: the message tree outside its header, then the summary) beside one Ed25519 signature
// and verification of the same message's bytes, in the same run. The gate sub-benchmarks report
// their CPU time as a fraction of the signature's ("of-sign+verify"); the target is at most 0.10.
func BenchmarkGateVsSign1KiB(b *testing.B) {
	_, priv, _ := ed25519.GenerateKey(nil)
	pub := priv.Public().(ed25519.PublicKey)
	var sign time.Duration // CPU time of one sign+verify, from the first sub-benchmark
	msgs := map[string]string{"clean": strings.Repeat(benchProse, 2)[:1024], "pii": benchMessage(1 << 10)}
	b.Run("ed25519", func(b *testing.B) {
		msg := []byte(msgs["clean"])
		b.SetBytes(int64(len(msg)))
		start := benchcpu.Now()
		for b.Loop() {
			sig := ed25519.Sign(priv, msg)
			if !ed25519.Verify(pub, msg, sig) {
				b.Fatal("verify")
			}
		}
		sign = (benchcpu.Now() - start) / time.Duration(b.N)
		b.ReportMetric(float64(sign), "cpu-ns/op")
	})
	for _, name := range []string{"clean", "pii"} {
		b.Run("gate-"+name, func(b *testing.B) {
			sc, err := New(nil)
			if err != nil {
				b.Fatal(err)
			}
			m := gateMessage(wire.ObjectValue(
				wire.Member{Key: "tool", Value: wire.StringValue("summarise")},
				wire.Member{Key: "text", Value: wire.StringValue(msgs[name])}))
			if block, _ := gateBlocks(sc, m); block != (name == "pii") {
				b.Fatalf("%s message: block=%v", name, block)
			}
			warmUp(func() { gateBlocks(sc, m) })
			b.SetBytes(int64(len(msgs[name])))
			b.ReportAllocs()
			start := benchcpu.Now()
			for b.Loop() {
				gateBlocks(sc, m)
			}
			cpu := (benchcpu.Now() - start) / time.Duration(b.N)
			b.ReportMetric(float64(cpu), "cpu-ns/op")
			if sign > 0 {
				b.ReportMetric(float64(cpu)/float64(sign), "of-sign+verify")
			}
		})
	}
}
