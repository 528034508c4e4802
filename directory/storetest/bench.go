package storetest

import (
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/moltgate/moltgate/directory"
)

// Benchmark population: n agents over 100 organisations, each offering
// three of ncaps capabilities (capability i%ncaps and two drawn at
// random, so each capability has about 3n/ncaps agents), with metadata; one
// in twenty unlisted, one in twenty restricted to two organisations, and
// every other agent observed healthy once.

// CapabilityName returns the name of benchmark capability c.
func CapabilityName(c int) string { return fmt.Sprintf("domain%02d.action%04d", c%50, c) }

// PopulationEntry returns benchmark entry i of a population with ncaps
// capabilities.
func PopulationEntry(now time.Time, i, ncaps int) *directory.Entry {
	r := rand.New(rand.NewPCG(uint64(i), 42))
	caps := []string{CapabilityName(i % ncaps)}
	for len(caps) < 3 {
		c := CapabilityName(r.IntN(ncaps))
		if !slices.Contains(caps, c) {
			caps = append(caps, c)
		}
	}
	e := NewEntry(now, fmt.Sprintf("agent-%06d", i), fmt.Sprintf("org-%03d", i%100), caps...)
	e.ExpiresAt = now.Add(7 * 24 * time.Hour)
	e.Metadata = fmt.Appendf(nil, `{"max_attendees": %d, "languages": ["en", %q], "version": "1.%d"}`,
		r.IntN(500), []string{"de", "fr", "ja", "es"}[r.IntN(4)], r.IntN(10))
	e.Verified = i%3 == 0
	switch i % 20 {
	case 7:
		e.Visibility = directory.Unlisted
	case 13:
		e.AllowedOrgs = []string{"org-001", "org-002"}
	}
	return e
}

// Populate registers entries [from, to) of the benchmark population
// through s, with workers writers at once.
func Populate(tb testing.TB, s directory.Store, now time.Time, from, to, ncaps, workers int) {
	ctx := tb.Context()
	var wg sync.WaitGroup
	errc := make(chan error, workers)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := from + w; i < to; i += workers {
				e := PopulationEntry(now, i, ncaps)
				if _, err := s.Put(ctx, e, directory.PutOptions{}); err != nil {
					errc <- err
					return
				}
				if i%2 == 0 {
					if err := s.RecordLiveness(ctx, e.ID(), directory.Heartbeat{At: now, Status: directory.StatusHealthy, Load: 0.2}); err != nil {
						errc <- err
						return
					}
				}
			}
		}()
	}
	wg.Wait()
	close(errc)
	for err := range errc {
		tb.Fatalf("populate: %v", err)
	}
}

// Latencies records one duration per operation and reports percentiles.
type Latencies struct{ d []time.Duration }

// Time runs f and records how long it took.
func (l *Latencies) Time(f func()) {
	t := time.Now()
	f()
	l.d = append(l.d, time.Since(t))
}

// Percentile returns the p-th percentile (0 < p ≤ 100) of the recorded
// durations.
func (l *Latencies) Percentile(p float64) time.Duration {
	if len(l.d) == 0 {
		return 0
	}
	s := slices.Clone(l.d)
	slices.Sort(s)
	i := int(float64(len(s))*p/100+0.999999) - 1
	return s[max(0, min(i, len(s)-1))]
}

// Report adds p50-ms and p99-ms metrics to b.
func (l *Latencies) Report(b *testing.B) {
	b.ReportMetric(float64(l.Percentile(50))/1e6, "p50-ms")
	b.ReportMetric(float64(l.Percentile(99))/1e6, "p99-ms")
}

// Discover runs the search that mk makes, with a fresh random source
// per call, b.N times after a warm-up, and reports the latency percentiles.
func Discover(b *testing.B, s directory.Store, mk func(r *rand.Rand) directory.Query) {
	r := rand.New(rand.NewPCG(1, 2))
	ctx := b.Context()
	for range 200 { // warm the caches
		q := mk(r)
		if _, err := s.Search(ctx, &q); err != nil {
			b.Fatal(err)
		}
	}
	var lat Latencies
	found := 0
	b.ResetTimer()
	for b.Loop() {
		q := mk(r)
		lat.Time(func() {
			p, err := s.Search(ctx, &q)
			if err != nil {
				b.Fatal(err)
			}
			found += len(p.Results)
		})
	}
	if found == 0 {
		b.Fatal("no search found anything")
	}
	lat.Report(b)
}

// Memory returns the process's resident set and the Go heap in use, in
// MiB, after a collection that returns freed memory to the system.
func Memory() (rssMiB, heapMiB float64) {
	runtime.GC()
	debug.FreeOSMemory()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	heapMiB = float64(ms.HeapInuse) / (1 << 20)
	if b, err := os.ReadFile("/proc/self/statm"); err == nil {
		f := strings.Fields(string(b))
		if len(f) > 1 {
			pages, _ := strconv.ParseFloat(f[1], 64)
			rssMiB = pages * float64(os.Getpagesize()) / (1 << 20)
		}
	}
	return rssMiB, heapMiB
}
