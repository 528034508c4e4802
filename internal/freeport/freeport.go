// Package freeport finds loopback ports for tests that start gateways as
// processes, which must be told their addresses before they listen.
package freeport

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
)

// Below the kernel's ephemeral range (Linux: 32768–60999; BSDs and macOS:
// 49152–65535), so that no socket bound to port 0 and no outgoing
// connection, of this process or any other, takes a port between the moment
// it is found free and the moment the gateway binds it. Only another caller
// of Pair could, and it picks at random from 12,000 ports.
const (
	low  = 20000
	high = 32000
)

// Pair returns a port p such that p and p+1 (a gateway's HTTPS and gRPC
// faces, as moltgate init lays them out) are both free on 127.0.0.1.
func Pair() (int, error) {
	for range 200 {
		p := low + rand.IntN(high-low-1)
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
		return p, nil
	}
	return 0, errors.New("freeport: no two adjacent free ports below the ephemeral range")
}
