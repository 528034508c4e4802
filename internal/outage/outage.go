// Package outage tells a storage outage from the other errors a store
// returns, names its cause in plain words ("disk full", "database
// read-only"), and keeps which of the gateway's stores are failing now, so
// that a failure while serving is logged, counted and reported by the
// readiness check rather than passing unseen.
package outage

import (
	"context"
	"database/sql/driver"
	"errors"
	"io"
	"io/fs"
	"log/slog"
	"net"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"modernc.org/sqlite"
)

// The causes, in the plain words the log, the metric and /readyz use.
const (
	DiskFull    = "disk full"
	ReadOnly    = "database read-only"
	Unreachable = "database unreachable"
	Corrupt     = "database corrupt"
	IOError     = "disk I/O error"
	Failed      = "storage error" // a failure of the storage of no known kind
)

// SQLite's primary result codes (sqlite3.h) that mean an outage.
const (
	sqliteReadOnly = 8
	sqliteIOErr    = 10
	sqliteCorrupt  = 11
	sqliteFull     = 13
	sqliteCantOpen = 14
	sqliteNotADB   = 26
)

// Cause names why a store failed with err, or returns "" when err is no
// failure of the storage: a refusal the store makes by its own rules
// (not found, a stale write, a bad value), or the caller's context ending.
// isRefusal tells the store's own refusals.
func Cause(err error, isRefusal func(error) bool) string {
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return ""
	}
	if isRefusal != nil && isRefusal(err) {
		return ""
	}
	var se *sqlite.Error
	if errors.As(err, &se) {
		switch se.Code() & 0xff {
		case sqliteFull:
			return DiskFull
		case sqliteReadOnly:
			return ReadOnly
		case sqliteIOErr:
			return IOError
		case sqliteCorrupt, sqliteNotADB:
			return Corrupt
		case sqliteCantOpen:
			return Unreachable
		}
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		switch {
		case pe.Code == "53100": // disk_full
			return DiskFull
		case pe.Code == "25006": // read_only_sql_transaction: a standby, or default_transaction_read_only
			return ReadOnly
		case strings.HasPrefix(pe.Code, "08"), pe.Code == "57P01", pe.Code == "57P02", pe.Code == "57P03": // connection exceptions, shutdowns
			return Unreachable
		case strings.HasPrefix(pe.Code, "58"): // system errors: I/O
			return IOError
		case pe.Code == "XX001" || pe.Code == "XX002": // data or index corrupted
			return Corrupt
		}
		return Failed
	}
	// The system's own errors first: a file's error is a net.Error too.
	var ce *pgconn.ConnectError
	var ne net.Error
	switch {
	case errors.Is(err, syscall.ENOSPC):
		return DiskFull
	case errors.Is(err, syscall.EROFS), errors.Is(err, fs.ErrPermission):
		return ReadOnly
	case errors.Is(err, syscall.EIO):
		return IOError
	case errors.As(err, &ce), errors.As(err, &ne), pgconn.SafeToRetry(err):
		return Unreachable
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF), errors.Is(err, driver.ErrBadConn),
		errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE), errors.Is(err, syscall.ECONNREFUSED):
		// A connection to the database server cut in the middle of an
		// answer: the server stopped, crashed or was cut off.
		return Unreachable
	}
	// Drivers that flatten their errors to text still say what happened.
	msg := strings.ToLower(err.Error())
	switch {
	case strings.Contains(msg, "disk is full"), strings.Contains(msg, "no space left"):
		return DiskFull
	case strings.Contains(msg, "readonly database"), strings.Contains(msg, "read-only"):
		return ReadOnly
	case strings.Contains(msg, "conn closed"), strings.Contains(msg, "connection refused"), strings.Contains(msg, "unexpected eof"):
		return Unreachable
	}
	return Failed
}

// Failure is a store failing now.
type Failure struct {
	Store string    // which store: directory, replay window, ...
	Cause string    // one of the causes above
	Since time.Time // its first failure since it last worked
	Count int       // failures since
}

// Counter counts failures by store and cause (a prometheus.CounterVec's
// WithLabelValues is one).
type Counter func(store, cause string)

// Config is what New needs.
type Config struct {
	// Log receives the ERROR line of each failure, at most one per store
	// and cause every LogEvery. Default slog.Default().
	Log *slog.Logger
	// Count counts every failure. Default none.
	Count Counter
	// LogEvery is how often a failure that goes on is logged again.
	// Default one minute.
	LogEvery time.Duration
	// Now is the clock. Default time.Now.
	Now func() time.Time
}

// Watch keeps which stores are failing.
type Watch struct {
	cfg Config
	// some is set while a store fails: what works, which is nearly always,
	// is recorded without the lock (every message outside a session
	// writes to the replay window).
	some    atomic.Bool
	mu      sync.Mutex
	failing map[string]*Failure
	logged  map[string]time.Time // by store and cause: when it was last logged
	dirs    map[string]string    // by store: the directory of its files (see Files)
}

// New makes a Watch with every store working.
func New(cfg Config) *Watch {
	if cfg.Log == nil {
		cfg.Log = slog.Default()
	}
	if cfg.LogEvery <= 0 {
		cfg.LogEvery = time.Minute
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return &Watch{cfg: cfg, failing: map[string]*Failure{}, logged: map[string]time.Time{}, dirs: map[string]string{}}
}

// Failed records that store failed with err, whose cause is cause (see
// Cause): it counts it, and logs it at ERROR with the cause in plain words
// and the error, unless the same failure was logged within LogEvery. For a
// store with files (see Files), a vague cause is told by the disk's state.
func (w *Watch) Failed(store, cause string, err error) {
	now := w.cfg.Now()
	w.mu.Lock()
	dir := w.dirs[store]
	w.mu.Unlock()
	cause = onDisk(cause, dir)
	w.mu.Lock()
	f := w.failing[store]
	if f == nil || f.Cause != cause {
		f = &Failure{Store: store, Cause: cause, Since: now}
		w.failing[store] = f
		w.some.Store(true)
	}
	f.Count++
	key := store + "\x00" + cause
	last, seen := w.logged[key]
	log := !seen || now.Sub(last) >= w.cfg.LogEvery
	if log {
		w.logged[key] = now
	}
	n := f.Count
	w.mu.Unlock()
	if w.cfg.Count != nil {
		w.cfg.Count(store, cause)
	}
	if log {
		w.cfg.Log.Error("storage failing: "+cause, "store", store, "cause", cause, "failures", n,
			"err", oneLine(err.Error()))
	}
}

// Worked records that store worked: a write went through, so a failure
// it had is over.
func (w *Watch) Worked(store string) {
	if !w.some.Load() {
		return
	}
	w.mu.Lock()
	f := w.failing[store]
	delete(w.failing, store)
	w.some.Store(len(w.failing) > 0)
	if f != nil {
		delete(w.logged, store+"\x00"+f.Cause)
	}
	w.mu.Unlock()
	if f != nil {
		w.cfg.Log.Info("storage working again", "store", store, "cause", f.Cause, "failures", f.Count,
			"for", w.cfg.Now().Sub(f.Since).Round(time.Millisecond).String())
	}
}

// Answered records that store answered: an outage whose cause was that it
// could not be reached is over; any other (a full disk, say) lasts until a
// write goes through.
func (w *Watch) Answered(store string) {
	if !w.some.Load() {
		return
	}
	w.mu.Lock()
	f := w.failing[store]
	w.mu.Unlock()
	if f != nil && f.Cause == Unreachable {
		w.Worked(store)
	}
}

// Failing lists the stores failing now, by name.
func (w *Watch) Failing() []Failure {
	w.mu.Lock()
	out := make([]Failure, 0, len(w.failing))
	for _, f := range w.failing {
		out = append(out, *f)
	}
	w.mu.Unlock()
	slices.SortFunc(out, func(a, b Failure) int { return strings.Compare(a.Store, b.Store) })
	return out
}

// oneLine keeps a driver's error, which may span lines, on one.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
