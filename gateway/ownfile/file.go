package ownfile

import (
	"net/http"
	"sync"

	"github.com/moltgate/moltgate/internal/filestamp"
)

// Config is what a File reads, checks and serves. Read and Marshal are
// required.
type Config[T any] struct {
	// Path is the file.
	Path string
	// Read reads and checks the file at Path; an error keeps what is
	// held.
	Read func(path string) (T, error)
	// Take reports whether next, just read, replaces held (a revocation
	// list only moves to a higher serial). Default: it does.
	Take func(held, next T) bool
	// Basis, if set, is what Read checks the file against besides its
	// bytes (the org key it verifies under): when it changes, the file is
	// read again. Default none.
	Basis func() string
	// Marshal is the file as served.
	Marshal func(T) ([]byte, error)
	// Failed is told why a changed file was not taken; it is told once
	// per change. Default: nothing.
	Failed func(err error)
	// Taken is told of what replaced the file held. Default: nothing.
	Taken func(next T)
}

// File is one of the organisation's own signed files as last read.
type File[T any] struct {
	cfg   Config[T]
	mu    sync.Mutex
	held  T
	stamp filestamp.Stamp
	basis string
}

// New returns the file at cfg.Path, held as first (what the caller read
// and checked, or made when there is no file), stamped as it is now.
func New[T any](cfg Config[T], first T) *File[T] {
	if cfg.Take == nil {
		cfg.Take = func(T, T) bool { return true }
	}
	if cfg.Failed == nil {
		cfg.Failed = func(error) {}
	}
	if cfg.Taken == nil {
		cfg.Taken = func(T) {}
	}
	f := &File[T]{cfg: cfg, held: first, stamp: filestamp.Of(cfg.Path)}
	if cfg.Basis != nil {
		f.basis = cfg.Basis()
	}
	return f
}

// Get returns the file as it is on disk now, read again if it changed
// since it was last read (or the basis it is checked against did), or
// what was held if it does not check.
func (f *File[T]) Get() T {
	f.mu.Lock()
	defer f.mu.Unlock()
	st, basis := filestamp.Of(f.cfg.Path), ""
	if f.cfg.Basis != nil {
		basis = f.cfg.Basis()
	}
	if st.Same(f.stamp) && basis == f.basis {
		return f.held
	}
	f.stamp, f.basis = st, basis
	next, err := f.cfg.Read(f.cfg.Path)
	if err != nil {
		f.cfg.Failed(err)
		return f.held
	}
	if !f.cfg.Take(f.held, next) {
		return f.held
	}
	f.held = next
	f.cfg.Taken(next)
	return next
}

// ServeHTTP serves the file as Get returns it, as JSON never cached.
func (f *File[T]) ServeHTTP(w http.ResponseWriter, _ *http.Request) {
	raw, err := f.cfg.Marshal(f.Get())
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-cache")
	w.Write(append(raw, '\n'))
}
