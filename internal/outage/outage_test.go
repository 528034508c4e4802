package outage

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

func TestCause(t *testing.T) {
	notFound := errors.New("not found")
	for _, c := range []struct {
		err  error
		want string
	}{
		{nil, ""},
		{context.Canceled, ""},
		{fmt.Errorf("put: %w", context.DeadlineExceeded), ""},
		{notFound, ""}, // the store's own refusal
		{&pgconn.PgError{Code: "53100", Message: "could not extend file"}, DiskFull},
		{fmt.Errorf("put: %w", &pgconn.PgError{Code: "25006", Message: "cannot execute INSERT in a read-only transaction"}), ReadOnly},
		{&pgconn.PgError{Code: "57P01", Message: "terminating connection due to administrator command"}, Unreachable},
		{&pgconn.PgError{Code: "08006"}, Unreachable},
		{&pgconn.PgError{Code: "XX001"}, Corrupt},
		{&pgconn.PgError{Code: "42P01", Message: "relation does not exist"}, Failed},
		{&net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}, Unreachable},
		{fmt.Errorf("write journal: %w", &fs.PathError{Op: "write", Path: "replay.db", Err: syscall.ENOSPC}), DiskFull},
		{&fs.PathError{Op: "open", Path: "moltgate.db", Err: syscall.EROFS}, ReadOnly},
		{&fs.PathError{Op: "read", Path: "moltgate.db", Err: syscall.EIO}, IOError},
		{errors.New("database or disk is full (13)"), DiskFull},
		{errors.New("attempt to write a readonly database (8)"), ReadOnly},
		{errors.New("something else broke"), Failed},
	} {
		if got := Cause(c.err, func(err error) bool { return errors.Is(err, notFound) }); got != c.want {
			t.Errorf("Cause(%v) = %q, want %q", c.err, got, c.want)
		}
	}
}

// A failure is logged at ERROR once per LogEvery, counted every time, and
// reported until the store works again; an unreachable store is back as
// soon as it answers, a full one only once a write goes through.
func TestWatch(t *testing.T) {
	now := time.Date(2026, 11, 27, 0, 0, 0, 0, time.UTC)
	var log bytes.Buffer
	counts := map[string]int{}
	w := New(Config{Log: slog.New(slog.NewJSONHandler(&log, nil)), LogEvery: time.Minute, Now: func() time.Time { return now },
		Count: func(store, cause string) { counts[store+"/"+cause]++ }})
	w.Worked(Directory) // nothing failing: nothing to say
	if len(w.Failing()) != 0 || log.Len() != 0 {
		t.Fatalf("a store that works: %v %s", w.Failing(), log.String())
	}
	full := errors.New("database or disk is full")
	w.Failed(Directory, DiskFull, full)
	now = now.Add(time.Second)
	w.Failed(Directory, DiskFull, full)
	if n := strings.Count(log.String(), `"level":"ERROR"`); n != 1 {
		t.Fatalf("%d ERROR lines within a minute, want 1: %s", n, log.String())
	}
	if !strings.Contains(log.String(), `"msg":"storage failing: disk full"`) || !strings.Contains(log.String(), `"store":"directory"`) {
		t.Fatalf("the ERROR line does not say what and where: %s", log.String())
	}
	if counts["directory/disk full"] != 2 {
		t.Fatalf("counted %v, want 2", counts)
	}
	now = now.Add(time.Minute)
	w.Failed(Directory, DiskFull, full)
	if n := strings.Count(log.String(), `"level":"ERROR"`); n != 2 {
		t.Fatalf("%d ERROR lines after a minute, want 2", n)
	}
	f := w.Failing()
	if len(f) != 1 || f[0].Cause != DiskFull || f[0].Count != 3 || !f[0].Since.Equal(now.Add(-time.Minute-time.Second)) {
		t.Fatalf("failing %+v", f)
	}
	w.Answered(Directory) // a read works on a full disk: still failing
	if len(w.Failing()) != 1 {
		t.Fatal("a full disk was taken as mended by a read")
	}
	w.Worked(Directory)
	if len(w.Failing()) != 0 || !strings.Contains(log.String(), `"msg":"storage working again"`) {
		t.Fatalf("after a write: %v %s", w.Failing(), log.String())
	}
	w.Failed(Replay, Unreachable, errors.New("connection refused"))
	w.Answered(Replay)
	if len(w.Failing()) != 0 {
		t.Fatal("an unreachable store that answers again is still failing")
	}
}
