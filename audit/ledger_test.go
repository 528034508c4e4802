package audit

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/moltgate/moltgate/internal/pgtest"
)

// backends runs f on a fresh SQLite ledger and, when a PostgreSQL server is
// available, on a fresh PostgreSQL one. open makes another Ledger on the
// same storage, as a second replica would.
func backends(t *testing.T, f func(t *testing.T, l *Ledger, db *sql.DB, open func() *Ledger)) {
	t.Run("sqlite", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "audit.db")
		l, err := OpenSQLite(context.Background(), path)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { l.Close() })
		f(t, l, l.db, func() *Ledger {
			l2, err := OpenSQLite(context.Background(), path)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { l2.Close() })
			return l2
		})
	})
	t.Run("postgres", func(t *testing.T) {
		db, err := sql.Open("pgx", pgtest.DSN(t))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		open := func() *Ledger {
			l, err := OpenPostgres(context.Background(), db)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { l.Close() })
			return l
		}
		f(t, open(), db, open)
	})
}

func testConfig() Config {
	n := 0
	return Config{Source: "moltgate://acme", Now: func() time.Time {
		n++
		return time.Date(2026, 11, 26, 12, 0, n, 0, time.UTC)
	}}
}

func appendN(t *testing.T, l *Ledger, c Config, n int) []Entry {
	t.Helper()
	var out []Entry
	for i := range n {
		peer := "globex"
		if i%2 == 1 {
			peer = "initech"
		}
		ev, err := c.NewEvent(TypeBlocked, fmt.Sprintf("m-%d", i), Decision{Direction: "inbound", Peer: peer,
			Code: "E_CONSENT", Reason: "pii_without_consent", PIITypes: []string{"email"}})
		if err != nil {
			t.Fatal(err)
		}
		e, err := l.Append(context.Background(), ev)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, e)
	}
	return out
}

func wantBreak(t *testing.T, l *Ledger, seq int64) {
	t.Helper()
	_, err := l.Verify(context.Background())
	var ce *ChainError
	if !errors.As(err, &ce) {
		t.Fatalf("Verify = %v; want a *ChainError at entry %d", err, seq)
	}
	if ce.Seq != seq {
		t.Fatalf("Verify names entry %d (%v); want %d", ce.Seq, ce, seq)
	}
}

func TestLedgerChains(t *testing.T) {
	backends(t, func(t *testing.T, l *Ledger, _ *sql.DB, _ func() *Ledger) {
		c := testConfig()
		es := appendN(t, l, c, 6)
		for i, e := range es {
			if e.Seq != int64(i+1) {
				t.Fatalf("entry %d has seq %d", i, e.Seq)
			}
			if i > 0 && e.Prev != es[i-1].Hash {
				t.Fatalf("entry %d does not name the hash of entry %d", e.Seq, es[i-1].Seq)
			}
			if LinkBatch(e.Prev, e.Seq, [][]byte{e.Event}) != e.Hash || e.Index != 0 {
				t.Fatalf("entry %d: hash is not Link of its parts", e.Seq)
			}
		}
		n, err := l.Verify(context.Background())
		if err != nil || n != 6 {
			t.Fatalf("Verify = %d, %v; want 6, nil", n, err)
		}
		got, err := l.Entries(context.Background(), Filter{Peer: "initech"})
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 3 || got[0].Seq != 2 || got[2].Seq != 6 {
			t.Fatalf("Entries(peer initech) = %d entries starting at %v", len(got), got)
		}
		got, err = l.Entries(context.Background(), Filter{Since: time.Date(2026, 11, 26, 12, 0, 5, 0, time.UTC)})
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 2 || got[0].Seq != 5 {
			t.Fatalf("Entries(since) = %d entries", len(got))
		}
	})
}

func TestLedgerEditedEntry(t *testing.T) {
	backends(t, func(t *testing.T, l *Ledger, db *sql.DB, _ func() *Ledger) {
		appendN(t, l, testConfig(), 5)
		// One byte of entry 3's event changes: initech becomes initecx.
		if _, err := db.Exec(l.d.q(`UPDATE audit_entries SET event = REPLACE(event, '"pii_without_consent"', '"pii_without_consenT"') WHERE seq = ?`), 3); err != nil {
			t.Fatal(err)
		}
		wantBreak(t, l, 3)
	})
}

func TestLedgerDeletedEntry(t *testing.T) {
	backends(t, func(t *testing.T, l *Ledger, db *sql.DB, _ func() *Ledger) {
		appendN(t, l, testConfig(), 5)
		if _, err := db.Exec(l.d.q(`DELETE FROM audit_entries WHERE seq = ?`), 2); err != nil {
			t.Fatal(err)
		}
		wantBreak(t, l, 2)
	})
}

func TestLedgerDeletedLastEntry(t *testing.T) {
	backends(t, func(t *testing.T, l *Ledger, db *sql.DB, _ func() *Ledger) {
		appendN(t, l, testConfig(), 5)
		if _, err := db.Exec(l.d.q(`DELETE FROM audit_entries WHERE seq = ?`), 5); err != nil {
			t.Fatal(err)
		}
		wantBreak(t, l, 5)
	})
}

func TestLedgerRenumberedAfterDeletion(t *testing.T) {
	backends(t, func(t *testing.T, l *Ledger, db *sql.DB, _ func() *Ledger) {
		appendN(t, l, testConfig(), 5)
		// Entry 3 goes, and the ones after it move down to close the gap.
		for _, q := range []string{`DELETE FROM audit_entries WHERE seq = 3`,
			`UPDATE audit_entries SET seq = seq + 100 WHERE seq > 3`,
			`UPDATE audit_entries SET seq = seq - 101 WHERE seq > 100`,
			`UPDATE audit_head SET seq = 4`} {
			if _, err := db.Exec(q); err != nil {
				t.Fatal(err)
			}
		}
		wantBreak(t, l, 3)
	})
}

func TestLedgerSwappedEntries(t *testing.T) {
	backends(t, func(t *testing.T, l *Ledger, db *sql.DB, _ func() *Ledger) {
		appendN(t, l, testConfig(), 5)
		for _, q := range []string{`UPDATE audit_entries SET seq = 100 WHERE seq = 2`,
			`UPDATE audit_entries SET seq = 2 WHERE seq = 4`,
			`UPDATE audit_entries SET seq = 4 WHERE seq = 100`} {
			if _, err := db.Exec(q); err != nil {
				t.Fatal(err)
			}
		}
		wantBreak(t, l, 2)
	})
}

// TestLedgerEveryByte flips each byte of one entry's stored event in turn:
// every change is seen, at that entry.
func TestLedgerEveryByte(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.db")
	l, err := OpenSQLite(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	es := appendN(t, l, testConfig(), 3)
	orig := es[1].Event
	for i := range orig {
		b := bytes.Clone(orig)
		b[i] ^= 0x01
		if _, err := l.db.Exec(`UPDATE audit_entries SET event = ? WHERE seq = 2`, string(b)); err != nil {
			t.Fatal(err)
		}
		wantBreak(t, l, 2)
	}
	if _, err := l.db.Exec(`UPDATE audit_entries SET event = ? WHERE seq = 2`, string(orig)); err != nil {
		t.Fatal(err)
	}
	if _, err := l.Verify(context.Background()); err != nil {
		t.Fatalf("restored: %v", err)
	}
}

// TestLedgerReplicas appends from two Ledgers on one store at once, as two
// gateway replicas do: one chain holds every event, without a break.
func TestLedgerReplicas(t *testing.T) {
	backends(t, func(t *testing.T, l *Ledger, _ *sql.DB, open func() *Ledger) {
		l2 := open()
		c := Config{Source: "moltgate://acme"}
		const each = 60
		var wg sync.WaitGroup
		errs := make(chan error, 4*each)
		for _, led := range []*Ledger{l, l2, l, l2} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range each {
					ev, err := c.NewEvent(TypeAllowed, fmt.Sprint(i), Decision{Direction: "outbound", Peer: "globex"})
					if err == nil {
						_, err = led.Append(context.Background(), ev)
					}
					if err != nil {
						errs <- err
						return
					}
				}
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatal(err)
		}
		n, err := l2.Verify(context.Background())
		if err != nil || n != 4*each {
			t.Fatalf("Verify = %d, %v; want %d, nil", n, err, 4*each)
		}
	})
}

func TestAppendRefusesInvalidEvent(t *testing.T) {
	l, err := OpenSQLite(context.Background(), filepath.Join(t.TempDir(), "audit.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if _, err := l.Append(context.Background(), Event{SpecVersion: SpecVersion, ID: "x", Type: TypeAllowed}); err == nil {
		t.Fatal("an event without a source was appended")
	}
	if _, err := (Config{}).NewEvent(TypeAllowed, "", nil); err == nil {
		t.Fatal("NewEvent without a source succeeded")
	}
	l.Close()
	ev, _ := testConfig().NewEvent(TypeAllowed, "", Decision{})
	if _, err := l.Append(context.Background(), ev); !errors.Is(err, ErrClosed) {
		t.Fatalf("Append after Close = %v; want ErrClosed", err)
	}
}

// TestAppendDuringClose appends from many goroutines while the ledger
// closes: every Append returns, either with its entry or ErrClosed, and
// what was acknowledged is in the chain.
func TestAppendDuringClose(t *testing.T) {
	for range 20 {
		path := filepath.Join(t.TempDir(), "audit.db")
		l, err := OpenSQLite(context.Background(), path)
		if err != nil {
			t.Fatal(err)
		}
		c := Config{Source: "moltgate://acme"}
		var wg sync.WaitGroup
		var mu sync.Mutex
		acked := 0
		for range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for range 10 {
					ev, _ := c.NewEvent(TypeAllowed, "", Decision{Direction: "inbound"})
					_, err := l.Append(context.Background(), ev)
					switch {
					case err == nil:
						mu.Lock()
						acked++
						mu.Unlock()
					case errors.Is(err, ErrClosed):
						return
					default:
						t.Error(err)
						return
					}
				}
			}()
		}
		l.Close()
		wg.Wait()
		l2, err := OpenSQLite(context.Background(), path)
		if err != nil {
			t.Fatal(err)
		}
		n, err := l2.Verify(context.Background())
		l2.Close()
		if err != nil || n < int64(acked) {
			t.Fatalf("Verify = %d, %v; %d appends were acknowledged", n, err, acked)
		}
	}
}
