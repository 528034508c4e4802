package audit

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// FuzzEncode: the ledger's encoders write exactly what encoding/json
// writes, so that events hash the same whichever wrote them.
func FuzzEncode(f *testing.F) {
	f.Add("inbound", "acme", "assistant@acme", "E_CONSENT", "email", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", int64(1800000000123), true)
	f.Add("<&>\u2028\u2029\"\\\x01\x7f\xff", "", "é", "\t\n\r\b\f", "", "", int64(0), false)
	f.Fuzz(func(t *testing.T, dir, peer, from, code, typ, trace string, ms int64, noStorage bool) {
		d := Decision{Direction: dir, Face: "websocket", Op: "tool", MessageID: trace, From: from, To: from, Peer: peer,
			Class: "int", Code: code, Reason: code, ConsentID: peer, NoStorage: noStorage}
		if typ != "" {
			d.PIITypes = []string{typ, dir}
		}
		want, err := json.Marshal(d)
		if err != nil {
			t.Fatal(err)
		}
		if got := appendDecision(nil, &d); !bytes.Equal(got, want) {
			t.Fatalf("decision:\n got %s\nwant %s", got, want)
		}
		ev := Event{SpecVersion: SpecVersion, ID: peer, Source: from, Type: dir, Time: time.UnixMilli(ms % 1e14).UTC(),
			Subject: code, DataContentType: typ, TraceParent: trace, Data: want}
		if want, err = json.Marshal(ev); err != nil {
			t.Fatal(err)
		}
		if got := appendEvent(nil, &ev); !bytes.Equal(got, want) {
			t.Fatalf("event:\n got %s\nwant %s", got, want)
		}
		// An event NewEvent makes of a decision, whose data the ledger
		// copies as it is, is what json.Marshal writes of it.
		made, err := Config{Source: "moltgate://acme"}.NewEvent(TypeAllowed, code, d)
		if err != nil {
			t.Fatal(err)
		}
		if want, err = json.Marshal(made); err != nil {
			t.Fatal(err)
		}
		if got := appendEvent(nil, &made); !bytes.Equal(got, want) {
			t.Fatalf("made event:\n got %s\nwant %s", got, want)
		}
		// Compact raw data with the fuzzed strings unescaped (as RFC 8785
		// writes them): copied when it holds nothing json.Marshal would
		// rewrite, rewritten as it would otherwise.
		var raw bytes.Buffer
		enc := json.NewEncoder(&raw)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(map[string]string{"a": dir, "b": from, "c": code}); err != nil {
			t.Fatal(err)
		}
		ev.Data = bytes.TrimSuffix(raw.Bytes(), []byte("\n"))
		if want, err = json.Marshal(ev); err != nil {
			t.Fatal(err)
		}
		if got := appendEvent(nil, &ev); !bytes.Equal(got, want) {
			t.Fatalf("compact raw data:\n got %s\nwant %s", got, want)
		}
		// Raw data that is not compact, or holds HTML characters, is
		// written as json.Marshal writes a RawMessage.
		ev.Data = json.RawMessage(`{ "a" : "<` + string(want[:min(len(want), 8)]) + `>" }`)
		if !json.Valid(ev.Data) {
			return
		}
		if want, err = json.Marshal(ev); err != nil {
			t.Fatal(err)
		}
		if got := appendEvent(nil, &ev); !bytes.Equal(got, want) {
			t.Fatalf("raw data:\n got %s\nwant %s", got, want)
		}
	})
}

// TestEnqueue: events enqueued without waiting are all in the chain, in
// the order each caller queued them, once Close returns; each caller is
// told of its entry; the chain verifies.
func TestEnqueue(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.db")
	l, err := OpenSQLite(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	cfg := testConfig()
	var mu sync.Mutex
	told := map[string][2]int64{} // by event id: its link and its place in it
	var evs []Event
	for i := range 300 {
		d := Decision{Direction: "inbound", Peer: "globex", MessageID: string(rune('a' + i%26))}
		ev, err := cfg.NewEvent(TypeAllowed, d.MessageID, d)
		if err != nil {
			t.Fatal(err)
		}
		evs = append(evs, ev)
		if err := l.Enqueue(context.Background(), ev, func(e Entry, err error) {
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				t.Error(err)
			}
			told[ev.ID] = [2]int64{e.Seq, int64(e.Index)}
		}); err != nil {
			t.Fatal(err)
		}
	}
	// One that waits is committed at once, after what was queued before.
	ev, _ := cfg.NewEvent(TypePIITransmitted, "x", Decision{Direction: "outbound", Peer: "globex"})
	e, err := l.Append(context.Background(), ev)
	if err != nil {
		t.Fatalf("append after 300 queued: %v", err)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	before := func(a, b [2]int64) bool { return a[0] < b[0] || a[0] == b[0] && a[1] < b[1] }
	links := map[int64]bool{}
	for i, ev := range evs {
		if i > 0 && !before(told[evs[i-1].ID], told[ev.ID]) {
			t.Fatalf("event %d was told %v, after event %d's %v", i, told[ev.ID], i-1, told[evs[i-1].ID])
		}
		links[told[ev.ID][0]] = true
	}
	if last := told[evs[len(evs)-1].ID]; !before(last, [2]int64{e.Seq, int64(e.Index)}) {
		t.Fatalf("the append that waited is at %d.%d, before the last queued at %v", e.Seq, e.Index, last)
	}
	if len(links) >= len(evs) {
		t.Fatalf("%d events in %d links: none shared one", len(evs), len(links))
	}
	l, err = OpenSQLite(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if n, err := l.Verify(context.Background()); err != nil || n != 301 {
		t.Fatalf("verify: %d entries, %v", n, err)
	}
	es, err := l.Entries(context.Background(), Filter{Peer: "globex"})
	if err != nil || len(es) != 301 {
		t.Fatalf("entries of globex: %d, %v", len(es), err)
	}
}

// Data given as Raw is stored as it is, and the event is byte for byte the
// one encoding/json makes of the same data; the chain verifies over it.
func TestRawData(t *testing.T) {
	c := testConfig()
	data := []byte(`{"callee":"echo@globex","code":"","ts":1800000000000,"type":"moltgate.receipt.v2"}`)
	ev, err := c.NewEvent(TypeReceipt, "q-1", Raw(data))
	if err != nil {
		t.Fatal(err)
	}
	generic, err := c.NewEvent(TypeReceipt, "q-1", json.RawMessage(data))
	if err != nil {
		t.Fatal(err)
	}
	generic.ID, generic.Time = ev.ID, ev.Time // the test clock moves on each event
	want, _ := json.Marshal(generic)
	if got := appendEvent(nil, &ev); !bytes.Equal(got, want) {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
	backends(t, func(t *testing.T, l *Ledger, _ *sql.DB, _ func() *Ledger) {
		e, err := l.Append(context.Background(), ev)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(e.Event, want) {
			t.Fatalf("stored %s", e.Event)
		}
		if _, err := l.Verify(context.Background()); err != nil {
			t.Fatal(err)
		}
	})
}
