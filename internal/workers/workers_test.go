package workers

import (
	"bytes"
	"runtime"
	"strconv"
	"sync"
	"testing"
	"time"
)

// Items handed over one at a time, each once the last worker waits again, are all done by
// one goroutine.
func TestReuse(t *testing.T) {
	done := make(chan struct{})
	defer close(done)
	ran := make(chan uint64)
	p := New(done, time.Hour, func(v int) { ran <- goroutineID() })
	ids := map[uint64]bool{}
	for i := range 50 {
		p.Go(i)
		ids[<-ran] = true
		waitWorkers(t, 1, "[select")
	}
	if len(ids) != 1 {
		t.Errorf("50 items one after another ran on %d goroutines, want 1", len(ids))
	}
}

// Items handed over from many goroutines at once are each done exactly once.
func TestConcurrent(t *testing.T) {
	done := make(chan struct{})
	var mu sync.Mutex
	seen := map[int]int{}
	var wg sync.WaitGroup
	p := New(done, time.Hour, func(v int) {
		mu.Lock()
		seen[v]++
		mu.Unlock()
		wg.Done()
	})
	const senders, each = 8, 500
	wg.Add(senders * each)
	for s := range senders {
		go func() {
			for i := range each {
				p.Go(s*each + i)
			}
		}()
	}
	wg.Wait()
	for v := range senders * each {
		if seen[v] != 1 {
			t.Fatalf("item %d done %d times", v, seen[v])
		}
	}
	close(done)
	waitWorkers(t, 0, "")
}

// A worker with nothing to do for linger exits.
func TestLinger(t *testing.T) {
	done := make(chan struct{})
	defer close(done)
	ran := make(chan struct{})
	p := New(done, time.Millisecond, func(struct{}) { close(ran) })
	p.Go(struct{}{})
	<-ran
	waitWorkers(t, 0, "")
}

// Once done is closed, waiting workers exit however long their linger.
func TestDone(t *testing.T) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	p := New(done, time.Hour, func(int) { wg.Done() })
	wg.Add(3)
	for i := range 3 {
		p.Go(i)
	}
	wg.Wait()
	close(done)
	waitWorkers(t, 0, "")
}

// waitWorkers waits until exactly n of the pool's workers exist, each in a state whose text
// starts with state (any state if it is empty).
func waitWorkers(t *testing.T, n int, state string) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		got := workers(state)
		if got == n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d workers (state %q), want %d", got, state, n)
		}
		time.Sleep(time.Millisecond)
	}
}

// workers counts the goroutines running a pool's worker loop.
func workers(state string) int {
	buf := make([]byte, 1<<20)
	buf = buf[:runtime.Stack(buf, true)]
	n := 0
	for _, g := range bytes.Split(buf, []byte("\n\n")) {
		if !bytes.Contains(g, []byte("workers.(*Pool[...]).run")) {
			continue
		}
		head, _, _ := bytes.Cut(g, []byte("\n"))
		if state == "" || bytes.Contains(head, []byte(" "+state)) {
			n++
		}
	}
	return n
}

// goroutineID reads the running goroutine's number from its stack trace.
func goroutineID() uint64 {
	buf := make([]byte, 64)
	buf = buf[:runtime.Stack(buf, false)]
	buf = bytes.TrimPrefix(buf, []byte("goroutine "))
	buf, _, _ = bytes.Cut(buf, []byte(" "))
	id, _ := strconv.ParseUint(string(buf), 10, 64)
	return id
}
