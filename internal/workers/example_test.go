package workers_test

import (
	"fmt"
	"sync"
	"time"

	"github.com/moltgate/moltgate/internal/workers"
)

// A connection's reader hands each message to a worker. Its workers exit once the
// connection ends (done) or when they have waited a second for work.
func ExamplePool() {
	done := make(chan struct{})
	defer close(done)
	var wg sync.WaitGroup
	var mu sync.Mutex
	total := 0
	p := workers.New(done, time.Second, func(n int) {
		defer wg.Done()
		mu.Lock()
		total += n
		mu.Unlock()
	})
	for _, msg := range []int{1, 2, 3} {
		wg.Add(1)
		p.Go(msg)
	}
	wg.Wait()
	fmt.Println(total)
	// Output: 6
}
