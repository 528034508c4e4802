//go:build race && linux

package sockio

import (
	"runtime"
	"unsafe"
)

// The race detector cannot see what a system call reads or writes. Package
// syscall tells it, and so must direct calls: a write to any socket
// happens before the read that returns its bytes, and the kernel reads and
// writes the buffers passed to it.

// ioSync is the one address all socket reads and writes synchronise on, as
// in package syscall.
var ioSync int64

func raceAcquire()      { runtime.RaceAcquire(unsafe.Pointer(&ioSync)) }
func raceReleaseMerge() { runtime.RaceReleaseMerge(unsafe.Pointer(&ioSync)) }

func raceWrite(p []byte) {
	if len(p) > 0 {
		runtime.RaceWriteRange(unsafe.Pointer(&p[0]), len(p))
	}
}

func raceRead(p []byte) {
	if len(p) > 0 {
		runtime.RaceReadRange(unsafe.Pointer(&p[0]), len(p))
	}
}
