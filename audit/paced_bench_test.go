package audit

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// BenchmarkPacedLedger offers events at the pace of a gateway recording
// every decision and receipt of some 1,000 round trips a second (three
// events each millisecond, one a receipt of some 1.7 KB and two decisions
// of some 430 bytes) and reports the process's CPU time per event until
// all are committed, the writer, its commits and their syncs included.
// BenchmarkEnqueueDecisions offers events as fast as they are taken and
// so fills every batch; here each batch is what a linger gathers, as in a
// gateway. "none" makes the events and offers them to no ledger: the
// difference is the ledger's cost.
//
//	go test ./audit -run '^$' -bench PacedLedger -benchtime 9000x
func BenchmarkPacedLedger(b *testing.B) {
	b.Run("ledger", func(b *testing.B) { pacedLedger(b, true) })
	b.Run("none", func(b *testing.B) { pacedLedger(b, false) })
}

func pacedLedger(b *testing.B, write bool) {
	l, err := OpenSQLite(context.Background(), filepath.Join(b.TempDir(), "audit.db"))
	if err != nil {
		b.Fatal(err)
	}
	cfg := Config{Source: "moltgate://acme"}
	receipt := Raw(`{"body":"` + strings.Repeat("x", 1700) + `"}`)
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	b.ResetTimer()
	start := cpuNow()
	for i := 0; i < b.N; i++ {
		if i%3 == 0 {
			<-tick.C
		}
		var ev Event
		var err error
		if i%3 == 2 {
			ev, err = cfg.NewEvent(TypeReceipt, benchDecision.MessageID, receipt)
		} else {
			ev, err = cfg.NewEvent(TypeAllowed, benchDecision.MessageID, benchDecision)
		}
		if err == nil && write {
			err = l.Enqueue(context.Background(), ev, nil)
		}
		if err != nil {
			b.Fatal(err)
		}
	}
	if err := l.Close(); err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(cpuNow()-start)/float64(b.N), "cpu-ns/op")
}

// BenchmarkCommitBatch is the writer's commit of one batch as a busy
// gateway's linger gathers it (75 events: 50 decisions and 25 receipts of
// some 1.7 KB), without the goroutines and timers around it: cpu-ns/event
// is the process's CPU time per event committed.
func BenchmarkCommitBatch(b *testing.B) {
	l, err := OpenSQLite(context.Background(), filepath.Join(b.TempDir(), "audit.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer l.Close()
	cfg := Config{Source: "moltgate://acme"}
	receipt := Raw(`{"body":"` + strings.Repeat("x", 1700) + `"}`)
	batch := make([]*appendReq, 75)
	for i := range batch {
		var ev Event
		if i%3 == 2 {
			ev, err = cfg.NewEvent(TypeReceipt, benchDecision.MessageID, receipt)
		} else {
			ev, err = cfg.NewEvent(TypeAllowed, benchDecision.MessageID, benchDecision)
		}
		if err != nil {
			b.Fatal(err)
		}
		if batch[i], err = newReq(&ev); err != nil {
			b.Fatal(err)
		}
	}
	start := cpuNow()
	for b.Loop() {
		if _, err := l.write(batch); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(cpuNow()-start)/float64(b.N*len(batch)), "cpu-ns/event")
}
