package retired

import (
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/moltgate/moltgate/keys"
)

// TestReplicasShareTheDirectory: replicas that share one keys/retired/
// load and sweep it at once, each on its own watch loop. Between them
// every file whose overlap ended is removed exactly once, neither ever
// fails on a file the other removed under it, and each always has every
// key whose overlap has not ended.
func TestReplicasShareTheDirectory(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "keys", "retired")
	const ended, live = 40, 3
	var liveKeys []Key
	for i := 0; i < ended+live; i++ {
		until := t0.Add(-time.Duration(i+1) * time.Minute)
		if i >= ended {
			until = t0.Add(time.Duration(i) * time.Hour)
		}
		k := newKey(t, until)
		if i >= ended {
			liveKeys = append(liveKeys, k)
		}
		if err := Save(dir, k, keys.WriteOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	const replicas = 4
	var wg sync.WaitGroup
	removed := make([][]string, replicas)
	errs := make(chan error, replicas*2)
	for r := 0; r < replicas; r++ {
		wg.Add(1)
		go func(r int) {
			defer wg.Done()
			if r%2 == 0 {
				// A replica starting: Load sweeps first.
				got, err := Load(dir, "acme", nil, t0)
				if err != nil {
					errs <- err
					return
				}
				if len(got) != live {
					t.Errorf("replica %d loaded %d keys, want the %d whose overlap has not ended", r, len(got), live)
				}
			}
			rm, err := Sweep(dir, t0)
			if err != nil {
				errs <- err
			}
			removed[r] = rm
		}(r)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Errorf("a replica failed on the shared directory: %v", err)
	}
	seen := map[string]int{}
	for _, rm := range removed {
		for _, p := range rm {
			seen[p]++
		}
	}
	for p, n := range seen {
		if n > 1 {
			t.Errorf("%s reported removed by %d replicas", p, n)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != live {
		t.Fatalf("%d files left, want the %d whose overlap has not ended", len(entries), live)
	}
	got, err := Load(dir, "acme", nil, t0)
	if err != nil || len(got) != live {
		t.Fatalf("after the sweeps: %d keys (%v), want %d", len(got), err, live)
	}
	for i, k := range got {
		if want := liveKeys[live-1-i]; !k.Key.Equal(want.Key) {
			t.Errorf("key %d is not the one of latest overlap", i)
		}
	}
}
