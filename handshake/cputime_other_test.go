//go:build !linux

package handshake

import "time"

var start = time.Now()

// cpuNow falls back to wall time where process CPU time is not at hand.
func cpuNow() time.Duration { return time.Since(start) }
