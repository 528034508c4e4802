package consent

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/moltgate/moltgate/wire"
)

// SpentFileName is the name of the record of used one-time consents in a gateway's data
// directory (DIR/data/consent-spent.jsonl).
const SpentFileName = "consent-spent.jsonl"

// SpentFile is a Spender in one append-only file of JSON lines,
//
//	{"id":"8a6e…","expires":1767225600000,"spent_at":1767222000000}
//
// created with mode 0600. Each Spend reads and appends under an exclusive flock, so that
// processes sharing the file agree on which use was the first; a record is fsynced before Spend
// reports a first use, so that a restart does not make a consent good again. Replicas on
// several machines share a PostgreSQL Spender instead.
type SpentFile struct {
	path string
	now  func() time.Time
	mu   sync.Mutex
}

type spentEntry struct {
	ID      string `json:"id"`
	Expires int64  `json:"expires"`
	SpentAt int64  `json:"spent_at"`
}

// OpenSpent returns the SpentFile at path; the file is created on the first Spend. now is the
// clock (nil: time.Now).
func OpenSpent(path string, now func() time.Time) *SpentFile {
	if now == nil {
		now = time.Now
	}
	return &SpentFile{path: path, now: now}
}

// Spend records the use of id and reports whether it was the first.
func (s *SpentFile) Spend(ctx context.Context, id string, expires time.Time) (bool, error) {
	if !wire.ValidID(id) {
		return false, fmt.Errorf("spend consent: %q is not a consent id", id)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := os.MkdirAll(filepath.Dir(s.path), 0o700); err != nil {
		return false, fmt.Errorf("spend consent: %w", err)
	}
	f, err := openLockedAt(s.path, os.O_RDWR)
	if err != nil {
		return false, fmt.Errorf("spend consent: %w", err)
	}
	defer f.Close()
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return false, fmt.Errorf("spend consent: %w", err)
	}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 4096), 1<<16)
	for sc.Scan() {
		var e spentEntry
		// A torn line (a crash mid-append) names no id and is passed over: the use it was
		// recording was never reported as the first.
		if json.Unmarshal(sc.Bytes(), &e) == nil && e.ID == id {
			return false, nil
		}
	}
	if err := sc.Err(); err != nil {
		return false, fmt.Errorf("spend consent: read %s: %w", s.path, err)
	}
	b, _ := json.Marshal(spentEntry{ID: id, Expires: expires.UnixMilli(), SpentAt: s.now().UnixMilli()})
	// A torn last line must not swallow this record: start it on a line of its own.
	if _, err := f.Write(append(append([]byte{'\n'}, b...), '\n')); err != nil {
		return false, fmt.Errorf("spend consent: %w", err)
	}
	if err := f.Sync(); err != nil {
		return false, fmt.Errorf("spend consent: %w", err)
	}
	return true, nil
}
