package audit

import (
	"context"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
)

// cpuNow is the process's CPU time (user and system, every thread).
func cpuNow() int64 {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return ru.Utime.Nano() + ru.Stime.Nano()
}

var benchDecision = Decision{Direction: "inbound", Face: "websocket", Op: "tool", MessageID: "0b9e3c1e-4a6f-4c2e-9d7a-1f2e3d4c5b6a",
	From: "assistant@acme", To: "echo@globex", Peer: "acme", Class: "int"}

// benchLedger runs b.N events, made as a gateway makes a boundary
// decision's, through add from 16 callers at once, as 16 calls in flight
// make them, and reports cpu-ns/op: the whole process's CPU time per
// event, the ledger's writer and its fsyncs included, until all are
// committed.
func benchLedger(b *testing.B, add func(l *Ledger, ev Event) error) {
	l, err := OpenSQLite(context.Background(), filepath.Join(b.TempDir(), "audit.db"))
	if err != nil {
		b.Fatal(err)
	}
	cfg := Config{Source: "moltgate://acme"}
	const callers = 16
	b.ResetTimer()
	start := cpuNow()
	var wg sync.WaitGroup
	for w := range callers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < b.N; i += callers {
				ev, err := cfg.NewEvent(TypeAllowed, benchDecision.MessageID, benchDecision)
				if err == nil {
					err = add(l, ev)
				}
				if err != nil {
					b.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	if err := l.Close(); err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(cpuNow()-start)/float64(b.N), "cpu-ns/op")
}

// BenchmarkAppendDecisions: each caller waits for its event's commit, as
// a transmission of personal data does.
func BenchmarkAppendDecisions(b *testing.B) {
	benchLedger(b, func(l *Ledger, ev Event) error {
		_, err := l.Append(context.Background(), ev)
		return err
	})
}

// BenchmarkEnqueueDecisions: no caller waits, as for every other decision
// with [audit] decisions = "all".
func BenchmarkEnqueueDecisions(b *testing.B) {
	benchLedger(b, func(l *Ledger, ev Event) error {
		return l.Enqueue(context.Background(), ev, nil)
	})
}

// BenchmarkEncodeEvent is the encoding of a decision's event.
func BenchmarkEncodeEvent(b *testing.B) {
	cfg := Config{Source: "moltgate://acme"}
	ev, err := cfg.NewEvent(TypeAllowed, benchDecision.MessageID, benchDecision)
	if err != nil {
		b.Fatal(err)
	}
	buf := make([]byte, 0, 1024)
	b.ReportAllocs()
	for b.Loop() {
		d := appendDecision(buf[:0], &benchDecision)
		ev.Data = d
		buf = appendEvent(buf[:0], &ev)
	}
}

// BenchmarkEncodeReceiptEvent is the encoding of a receipt's event, whose
// data (some 2 KB of RFC 8785 JSON) is searched for what json.Marshal
// would rewrite, and copied.
func BenchmarkEncodeReceiptEvent(b *testing.B) {
	cfg := Config{Source: "moltgate://acme"}
	data := Raw(`{"callee":"echo@globex","callee_proof":{"index":3,"path":["` + strings.Repeat("sha256:0123456789abcdef", 40) + `"]},"type":"moltgate.receipt.v2"}`)
	ev, err := cfg.NewEvent(TypeReceipt, benchDecision.MessageID, data)
	if err != nil {
		b.Fatal(err)
	}
	buf := make([]byte, 0, 4096)
	b.ReportAllocs()
	for b.Loop() {
		buf = appendEvent(buf[:0], &ev)
	}
}
