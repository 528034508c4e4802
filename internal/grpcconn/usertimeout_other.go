//go:build !linux

package grpcconn

import (
	"net"
	"time"
)

// SetUserTimeout does nothing: elsewhere than Linux connections are package
// net's own, on which grpc-go sets what it needs.
func SetUserTimeout(net.Conn, time.Duration) error { return nil }
