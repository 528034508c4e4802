//go:build linux && !race

package sockio

import (
	"syscall"
	"unsafe"
)

// read and write make one system call each, without entering the
// scheduler's system-call state (see the package comment).

func read(fd uintptr, p []byte) (int, syscall.Errno) {
	r, _, e := syscall.RawSyscall(syscall.SYS_READ, fd, uintptr(unsafe.Pointer(&p[0])), uintptr(len(p)))
	return int(r), e
}

func write(fd uintptr, p []byte) (int, syscall.Errno) {
	r, _, e := syscall.RawSyscall(syscall.SYS_WRITE, fd, uintptr(unsafe.Pointer(&p[0])), uintptr(len(p)))
	return int(r), e
}
