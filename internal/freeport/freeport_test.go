package freeport

import (
	"fmt"
	"net"
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
