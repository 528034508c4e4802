package consent

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"github.com/moltgate/moltgate/wire"
)

// FileName is the name of the revocation list in a gateway's data directory
// (DIR/data/consent-revocations.jsonl), shared by the gateway and `moltgate consent revoke`.
const FileName = "consent-revocations.jsonl"

// Store keeps the revocation list. Implementations must be safe for concurrent use; a
// revocation must outlive the process that made it. FileStore is the default; the gateway
// adds a PostgreSQL one for replicated deployments.
type Store interface {
	Revocations
	// Revoke records that the consent id is revoked. expires is the consent's own expiry:
	// after it the entry may be forgotten, since the token is invalid anyway.
	Revoke(ctx context.Context, id string, expires time.Time) error
}

// FileStore is a Store in one append-only file of JSON lines,
//
//	{"id":"8a6e…","expires":1767225600000,"revoked_at":1767222000000}
//
// created with mode 0600. Appends and rewrites hold an exclusive flock, so several processes
// (the gateway and `moltgate consent revoke`) can share the file. Lookups are answered from
// memory; the file is read again when it has changed, checked at most once per Refresh.
type FileStore struct {
	path    string
	refresh time.Duration
	now     func() time.Time

	mu      sync.Mutex
	ids     map[string]int64 // id -> expires (unix ms)
	stamp   fileStamp
	checked time.Time
}

type fileStamp struct {
	size  int64
	mtime time.Time
	ino   uint64
}

type entry struct {
	ID        string `json:"id"`
	Expires   int64  `json:"expires"`
	RevokedAt int64  `json:"revoked_at"`
}

// FileOptions tunes a FileStore. The zero value is ready to use.
type FileOptions struct {
	// Refresh is how often, at most, a lookup checks whether another process changed the
	// file. Default 1 second; a negative value checks on every lookup.
	Refresh time.Duration
	// Now is the current time. Default time.Now.
	Now func() time.Time
}

// OpenFile opens (or, on first Revoke, creates) the revocation list at path.
func OpenFile(path string, opts *FileOptions) (*FileStore, error) {
	s := &FileStore{path: path, refresh: time.Second, now: time.Now, ids: map[string]int64{}}
	if opts != nil {
		if opts.Refresh != 0 {
			s.refresh = opts.Refresh
		}
		if opts.Now != nil {
			s.now = opts.Now
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.load(); err != nil {
		return nil, err
	}
	s.checked = s.now()
	return s, nil
}

func stampOf(fi fs.FileInfo) fileStamp {
	st := fileStamp{size: fi.Size(), mtime: fi.ModTime()}
	if sys, ok := fi.Sys().(*syscall.Stat_t); ok {
		st.ino = sys.Ino
	}
	return st
}

// load reads the whole file; s.mu is held.
func (s *FileStore) load() error {
	f, err := os.Open(s.path)
	if errors.Is(err, fs.ErrNotExist) {
		s.ids = map[string]int64{}
		s.stamp = fileStamp{}
		return nil
	}
	if err != nil {
		return fmt.Errorf("open revocation list: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return fmt.Errorf("open revocation list: %w", err)
	}
	ids := map[string]int64{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 4096), 1<<16)
	line := 0
	for sc.Scan() {
		line++
		b := bytes.TrimSpace(sc.Bytes())
		if len(b) == 0 {
			continue
		}
		var e entry
		if err := json.Unmarshal(b, &e); err != nil || !wire.ValidID(e.ID) {
			// A torn last line (a crash mid-append) is ignored; anything else is corruption,
			// and a list that cannot be read must not pass as empty.
			if !sc.Scan() {
				break
			}
			return fmt.Errorf("read revocation list %s: line %d is not a revocation", s.path, line)
		}
		if old, ok := ids[e.ID]; !ok || e.Expires > old {
			ids[e.ID] = e.Expires
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("read revocation list: %w", err)
	}
	s.ids = ids
	s.stamp = stampOf(fi)
	return nil
}

// Revoked reports whether id is on the list.
func (s *FileStore) Revoked(ctx context.Context, id string) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if now := s.now(); s.refresh < 0 || now.Sub(s.checked) >= s.refresh {
		s.checked = now
		fi, err := os.Stat(s.path)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			if s.stamp != (fileStamp{}) {
				return false, fmt.Errorf("revocation list %s has disappeared", s.path)
			}
		case err != nil:
			return false, fmt.Errorf("check revocation list: %w", err)
		case stampOf(fi) != s.stamp:
			if err := s.load(); err != nil {
				return false, err
			}
		}
	}
	_, ok := s.ids[id]
	return ok, nil
}

// Revoke appends id to the list and syncs the file before it returns.
func (s *FileStore) Revoke(ctx context.Context, id string, expires time.Time) error {
	if !wire.ValidID(id) {
		return fmt.Errorf("revoke consent: %q is not a consent id", id)
	}
	b, _ := json.Marshal(entry{ID: id, Expires: expires.UnixMilli(), RevokedAt: s.now().UnixMilli()})
	b = append(b, '\n')
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := os.MkdirAll(filepath.Dir(s.path), 0o700); err != nil {
		return fmt.Errorf("revoke consent: %w", err)
	}
	f, err := s.openLocked()
	if err != nil {
		return fmt.Errorf("revoke consent: %w", err)
	}
	defer f.Close()
	if _, err := f.Write(b); err != nil {
		return fmt.Errorf("revoke consent: %w", err)
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("revoke consent: %w", err)
	}
	if old, ok := s.ids[id]; !ok || expires.UnixMilli() > old {
		s.ids[id] = expires.UnixMilli()
	}
	// Re-read on the next lookup, in case others appended too.
	s.stamp = fileStamp{size: -1}
	s.checked = time.Time{}
	return nil
}

// openLocked opens the file for appending under an exclusive lock. If Compact replaced the
// file between the open and the lock, it opens the new one.
func (s *FileStore) openLocked() (*os.File, error) { return openLockedAt(s.path, os.O_WRONLY) }

// openLockedAt opens path for appending (mode adds read access when asked) under an
// exclusive lock, following a replacement of the file made between the open and the lock.
func openLockedAt(path string, mode int) (*os.File, error) {
	for {
		f, err := os.OpenFile(path, mode|os.O_APPEND|os.O_CREATE, 0o600)
		if err != nil {
			return nil, err
		}
		if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
			f.Close()
			return nil, fmt.Errorf("lock: %w", err)
		}
		held, err1 := f.Stat()
		named, err2 := os.Stat(path)
		if err1 == nil && err2 == nil && os.SameFile(held, named) {
			return f, nil
		}
		f.Close()
		if err1 != nil {
			return nil, err1
		}
	}
}

// Compact rewrites the file without the entries whose consent expired before now. The file is
// replaced atomically under the lock.
func (s *FileStore) Compact(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, err := os.Stat(s.path); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	f, err := s.openLocked()
	if err != nil {
		return fmt.Errorf("compact revocation list: %w", err)
	}
	defer f.Close()
	if err := s.load(); err != nil {
		return err
	}
	now := s.now().UnixMilli()
	var buf bytes.Buffer
	for id, exp := range s.ids {
		if exp <= now {
			delete(s.ids, id)
			continue
		}
		b, _ := json.Marshal(entry{ID: id, Expires: exp, RevokedAt: now})
		buf.Write(b)
		buf.WriteByte('\n')
	}
	t, err := os.CreateTemp(filepath.Dir(s.path), ".revoked-*")
	if err != nil {
		return fmt.Errorf("compact revocation list: %w", err)
	}
	_, err = t.Write(buf.Bytes())
	if err == nil {
		err = t.Sync()
	}
	if cerr := t.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(t.Name(), s.path)
	}
	if err != nil {
		os.Remove(t.Name())
		return fmt.Errorf("compact revocation list: %w", err)
	}
	s.stamp = fileStamp{size: -1}
	s.checked = time.Time{}
	return nil
}
