//go:build unix

package credential

import (
	"os"
	"syscall"
)

// lockFile takes an exclusive lock on f, shared with other processes, and returns how to
// release it.
func lockFile(f *os.File) (unlock func(), err error) {
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		return nil, err
	}
	return func() { syscall.Flock(int(f.Fd()), syscall.LOCK_UN) }, nil
}
