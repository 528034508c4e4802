// Package benchcpu adds a CPU-time metric to Go benchmarks.
//
// On a shared machine wall-clock ns/op rises and falls with whatever else
// runs; the process's own CPU time (user + system, from getrusage) per
// operation does much less so. Benchmarks that are compared as ratios report
// it as "cpu-ns/op".
package benchcpu

import (
	"syscall"
	"testing"
	"time"
)

// Start begins measuring; call the returned function after the benchmark
// loop: defer benchcpu.Start(b)().
func Start(b *testing.B) func() {
	start := Now()
	return func() {
		if b.N > 0 {
			b.ReportMetric(float64(Now()-start)/float64(b.N), "cpu-ns/op")
		}
	}
}

// Now returns the CPU time this process has used.
func Now() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
