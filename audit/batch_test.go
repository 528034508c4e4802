package audit

import (
	"context"
	"database/sql"
	"encoding/hex"
	"fmt"
	"strings"
	"testing"
)

// enqueueBatches writes three links: one event, then a batch of four, then
// one, and returns the ledger reopened.
func enqueueBatches(t *testing.T, l *Ledger, open func() *Ledger) *Ledger {
	t.Helper()
	c := testConfig()
	appendN(t, l, c, 1)
	// Enqueued together, the four share a link: they wait for the writer,
	// which commits them at once when one that waits comes last.
	var last Event
	for i := range 4 {
		peer := []string{"globex", "initech"}[i%2]
		ev, err := c.NewEvent(TypeAllowed, fmt.Sprintf("b-%d", i), Decision{Direction: "outbound", Peer: peer})
		if err != nil {
			t.Fatal(err)
		}
		if i == 3 {
			last = ev
			break
		}
		if err := l.Enqueue(context.Background(), ev, nil); err != nil {
			t.Fatal(err)
		}
	}
	e, err := l.Append(context.Background(), last)
	if err != nil {
		t.Fatal(err)
	}
	appendN(t, l, c, 1)
	l.Close()
	l = open()
	es, err := l.Entries(context.Background(), Filter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(es) != 6 || e.Seq != 2 || e.Index != 3 {
		t.Fatalf("%d events, the last of the batch at %d.%d", len(es), e.Seq, e.Index)
	}
	for i, want := range [][2]int{{1, 0}, {2, 0}, {2, 1}, {2, 2}, {2, 3}, {3, 0}} {
		if es[i].Seq != int64(want[0]) || es[i].Index != want[1] {
			t.Fatalf("event %d at %d.%d, want %v", i, es[i].Seq, es[i].Index, want)
		}
	}
	return l
}

// TestLedgerBatches: events committed together are one link, each still
// read back on its own, filtered by peer and type, and the chain verifies;
// an edit, a deletion or a reordering inside a batch is named at its link.
func TestLedgerBatches(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(ev []string) []string
	}{
		{"none", nil},
		{"an event edited", func(ev []string) []string {
			ev[1] = strings.Replace(ev[1], `"outbound"`, `"inbounds"`, 1)
			return ev
		}},
		{"an event deleted", func(ev []string) []string { return append(ev[:1], ev[2:]...) }},
		{"two events swapped", func(ev []string) []string { ev[0], ev[2] = ev[2], ev[0]; return ev }},
		{"an event added", func(ev []string) []string { return append(ev, ev[0]) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			backends(t, func(t *testing.T, l *Ledger, _ *sql.DB, open func() *Ledger) {
				// The store is read and edited through the ledger's own
				// handle: SQLite's closes with the ledger enqueueBatches
				// reopens.
				l = enqueueBatches(t, l, open)
				defer l.Close()
				es, err := l.Entries(context.Background(), Filter{Peer: "initech"})
				if err != nil || len(es) != 2 || es[0].Index != 1 || es[1].Index != 3 {
					t.Fatalf("peer initech: %d events, %v", len(es), err)
				}
				es, err = l.Entries(context.Background(), Filter{Type: TypeAllowed, Limit: 3})
				if err != nil || len(es) != 3 || es[0].Index != 1 {
					t.Fatalf("the last 3 allowed: %d, %v", len(es), err)
				}
				if tc.edit == nil {
					if n, err := l.Verify(context.Background()); err != nil || n != 6 {
						t.Fatalf("Verify = %d, %v", n, err)
					}
					return
				}
				var raw string
				if err := l.db.QueryRow(l.d.q(`SELECT event FROM audit_entries WHERE seq = ?`), 2).Scan(&raw); err != nil {
					t.Fatal(err)
				}
				edited := strings.Join(tc.edit(strings.Split(raw, "\n")), "\n")
				if _, err := l.db.Exec(l.d.q(`UPDATE audit_entries SET event = ? WHERE seq = ?`), edited, 2); err != nil {
					t.Fatal(err)
				}
				wantBreak(t, l, 2)
			})
		})
	}
}

// A ledger written before links held batches, one event a link, goes on
// with links of batches and verifies whole; an edit of an old link is
// still named.
func TestLedgerOldLinks(t *testing.T) {
	backends(t, func(t *testing.T, l *Ledger, db *sql.DB, open func() *Ledger) {
		// Two links as the ledger wrote them before: v1 hashes, the
		// event's own type and peer in the columns.
		c := testConfig()
		var prev [32]byte
		for seq := int64(1); seq <= 2; seq++ {
			ev, err := c.NewEvent(TypeBlocked, "old", Decision{Direction: "inbound", Peer: "globex", Code: "E_CONSENT"})
			if err != nil {
				t.Fatal(err)
			}
			raw := appendEvent(nil, &ev)
			h := Link(prev, seq, raw)
			if _, err := db.Exec(l.d.q(`INSERT INTO audit_entries (seq, prev, hash, at, type, peer, event) VALUES (?, ?, ?, ?, ?, ?, ?)`),
				seq, hex.EncodeToString(prev[:]), hex.EncodeToString(h[:]), ev.Time.UnixMilli(), ev.Type, "globex", string(raw)); err != nil {
				t.Fatal(err)
			}
			if _, err := db.Exec(l.d.q(`UPDATE audit_head SET seq = ?, hash = ? WHERE id = 1`), seq, hex.EncodeToString(h[:])); err != nil {
				t.Fatal(err)
			}
			prev = h
		}
		appendN(t, l, c, 2)
		if n, err := l.Verify(context.Background()); err != nil || n != 4 {
			t.Fatalf("Verify = %d, %v", n, err)
		}
		es, err := l.Entries(context.Background(), Filter{Peer: "globex"})
		if err != nil || len(es) != 3 {
			t.Fatalf("globex: %d, %v", len(es), err)
		}
		if _, err := db.Exec(l.d.q(`UPDATE audit_entries SET event = REPLACE(event, 'E_CONSENT', 'E_CONSENX') WHERE seq = ?`), 2); err != nil {
			t.Fatal(err)
		}
		wantBreak(t, l, 2)
	})
}

// The row a link is written as is its events joined by newlines, and its
// hash is LinkBatch of them, however many it holds.
func TestLinkRow(t *testing.T) {
	var prev [32]byte
	prev[5] = 9
	for _, evs := range [][]string{{`{"a":1}`}, {`{"a":1}`, `{"b":"x"}`, `{}`}} {
		batch := make([]*appendReq, len(evs))
		lines := make([][]byte, len(evs))
		for i, e := range evs {
			batch[i] = &appendReq{ev: []byte(e), at: int64(10 - i)}
			lines[i] = []byte(e)
		}
		h, row, at := linkRow(prev, 7, batch)
		if want := LinkBatch(prev, 7, lines); h != want {
			t.Fatalf("%d events: hash %x; want LinkBatch's %x", len(evs), h, want)
		}
		if want := strings.Join(evs, "\n"); row != want || at != 10 {
			t.Fatalf("%d events: row %q at %d; want %q at 10", len(evs), row, at, want)
		}
	}
}
