package pgstore_test

import (
	"database/sql"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/moltgate/moltgate/directory"
	"github.com/moltgate/moltgate/directory/pgstore"
	"github.com/moltgate/moltgate/directory/storetest"
)

const benchCaps = 1000

// populatedDSN returns a DSN whose schema holds n benchmark agents (see
// storetest.PopulationEntry), built once per benchmark run.
func populatedDSN(b *testing.B, n int) string {
	dsn := freshSchema(b)
	s, err := pgstore.Open(b.Context(), dsn, directory.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	start := time.Now()
	storetest.Populate(b, s, time.Now(), 0, n, benchCaps, 16)
	b.Logf("populated %d agents in %v", n, time.Since(start).Round(time.Millisecond))
	// What autovacuum does shortly after a bulk load: statistics for the
	// planner, and the visibility map that index-only scans rely on.
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	if _, err := db.ExecContext(b.Context(), "VACUUM ANALYZE"); err != nil {
		b.Fatal(err)
	}
	return dsn
}

// BenchmarkDiscover is BenchmarkDiscover of sqlitestore on PostgreSQL.
func BenchmarkDiscover(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		b.Run(fmt.Sprintf("agents=%d", n), func(b *testing.B) {
			s, err := pgstore.Open(b.Context(), populatedDSN(b, n), directory.Options{})
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			storetest.Discover(b, s, func(r *rand.Rand) directory.Query {
				return directory.Query{Capability: storetest.CapabilityName(r.IntN(benchCaps)), Limit: 10,
					Viewer: directory.Viewer{Org: "org-001"}}
			})
		})
	}
}

// BenchmarkPut registers new agents with sixteen writers at once (eight
// per core on the two-core test machine).
func BenchmarkPut(b *testing.B) {
	s, err := pgstore.Open(b.Context(), freshSchema(b), directory.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	now := time.Now()
	var mu sync.Mutex
	next := 0
	b.SetParallelism(8)
	start := time.Now()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			mu.Lock()
			i := next
			next++
			mu.Unlock()
			if _, err := s.Put(b.Context(), storetest.PopulationEntry(now, i, benchCaps), directory.PutOptions{}); err != nil {
				b.Error(err)
				return
			}
		}
	})
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "puts/s")
}
