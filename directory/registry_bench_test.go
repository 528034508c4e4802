package directory_test

import (
	"crypto/ed25519"
	"crypto/rand"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/moltgate/moltgate/wire"
)

// BenchmarkRegister measures registrations through the Registry with real
// signatures (the message's and its identity certificate's, both checked)
// into a durable SQLite store, against the machine's raw Ed25519
// verifications in the same run.
//
// go test -run '^$' -bench Register -benchtime=3000x ./directory/
func BenchmarkRegister(b *testing.B) {
	b.Run("ed25519-verify", func(b *testing.B) {
		pub, priv, _ := ed25519.GenerateKey(rand.Reader)
		msg := make([]byte, 600) // about a register message
		sig := ed25519.Sign(priv, msg)
		b.ResetTimer()
		start := time.Now()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				if !ed25519.Verify(pub, msg, sig) {
					b.Fatal("verify")
				}
			}
		})
		b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "verify/s")
	})
	for _, writers := range []int{1, 16, 64} {
		b.Run(fmt.Sprintf("create-%dwriters", writers), func(b *testing.B) {
			e := newRegistryEnv(b, false)
			// The agents sign their registrations beforehand: a client's
			// work, not the registry's.
			msgs := make([]*wire.Message, b.N)
			for i := range msgs {
				a := e.acme.agent(b, fmt.Sprintf("agent-%d", i))
				pr := profile(fmt.Sprintf("cap.c%d", i%1000), "echo.text")
				msgs[i] = e.message(a, e.create(e.acme, a, pr))
			}
			var next atomic.Int64
			b.SetParallelism(writers)
			procs := 1
			if writers > 1 {
				procs = 0
			}
			b.ResetTimer()
			start := time.Now()
			if procs == 1 {
				for _, m := range msgs {
					if _, err := e.reg.Register(b.Context(), m); err != nil {
						b.Fatal(err)
					}
				}
			} else {
				b.RunParallel(func(pb *testing.PB) {
					for pb.Next() {
						m := msgs[next.Add(1)-1]
						if _, err := e.reg.Register(b.Context(), m); err != nil {
							b.Error(err)
							return
						}
					}
				})
			}
			b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "registrations/s")
		})
	}
}
