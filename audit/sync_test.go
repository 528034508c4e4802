package audit

import (
	"context"
	"path/filepath"
	"testing"
	"time"
)

// TestLedgerSyncs: a SQLite ledger syncs the commit of the first batch, of
// every batch an Append waits for and of the first batch syncEvery after
// the last sync, and no other; the connection is left unsynced
// (synchronous = NORMAL) after each synced commit.
func TestLedgerSyncs(t *testing.T) {
	l, err := OpenSQLite(context.Background(), filepath.Join(t.TempDir(), "audit.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	t0 := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	clock := t0
	l.now = func() time.Time { return clock }
	c := testConfig()
	// lastSync is read on the writer, after the commit of each event.
	synced := func(wait bool) time.Time {
		t.Helper()
		ev, err := c.NewEvent(TypeAllowed, "m", Decision{Direction: "inbound", Peer: "globex"})
		if err != nil {
			t.Fatal(err)
		}
		if wait {
			if _, err := l.Append(context.Background(), ev); err != nil {
				t.Fatal(err)
			}
			ev, _ = c.NewEvent(TypeAllowed, "m", Decision{Direction: "inbound", Peer: "globex"})
		}
		got := make(chan time.Time, 1)
		if err := l.Enqueue(context.Background(), ev, func(_ Entry, err error) {
			if err != nil {
				t.Error(err)
			}
			got <- l.lastSync
		}); err != nil {
			t.Fatal(err)
		}
		return <-got
	}
	for i, step := range []struct {
		advance time.Duration
		wait    bool
		want    time.Time
	}{
		{0, false, t0},                      // the first commit
		{100 * time.Millisecond, false, t0}, // not yet syncEvery since
		{syncEvery - 100*time.Millisecond, false, t0.Add(syncEvery)},           // syncEvery since
		{10 * time.Millisecond, true, t0.Add(syncEvery + 10*time.Millisecond)}, // an Append waits
		{10 * time.Millisecond, false, t0.Add(syncEvery + 10*time.Millisecond)},
	} {
		clock = clock.Add(step.advance)
		if got := synced(step.wait); !got.Equal(step.want) {
			t.Fatalf("step %d: last synced at %v; want %v", i, got.Sub(t0), step.want.Sub(t0))
		}
		var mode int
		if err := l.db.QueryRow("PRAGMA synchronous").Scan(&mode); err != nil {
			t.Fatal(err)
		}
		if mode != 1 {
			t.Fatalf("step %d: the connection is left at synchronous = %d; want 1 (NORMAL)", i, mode)
		}
	}
	if n, err := l.Verify(context.Background()); err != nil || n != 6 {
		t.Fatalf("Verify = %d, %v; want 6 events", n, err)
	}
	var page int
	if err := l.db.QueryRow("PRAGMA page_size").Scan(&page); err != nil || page != 16384 {
		t.Fatalf("page_size = %d, %v; want 16384 in a new file", page, err)
	}
}
