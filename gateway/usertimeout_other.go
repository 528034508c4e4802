//go:build !linux

package gateway

import (
	"net"
	"time"
)

// setUserTimeout does nothing: elsewhere than Linux connections are package
// net's own, on which grpc-go sets what it needs.
func setUserTimeout(net.Conn, time.Duration) error { return nil }
