package gateway

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/moltgate/moltgate/gateway/limit"
	"github.com/moltgate/moltgate/internal/benchcpu"
	"github.com/moltgate/moltgate/localbridge"
)

// What recording costs a round trip, in one process: pairs of gateways as
// benchPair's, one as `moltgate init` configures it ("default": refusals
// and personal data in the ledger, the log line of each answered call, no
// receipts) and one recording every decision and signing receipts ("all":
// decisions = "all", receipts = true), as moltgate bench --observe does.
// The rounds alternate between the pairs, 32 callers each, so that the
// machine's load moves both alike; all/default, the ratio of their CPU
// time per round trip, is the issue's measure ("the same run without
// them").
//
//	go test ./gateway -run '^$' -bench CrossOrgObserve -benchtime 4000x
func BenchmarkCrossOrgObserve(b *testing.B) {
	observeRounds(b, []observeMode{
		{"default", nil},
		{"all", [][2]string{{"decisions = ", `decisions = "all"`}, {"receipts = ", "receipts = true"}}},
	})
}

// What tracing every span to a file costs a round trip, in one process,
// as BenchmarkCrossOrgObserve measures recording: a pair as `moltgate
// init` configures it ("default": the log line of each answered call,
// refusals in the ledger, no receipts, no tracing) and a pair that also
// writes every span to a file at sample_ratio = 1 ("trace"), as moltgate
// bench --observe does; trace/default is the measure.
//
//	go test ./gateway -run '^$' -bench CrossOrgTrace -benchtime 4000x
func BenchmarkCrossOrgTrace(b *testing.B) {
	observeRounds(b, []observeMode{
		{"default", nil},
		{"trace", [][2]string{{"exporter = ", `exporter = "file"`}, {"# path = ", `path = "data/spans.jsonl"`}, {"# sample_ratio = ", "sample_ratio = 1.0"}}},
	})
}

// observeMode is a pair of gateways' configuration: each setting replaces
// the line that starts with its first string by its second.
type observeMode struct {
	name     string
	settings [][2]string
}

// observeRounds alternates rounds of round trips between a pair of
// gateways per mode, and reports each mode's CPU time per round trip and
// the ratio of the second mode's to the first's.
func observeRounds(b *testing.B, modes []observeMode) {
	rts := make([]func(), len(modes))
	for i, md := range modes {
		da, la := newTestDir(b, "acme", AddAgentOptions{ID: "client", MaxCls: "conf"})
		db, lb := newTestDir(b, "globex", AddAgentOptions{ID: "echo", Capabilities: []string{"echo.text"}, MaxCls: "conf"})
		trustEachOther(b, da, db, "conf")
		for _, d := range []Dir{da, db} {
			cfg, err := os.ReadFile(d.ConfigPath())
			if err != nil {
				b.Fatal(err)
			}
			for _, set := range md.settings {
				for _, line := range strings.Split(string(cfg), "\n") {
					if strings.HasPrefix(line, set[0]) {
						setConfig(b, d, line, set[1])
					}
				}
			}
		}
		acme := start(b, da, la, TransportWebSocket)
		globex := start(b, db, lb, TransportWebSocket)
		for _, s := range []*Server{acme.s, globex.s} {
			s.pipe.OrgLimit = limit.NewBuckets(1e9, 1<<30, 16, time.Now)
			s.pipe.AgentLimit = limit.NewBuckets(1e9, 1<<30, 16, time.Now)
		}
		input, _ := json.Marshal(map[string]string{"text": benchText(1024)})
		req := localbridge.QueryRequest{From: "client", To: "echo@globex", Tool: "echo", Input: input, Class: "conf"}
		rts[i] = func() {
			if _, err := acme.s.local.Query(context.Background(), req, nil); err != nil {
				for _, l := range strings.Split(acme.log.String()+globex.log.String(), "\n") {
					if strings.Contains(l, "blocked") || strings.Contains(l, "refused") {
						b.Log(l)
					}
				}
				b.Fatal(err)
			}
		}
		rts[i]() // the handshake
	}
	// Rounds of 200 round trips from 32 callers, the pairs in turn.
	const round, callers = 200, 32
	cpu := make([]time.Duration, len(modes))
	n := make([]int, len(modes))
	b.ResetTimer()
	for done := 0; done < b.N; done += round {
		for i, rt := range rts {
			work := make(chan struct{}, round)
			for range round {
				work <- struct{}{}
			}
			close(work)
			var wg sync.WaitGroup
			t0 := benchcpu.Now()
			for range callers {
				wg.Go(func() {
					for range work {
						rt()
					}
				})
			}
			wg.Wait()
			cpu[i] += benchcpu.Now() - t0
			n[i] += round
		}
	}
	b.StopTimer()
	for i, md := range modes {
		b.ReportMetric(float64(cpu[i])/float64(n[i]), "cpu-ns/rt-"+md.name)
	}
	b.ReportMetric(float64(cpu[1])/float64(n[1])/(float64(cpu[0])/float64(n[0])), modes[1].name+"/"+modes[0].name)
}
