package sqlitestore_test

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/moltgate/moltgate/directory"
	"github.com/moltgate/moltgate/directory/sqlitestore"
	"github.com/moltgate/moltgate/directory/storetest"
)

// Benchmarks run on populations built once per process (see
// storetest.PopulationEntry): 1,000 capabilities, about 3n/1000 agents
// each. Building the 100,000-agent file takes a while, which is why it
// happens only when a benchmark asks for it.

const benchCaps = 1000

var fixtures = struct {
	sync.Mutex
	dir   string
	paths map[int]string
}{paths: map[int]string{}}

func TestMain(m *testing.M) {
	code := m.Run()
	if fixtures.dir != "" {
		os.RemoveAll(fixtures.dir)
	}
	os.Exit(code)
}

// populated returns the path of a database holding n benchmark agents. A
// larger population is built on a copy of the largest smaller one.
func populated(b *testing.B, n int) string {
	fixtures.Lock()
	defer fixtures.Unlock()
	if p, ok := fixtures.paths[n]; ok {
		return p
	}
	if fixtures.dir == "" {
		d, err := os.MkdirTemp("", "moltgate-dirbench-")
		if err != nil {
			b.Fatal(err)
		}
		fixtures.dir = d
	}
	path := filepath.Join(fixtures.dir, fmt.Sprintf("directory-%d.db", n))
	from := 0
	for m := range fixtures.paths {
		if m < n && m > from {
			from = m
		}
	}
	if from > 0 {
		// Closed, hence checkpointed: the file is the whole database.
		data, err := os.ReadFile(fixtures.paths[from])
		if err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(path, data, 0o600); err != nil {
			b.Fatal(err)
		}
	}
	s, err := sqlitestore.Open(b.Context(), path, directory.Options{})
	if err != nil {
		b.Fatal(err)
	}
	start := time.Now()
	storetest.Populate(b, s, time.Now(), from, n, benchCaps, 16)
	if err := s.Close(); err != nil {
		b.Fatal(err)
	}
	b.Logf("populated agents %d to %d in %v", from, n, time.Since(start).Round(time.Millisecond))
	fixtures.paths[n] = path
	return path
}

func openPopulated(b *testing.B, n int) *sqlitestore.Store {
	s, err := sqlitestore.Open(b.Context(), populated(b, n), directory.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	return s
}

// BenchmarkDiscover is discovery by one capability, ten results, asked by
// a peer organisation: the figure the issue sets at p99 ≤ 5 ms for
// 100,000 agents.
func BenchmarkDiscover(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		b.Run(fmt.Sprintf("agents=%d", n), func(b *testing.B) {
			s := openPopulated(b, n)
			storetest.Discover(b, s, func(r *rand.Rand) directory.Query {
				return directory.Query{Capability: storetest.CapabilityName(r.IntN(benchCaps)), Limit: 10,
					Viewer: directory.Viewer{Org: "org-001"}}
			})
		})
	}
}

// BenchmarkDiscoverRequirements adds metadata requirements, which are
// matched for every agent offering the capability.
func BenchmarkDiscoverRequirements(b *testing.B) {
	s := openPopulated(b, 100_000)
	req, err := directory.ParseRequirements([]byte(`{"languages": ["en"], "max_attendees": {"gte": 250}}`))
	if err != nil {
		b.Fatal(err)
	}
	storetest.Discover(b, s, func(r *rand.Rand) directory.Query {
		return directory.Query{Capability: storetest.CapabilityName(r.IntN(benchCaps)), Requirements: req,
			Limit: 10, Viewer: directory.Viewer{Org: "org-001"}}
	})
}

// BenchmarkDiscoverAllAny is the multi-capability search.
func BenchmarkDiscoverAllAny(b *testing.B) {
	s := openPopulated(b, 100_000)
	storetest.Discover(b, s, func(r *rand.Rand) directory.Query {
		return directory.Query{
			All:    []string{storetest.CapabilityName(r.IntN(benchCaps))},
			Any:    []string{storetest.CapabilityName(r.IntN(benchCaps)), storetest.CapabilityName(r.IntN(benchCaps))},
			Limit:  10,
			Viewer: directory.Viewer{Org: "org-001"},
		}
	})
}

// BenchmarkPointRead is the floor the discover figures are set against:
// one indexed row read by primary key through database/sql on the same
// file, the least a query can cost here.
func BenchmarkPointRead(b *testing.B) {
	path := populated(b, 100_000)
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=query_only(1)")
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	r := rand.New(rand.NewPCG(1, 2))
	var lat storetest.Latencies
	for b.Loop() {
		i := r.IntN(100_000)
		lat.Time(func() {
			var id int64
			err := db.QueryRowContext(b.Context(), "SELECT id FROM directory_entries WHERE org = ? AND agent = ?",
				fmt.Sprintf("org-%03d", i%100), fmt.Sprintf("agent-%06d", i)).Scan(&id)
			if err != nil {
				b.Fatal(err)
			}
		})
	}
	lat.Report(b)
}

// BenchmarkPut registers new agents, one writer at a time and sixteen at
// once; each Put is durable when it returns.
func BenchmarkPut(b *testing.B) {
	for _, workers := range []int{1, 16} {
		b.Run(fmt.Sprintf("writers=%d", workers), func(b *testing.B) {
			s, err := sqlitestore.Open(b.Context(), filepath.Join(b.TempDir(), "put.db"), directory.Options{})
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			now := time.Now()
			var next int64
			var mu sync.Mutex
			b.SetParallelism(workers)
			start := time.Now()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					mu.Lock()
					i := int(next)
					next++
					mu.Unlock()
					if _, err := s.Put(b.Context(), storetest.PopulationEntry(now, i, benchCaps), directory.PutOptions{}); err != nil {
						b.Error(err)
						return
					}
				}
			})
			b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "puts/s")
		})
	}
}

// BenchmarkRawCommit is the floor BenchmarkPut is set against: one-row
// INSERT transactions in WAL mode with full synchronous commits on the same
// file system, i.e. this machine's rate of durable SQLite commits.
func BenchmarkRawCommit(b *testing.B) {
	path := filepath.Join(b.TempDir(), "raw.db")
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=journal_mode(WAL)&_pragma=synchronous(FULL)")
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	if _, err := db.Exec("CREATE TABLE t (id INTEGER PRIMARY KEY, v BLOB)"); err != nil {
		b.Fatal(err)
	}
	v := make([]byte, 512)
	start := time.Now()
	for b.Loop() {
		if _, err := db.Exec("INSERT INTO t (v) VALUES (?)", v); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "commits/s")
}

// BenchmarkMemory measures the memory of a store over a populated file,
// each size in a fresh process so that nothing allocated by the other
// benchmarks counts: the process opens the store, runs b.N searches, and
// reports its resident set and Go heap before and after. The store's
// memory does not grow with the number of entries: SQLite's page cache is
// bounded per connection and nothing is held per entry.
func BenchmarkMemory(b *testing.B) {
	for _, n := range []int{10_000, 30_000, 100_000} {
		b.Run(fmt.Sprintf("entries=%d", n), func(b *testing.B) {
			path := populated(b, n)
			b.ResetTimer()
			cmd := exec.Command(os.Args[0], "-test.run=^TestMemoryProbe$", "-test.v=false")
			cmd.Env = append(os.Environ(), probeEnv+"="+path, fmt.Sprint(probeEnv, "_N=", b.N))
			out, err := cmd.CombinedOutput()
			if err != nil {
				b.Fatalf("memory probe: %v\n%s", err, out)
			}
			var rss0, heap0, rss1, heap1 float64
			line, _, _ := strings.Cut(string(out), "\n")
			if _, err := fmt.Sscanf(line, "probe %f %f %f %f", &rss0, &heap0, &rss1, &heap1); err != nil {
				b.Fatalf("memory probe said %q", out)
			}
			b.ReportMetric(rss1, "rss-MiB")
			b.ReportMetric(rss1-rss0, "rss-growth-MiB")
			b.ReportMetric(heap1, "heap-MiB")
		})
	}
}

const probeEnv = "MOLTGATE_MEMPROBE_DB"

// TestMemoryProbe is the process BenchmarkMemory starts.
func TestMemoryProbe(t *testing.T) {
	path := os.Getenv(probeEnv)
	if path == "" {
		t.Skip("started by BenchmarkMemory only")
	}
	n, _ := strconv.Atoi(os.Getenv(probeEnv + "_N"))
	rss0, heap0 := storetest.Memory()
	s, err := sqlitestore.Open(context.Background(), path, directory.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	// Searches from several goroutines, so that every read connection
	// fills its cache.
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(3, uint64(w)))
			for i := w; i < max(n, 800); i += 8 {
				q := directory.Query{Capability: storetest.CapabilityName(r.IntN(benchCaps)), Limit: 20}
				if _, err := s.Search(context.Background(), &q); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	wg.Wait()
	rss1, heap1 := storetest.Memory()
	fmt.Printf("probe %.1f %.1f %.1f %.1f\n", rss0, heap0, rss1, heap1)
}
