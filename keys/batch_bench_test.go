package keys

import (
	"fmt"
	"testing"

	voi "github.com/oasisprotocol/curve25519-voi/primitives/ed25519"

	"github.com/moltgate/moltgate/internal/benchcpu"
)

// Batch verification is not used (docs/benchmarks.md says why: it checks
// the cofactored equation, which accepts signatures crypto/ed25519
// refuses). These benchmarks keep what it would save measurable: n
// signatures of 1967-byte messages by one key, as the messages of a peer's
// gateway arrive, verified one by one as a session does (the key kept
// expanded, crypto/ed25519's rules) and as one cofactored batch (ZIP 215's
// rules). Compare ns/sig.
func BenchmarkVerifyOneByOne(b *testing.B) {
	sk, msgs, sigs := batchInput(b, 1)
	v := NewVerifier(0)
	pub := sk.Public()
	defer benchcpu.Start(b)()
	for b.Loop() {
		if !v.Verify(pub, msgs[0], sigs[0]) {
			b.Fatal("verify")
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N), "ns/sig")
}

func BenchmarkVerifyBatchCofactored(b *testing.B) {
	opts := &voi.Options{Verify: voi.VerifyOptionsZIP_215}
	for _, n := range []int{2, 4, 8, 16, 32} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			sk, msgs, sigs := batchInput(b, n)
			pub := sk.Public()
			xk, err := voi.NewExpandedPublicKey(pub[:])
			if err != nil {
				b.Fatal(err)
			}
			defer benchcpu.Start(b)()
			for b.Loop() {
				bv := voi.NewBatchVerifier()
				for i := range msgs {
					bv.AddExpandedWithOptions(xk, msgs[i], sigs[i][:], opts)
				}
				if !bv.VerifyBatchOnly(nil) {
					b.Fatal("batch")
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/sig")
		})
	}
}

func batchInput(b *testing.B, n int) (Ed25519Private, [][]byte, []Signature) {
	sk, err := Ed25519FromSeed(make([]byte, 32))
	if err != nil {
		b.Fatal(err)
	}
	msgs := make([][]byte, n)
	sigs := make([]Signature, n)
	for i := range msgs {
		msgs[i] = make([]byte, 1967)
		msgs[i][0] = byte(i)
		sigs[i] = sk.Sign(msgs[i])
	}
	return sk, msgs, sigs
}
