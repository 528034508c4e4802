package sqlitestore_test

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/moltgate/moltgate/directory"
	"github.com/moltgate/moltgate/directory/sqlitestore"
	"github.com/moltgate/moltgate/directory/storetest"
)

const crashEnv = "MOLTGATE_CRASH_CHILD_DB"

// payload is the registration bytes written for agent: 1 to 20 KiB
// derived from its name, so that the parent can check them after a crash.
func payload(agent string) []byte {
	sum := sha256.Sum256([]byte(agent))
	n := 1024 + int(binary.BigEndian.Uint32(sum[:4])%(19*1024))
	return bytes.Repeat(sum[:], n/len(sum)+1)[:n]
}

// TestCrashChild is the writer that TestCrashSafety kills. It does nothing
// unless started by it.
func TestCrashChild(t *testing.T) {
	path := os.Getenv(crashEnv)
	if path == "" {
		t.Skip("started by TestCrashSafety only")
	}
	round := os.Getenv("MOLTGATE_CRASH_ROUND")
	s, err := sqlitestore.Open(context.Background(), path, directory.Options{})
	if err != nil {
		fmt.Println("error", err)
		os.Exit(2)
	}
	var mu sync.Mutex
	ack := func(format string, a ...any) {
		mu.Lock()
		defer mu.Unlock()
		// Unbuffered: the line is in the pipe before the next write starts.
		fmt.Fprintf(os.Stdout, format+"\n", a...)
	}
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				agent := fmt.Sprintf("r%s-g%d-%d", round, g, i)
				now := time.Now()
				e := storetest.NewEntry(now, agent, "crash", "crash.test", fmt.Sprintf("crash.g%d", g))
				e.ExpiresAt = now.Add(24 * time.Hour)
				e.Registration = payload(agent)
				if _, err := s.Put(context.Background(), e, directory.PutOptions{}); err != nil {
					ack("error put %s: %v", agent, err)
					os.Exit(2)
				}
				ack("put %s", agent)
				if i%7 == 3 {
					ack("deleting %s", agent)
					err := s.Delete(context.Background(), e.ID(), directory.Deletion{SignedAt: now.Add(time.Millisecond)})
					if err != nil {
						ack("error delete %s: %v", agent, err)
						os.Exit(2)
					}
					ack("del %s", agent)
				}
				if err := s.RecordLiveness(context.Background(), e.ID(), directory.Heartbeat{Status: directory.StatusAlive}); err != nil {
					ack("error liveness %s: %v", agent, err)
					os.Exit(2)
				}
				ack("live %s", agent)
			}
		}()
	}
	wg.Wait()
}

// TestCrashSafety kills a process in the middle of its writes, several
// times over, and checks after each kill that the file is intact and holds
// every write that was acknowledged.
func TestCrashSafety(t *testing.T) {
	if os.Getenv(crashEnv) != "" {
		t.Skip("child")
	}
	path := filepath.Join(t.TempDir(), "directory.db")
	puts := map[string]bool{}  // acknowledged registrations
	dels := map[string]bool{}  // acknowledged removals
	maybe := map[string]bool{} // removals begun, perhaps committed
	lives := map[string]bool{} // acknowledged liveness records
	rounds := 4
	if testing.Short() {
		rounds = 2
	}
	for round := range rounds {
		cmd := exec.Command(os.Args[0], "-test.run=^TestCrashChild$", "-test.v=false")
		cmd.Env = append(os.Environ(), crashEnv+"="+path, fmt.Sprint("MOLTGATE_CRASH_ROUND=", round))
		cmd.Stderr = os.Stderr
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// Kill after a number of acknowledgements that varies by round, so
		// that the kill lands at different points of the write cycle.
		killAt := 150 + 97*round
		sc := bufio.NewScanner(out)
		n := 0
		killed := false
		for sc.Scan() {
			line := sc.Text()
			verb, agent, _ := strings.Cut(line, " ")
			switch verb {
			case "put":
				puts[agent] = true
			case "deleting":
				maybe[agent] = true
			case "del":
				dels[agent] = true
			case "live":
				lives[agent] = true
			default:
				if strings.HasPrefix(line, "PASS") || strings.HasPrefix(line, "ok") {
					continue
				}
				t.Fatalf("child: %s", line)
			}
			n++
			if n == killAt && !killed {
				if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
					t.Fatal(err)
				}
				killed = true
			}
		}
		err = cmd.Wait()
		var ee *exec.ExitError
		if !killed || !errors.As(err, &ee) || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
			t.Fatalf("round %d: the child was not killed mid-write: %v", round, err)
		}
		checkAfterCrash(t, path, puts, dels, maybe, lives)
	}
	t.Logf("%d registrations, %d removals, %d liveness records acknowledged over %d kills", len(puts), len(dels), len(lives), rounds)
	if len(puts) < 200 {
		t.Errorf("only %d writes acknowledged over %d rounds", len(puts), rounds)
	}
}

func checkAfterCrash(t *testing.T, path string, puts, dels, maybe, lives map[string]bool) {
	t.Helper()
	ctx := t.Context()
	s, err := sqlitestore.Open(ctx, path, directory.Options{})
	if err != nil {
		t.Fatalf("reopen after the crash: %v", err)
	}
	defer s.Close()
	if err := s.Check(ctx); err != nil {
		t.Fatalf("after the crash: %v", err)
	}
	for agent := range puts {
		id := directory.ID{Agent: agent, Org: "crash"}
		e, err := s.Get(ctx, id, directory.Viewer{Local: true})
		switch {
		case dels[agent]:
			if !errors.Is(err, directory.ErrNotFound) {
				t.Errorf("%s: removal acknowledged but Get says %v", agent, err)
			}
		case maybe[agent] && errors.Is(err, directory.ErrNotFound):
			// Removed without acknowledgement: the kill came after the commit.
		case err != nil:
			t.Errorf("%s: registration acknowledged but lost: %v", agent, err)
		case !bytes.Equal(e.Registration, payload(agent)):
			t.Errorf("%s: registration bytes damaged", agent)
		}
	}
	for agent := range lives {
		if _, err := s.Liveness(ctx, directory.ID{Agent: agent, Org: "crash"}); err != nil {
			t.Errorf("%s: liveness acknowledged but lost: %v", agent, err)
		}
	}
	// The index agrees with the entries: every live acknowledged entry is
	// found by capability.
	want := 0
	for agent := range puts {
		if !maybe[agent] {
			want++
		}
	}
	p, err := s.Search(ctx, &directory.Query{Capability: "crash.test", Viewer: directory.Viewer{Local: true}, Limit: 1})
	if err != nil {
		t.Fatal(err)
	}
	// The child may have committed writes it had no time to acknowledge.
	if p.Total < want {
		t.Errorf("search finds %d entries, fewer than the %d acknowledged", p.Total, want)
	}
}
