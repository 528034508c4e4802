package freeport

import (
	"fmt"
	"net"
	"sync"
	"testing"
)

func TestPair(t *testing.T) {
	for range 20 {
		p, err := Pair()
		if err != nil {
			t.Fatal(err)
		}
		if p < low || p+1 >= high {
			t.Fatalf("port %d outside [%d, %d)", p, low, high)
		}
		for _, q := range []int{p, p + 1} {
			l, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", q))
			if err != nil {
				t.Fatalf("port %d is not free: %v", q, err)
			}
			l.Close()
		}
	}
}

// The ports are not bound between calls, as in a harness that starts its
// gateways only after it has laid out every address: no port may still be
// handed out twice, as a pair or as a neighbour.
func TestPairNeverRepeatsAPort(t *testing.T) {
	const pairs = 1000
	var (
		mu   sync.Mutex
		seen = map[int]int{}
		wg   sync.WaitGroup
	)
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range pairs / 8 {
				p, err := Pair()
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				for _, q := range []int{p, p + 1} {
					if prev, ok := seen[q]; ok {
						t.Errorf("port %d handed out to pair %d and again to pair %d (worker %d)", q, prev, p, w)
					}
					seen[q] = p
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if len(seen) != 2*pairs {
		t.Fatalf("%d distinct ports for %d pairs, want %d", len(seen), pairs, 2*pairs)
	}
}
