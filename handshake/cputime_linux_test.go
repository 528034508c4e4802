package handshake

import (
	"time"

	"golang.org/x/sys/unix"
)

// cpuNow returns the CPU time this process has used, all threads (and so
// its garbage collection) included. Unlike wall time it does not grow while
// other processes hold the CPU, which on a shared machine is most of the
// noise.
func cpuNow() time.Duration {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_PROCESS_CPUTIME_ID, &ts); err != nil {
		panic(err)
	}
	return time.Duration(ts.Nano())
}
