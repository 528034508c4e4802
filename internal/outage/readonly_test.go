package outage

import (
	"bytes"
	"context"
	"database/sql"
	"log/slog"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	_ "github.com/jackc/pgx/v5/stdlib" // database/sql driver "pgx"
	_ "modernc.org/sqlite"             // database/sql driver "sqlite"

	"github.com/moltgate/moltgate/internal/pgtest"
)

// A SQLite database in WAL mode, as the gateway keeps its own, on a
// filesystem that is read-only when a connection opens it: the driver says
// "unable to open database file" and nothing of why. A store whose files
// are known is reported read-only, and one whose files are not keeps the
// vaguer cause. The filesystem is a real tmpfs, remounted read-only.
func TestReadOnlySQLite(t *testing.T) {
	dir := t.TempDir()
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, "size=1m"); err != nil {
		t.Skipf("cannot mount a tmpfs to remount read-only (%v): the test needs CAP_SYS_ADMIN", err)
	}
	t.Cleanup(func() { syscall.Unmount(dir, syscall.MNT_DETACH) })
	path := "file:" + filepath.Join(dir, "store.db") + "?_pragma=journal_mode(WAL)&_pragma=synchronous(FULL)"
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`CREATE TABLE t (x INTEGER)`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	if err := syscall.Mount("tmpfs", dir, "tmpfs", syscall.MS_REMOUNT|syscall.MS_RDONLY, "size=1m"); err != nil {
		t.Fatalf("remount read-only: %v", err)
	}
	t.Cleanup(func() { syscall.Mount("tmpfs", dir, "tmpfs", syscall.MS_REMOUNT, "size=1m") })
	if db, err = sql.Open("sqlite", path); err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	_, err = db.Exec(`INSERT INTO t VALUES (1)`)
	if err == nil {
		t.Fatal("a write to a read-only filesystem went through")
	}
	if c := Cause(err, nil); c != Unreachable {
		t.Fatalf("Cause(%v) = %q; the driver's words changed, see onDisk", err, c)
	}
	var log bytes.Buffer
	counted := map[string]int{}
	w := New(Config{Log: slog.New(slog.NewJSONHandler(&log, nil)), Count: func(store, cause string) { counted[store+"/"+cause]++ }})
	w.Files(Replay, dir)
	w.Failed(Replay, Cause(err, nil), err)
	w.Failed(Directory, Cause(err, nil), err) // no files known
	f := w.Failing()
	if len(f) != 2 || f[0].Store != Directory || f[0].Cause != Unreachable || f[1].Store != Replay || f[1].Cause != ReadOnly {
		t.Fatalf("failing %+v", f)
	}
	if !strings.Contains(log.String(), `"level":"ERROR","msg":"storage failing: database read-only"`) || counted[Replay+"/"+ReadOnly] != 1 {
		t.Fatalf("log %s, counted %v", log.String(), counted)
	}
	// On a writable filesystem a vague cause stays as it is, and the probe
	// leaves no file behind.
	ok := t.TempDir()
	if c := onDisk(IOError, ok); c != IOError {
		t.Fatalf("a writable disk: %q", c)
	}
	if left, _ := filepath.Glob(filepath.Join(ok, "*")); len(left) != 0 {
		t.Fatalf("the probe left %v", left)
	}
}

// PostgreSQL refusing writes (a standby, or default_transaction_read_only)
// is "database read-only", from pgx's own error.
func TestReadOnlyPostgres(t *testing.T) {
	dsn := pgtest.DSN(t)
	rw, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer rw.Close()
	if _, err := rw.Exec(`CREATE TABLE t (x integer)`); err != nil {
		t.Fatal(err)
	}
	ro, err := sql.Open("pgx", dsn+"&default_transaction_read_only=on")
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	_, err = ro.ExecContext(context.Background(), `INSERT INTO t VALUES (1)`)
	if c := Cause(err, nil); c != ReadOnly {
		t.Fatalf("Cause(%v) = %q, want %q", err, c, ReadOnly)
	}
}
