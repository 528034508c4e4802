// Package freeport finds loopback ports for tests that start gateways as
// processes, which must be told their addresses before they listen.
package freeport

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"sync"
)

// Below the kernel's ephemeral range (Linux: 32768–60999; BSDs and macOS:
// 49152–65535), so that no socket bound to port 0 and no outgoing
// connection, of this process or any other, takes a port between the moment
// it is found free and the moment the gateway binds it. Only another caller
// of Pair could, and it picks at random from 6,000 pairs.
const (
	low  = 20000
	high = 32000
)

// handed remembers every pair this process has handed out. A port found free
// is not yet bound: the gateway given it may start seconds later, and a
// second probe in that gap would find it free again and hand it to another
// gateway. The set is process-wide because that is the scope of the gap:
// every test in the binary shares the loopback interface.
var handed = struct {
	sync.Mutex
	ports map[int]bool
}{ports: map[int]bool{}}

// Pair returns a port p such that p and p+1 (a gateway's HTTPS and gRPC
// faces, as moltgate init lays them out) are both free on 127.0.0.1. Within
// one process it never returns the same pair twice, and p is always even,
// so that two pairs are either the same or disjoint and never share a port.
func Pair() (int, error) {
	handed.Lock()
	defer handed.Unlock()
	for range 200 {
		p := low + 2*rand.IntN((high-low)/2)
		if handed.ports[p] {
			continue
		}
		l1, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", p))
		if err != nil {
			continue
		}
		l2, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", p+1))
		l1.Close()
		if err != nil {
			continue
		}
		l2.Close()
		handed.ports[p] = true
		return p, nil
	}
	return 0, errors.New("freeport: no two adjacent free ports below the ephemeral range")
}
