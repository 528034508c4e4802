//go:build linux && race

package sockio

import "syscall"

// Under the race detector, reads and writes go through package syscall,
// which tells the detector that a write to a socket happens before the read
// that returns its bytes. Direct calls would hide that edge, and every test
// that hands data to another goroutine through a socket would report a race.

func read(fd uintptr, p []byte) (int, syscall.Errno) {
	n, err := syscall.Read(int(fd), p)
	return n, errnoOf(err)
}

func write(fd uintptr, p []byte) (int, syscall.Errno) {
	n, err := syscall.Write(int(fd), p)
	return n, errnoOf(err)
}

func errnoOf(err error) syscall.Errno {
	if err == nil {
		return 0
	}
	return err.(syscall.Errno)
}
