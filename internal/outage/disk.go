package outage

import (
	"errors"
	"io/fs"
	"os"
	"syscall"
)

// onDisk refines cause, a failure of a store whose files are in dir. SQLite
// says no more than "disk I/O error" when a write fails because the
// filesystem under an open database went read-only (ext4 does so on an
// error, with errors=remount-ro), and "unable to open database file" when a
// new connection meets one: its errno is not kept. A probe file in dir
// tells whether the filesystem takes writes at all.
func onDisk(cause, dir string) string {
	if dir == "" || (cause != IOError && cause != Unreachable) {
		return cause
	}
	f, err := os.CreateTemp(dir, ".moltgate-probe-*")
	switch {
	case err == nil:
		f.Close()
		os.Remove(f.Name())
	case errors.Is(err, syscall.EROFS), errors.Is(err, fs.ErrPermission):
		return ReadOnly
	case errors.Is(err, syscall.ENOSPC):
		return DiskFull
	}
	return cause
}

// Files tells w that store keeps its files in dir, on a local filesystem
// (SQLite's), so that a failure that SQLite words vaguely is told by the
// state of the disk: read-only, or full.
func (w *Watch) Files(store, dir string) {
	w.mu.Lock()
	w.dirs[store] = dir
	w.mu.Unlock()
}
