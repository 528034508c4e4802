package bench

import (
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestSpliceDoc(t *testing.T) {
	const gen1, gen2 = "first run\n", "second run\n"
	// A file without the markers gets the section appended.
	out, err := spliceDoc([]byte("# Benchmarks\n\n## Other\n\ntext\n"), gen1)
	if err != nil {
		t.Fatal(err)
	}
	s := string(out)
	if !strings.HasPrefix(s, "# Benchmarks\n\n## Other\n\ntext\n\n"+docSection+"\n\n"+docBegin+"\n\nfirst run\n\n"+docEnd+"\n") {
		t.Fatalf("appended section:\n%s", s)
	}
	// A later run replaces only what is between the markers.
	s = strings.Replace(s, docEnd+"\n", docEnd+"\n\n### Where the time goes\n\nprose kept\n", 1)
	out, err = spliceDoc([]byte(s), gen2)
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Replace(s, "first run", "second run", 1)
	if string(out) != want {
		t.Fatalf("got\n%s\nwant\n%s", out, want)
	}
	if _, err := spliceDoc([]byte("x\n"+docBegin+"\n"), gen1); err == nil {
		t.Fatal("a file with one marker was accepted")
	}
}

func TestPercentile(t *testing.T) {
	var lat []time.Duration
	for i := 100; i >= 1; i-- {
		lat = append(lat, time.Duration(i)*time.Millisecond)
	}
	for p, want := range map[float64]time.Duration{50: 50 * time.Millisecond, 99: 99 * time.Millisecond, 100: 100 * time.Millisecond, 1: time.Millisecond} {
		if got := percentile(lat, p); got != want {
			t.Errorf("p%v = %v, want %v", p, got, want)
		}
	}
	if percentile(nil, 50) != 0 {
		t.Error("percentile of nothing")
	}
	if lat[0] != 100*time.Millisecond {
		t.Error("percentile sorted its input")
	}
}

func TestThousands(t *testing.T) {
	for v, want := range map[float64]string{0: "0", 999.4: "999", 1000: "1,000", 1234567.8: "1,234,568"} {
		if got := thousands(v); got != want {
			t.Errorf("thousands(%v) = %q, want %q", v, got, want)
		}
	}
}

func TestFloorNote(t *testing.T) {
	r := &Report{Raw: RawResult{PerCPU: 10000, Moltgate: 20000}}
	if r.floorNote() != "" {
		t.Fatal("a note without floor phases")
	}
	r.Phases = []Phase{
		{Transport: "websocket", Kind: "round_trip", Callers: 16, Ops: 1000},
		{Transport: "floor", Kind: "round_trip", Callers: 16, Ops: 1000, CPU: CPUSplit{Acme: 0.001, Globex: 0.001}},
		{Transport: "floor", Kind: "paced", Rate: 2000, Callers: 64, Ops: 1000, CPU: CPUSplit{Acme: 0.01, Globex: 0.01, Agent: 0.01, LoadGen: 1}},
		// The bound is read at the fastest paced phase.
		{Transport: "floor", Kind: "paced", Rate: 4000, Callers: 64, Ops: 2000, CPU: CPUSplit{Acme: 0.08, Globex: 0.06, Agent: 0.06, LoadGen: 1}},
	}
	// Per 1,000: relays 0.070, echo 0.030; crypto 2000/20000 = 0.100.
	// Ratio: 2000 / (0.070 + 0.100) / 10000 = 1.18.
	n := r.floorNote()
	for _, want := range []string{"At 4,000 round trips a second, evenly paced, the relays", "cost 0.100 CPU-s per 1,000", "round trip 0.100 with", "(20,000 sign+verify", ": 0.200 of the 0.21 target", "can reach: 1.18 (target 0.6)"} {
		if !strings.Contains(n, want) {
			t.Errorf("note lacks %q:\n%s", want, n)
		}
	}
}

func TestMedian(t *testing.T) {
	for _, c := range []struct {
		v    []float64
		want float64
	}{{[]float64{3}, 3}, {[]float64{3, 1, 2}, 2}, {[]float64{4, 1, 3, 2}, 2.5}} {
		in := append([]float64(nil), c.v...)
		if got := median(in); got != c.want {
			t.Errorf("median(%v) = %v, want %v", c.v, got, c.want)
		}
		if !slices.Equal(in, c.v) {
			t.Errorf("median reordered its input: %v", in)
		}
	}
}

// TestRunsYardstick: a run's ratios are read against the yardstick on
// either side of it; the floor, and a single run, against the mean of the
// first and last.
func TestRunsYardstick(t *testing.T) {
	r := RawResult{Before: 100, After: 400, PerCPU: 250}
	if r.around(1) != 250 || r.around(0) != 250 {
		t.Fatal("one run is not read against the mean of before and after")
	}
	r.Between = []float64{200, 300}
	for run, want := range map[int]float64{0: 250, 1: 150, 2: 250, 3: 350} {
		if got := r.around(run); got != want {
			t.Errorf("run %d: %v, want %v", run, got, want)
		}
	}
}

func TestSummarize(t *testing.T) {
	ph := func(tr, kind string, callers, run int, ratio, p99, cpu float64) Phase {
		return Phase{Transport: tr, Kind: kind, Callers: callers, Run: run, Ratio: ratio, P99MS: p99, CPUPer1000: cpu, OpsPerSec: 1000 * ratio}
	}
	var phases []Phase
	for run, f := range []float64{1, 0.8, 1.2} {
		phases = append(phases,
			ph("websocket", "round_trip", 16, run+1, 0.6*f, 5*f, 0.3*f),
			ph("websocket", "paced", 64, run+1, 0.4*f, 4.5*f, 0.2*f),
			ph("websocket", "one_way", 16, run+1, 0.7*f, 30*f, 0.1*f),
			ph("grpc", "round_trip", 16, run+1, 0.5*f, 6*f, 0.35*f))
	}
	phases = append(phases, ph("floor", "round_trip", 16, 0, 15, 0.3, 0.02))
	s := summarize(phases)
	if len(s) != 4 || s[0].Transport != "websocket" || s[0].Kind != "round_trip" || s[1].Kind != "paced" || s[2].Kind != "one_way" || s[3].Transport != "grpc" {
		t.Fatalf("summary order or the floor's phases: %+v", s)
	}
	ws := s[0]
	if ws.Runs != 3 || !near(ws.Ratio.Min, 0.48) || !near(ws.Ratio.Median, 0.6) || !near(ws.Ratio.Max, 0.72) {
		t.Errorf("ratio spread %+v", ws.Ratio)
	}
	// Ratios 0.6 and 0.72 meet 0.6, p99s of 5 and 4 ms meet 5 ms, and no
	// CPU figure (0.24 at least) meets 0.21.
	if ws.RatioMet != 2 || ws.P99Met != 2 || ws.CPUMet != 0 {
		t.Errorf("targets met: ratio %d, p99 %d, CPU %d", ws.RatioMet, ws.P99Met, ws.CPUMet)
	}
	if paced := s[1]; paced.CPUMet != 2 || paced.name() != "round trip, paced at half the rate" {
		t.Errorf("paced: CPU met %d, name %q", paced.CPUMet, paced.name())
	}
	if ow := s[2]; ow.P99Met != -1 || ow.CPUMet != -1 || ow.RatioMet != 2 {
		t.Errorf("one-way: p99 %d, CPU %d, ratio %d", ow.P99Met, ow.CPUMet, ow.RatioMet)
	}
	c := s[2].cells()
	if c[2] != "24.00 / 30.00 / 36.00" || c[1] != "0.56 / 0.70 / 0.84 (2 of 3)" {
		t.Errorf("one-way cells %q", c)
	}
	rep := &Report{Options: Options{Runs: 3, Transports: []string{"websocket", "grpc"}}, Phases: phases, Summary: s}
	md := rep.Markdown()
	for _, want := range []string{"--runs 3", "Across the 3 runs", "| websocket | round trip, 16 callers, run 2 |", "| websocket | round trip, 16 callers | 480 / 600 / 720 | 0.48 / 0.60 / 0.72 (2 of 3) | 4.00 / 5.00 / 6.00 (2 of 3) | 0.240 / 0.300 / 0.360 (0 of 3) |"} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

// TestRowsGroupRuns: the tables list a phase's runs together, transports
// in the order measured, and the floor last.
func TestRowsGroupRuns(t *testing.T) {
	r := &Report{Options: Options{Runs: 2, Transports: []string{"websocket", "grpc"}}}
	for run := 1; run <= 2; run++ {
		for _, tr := range r.Options.Transports {
			r.Phases = append(r.Phases, Phase{Transport: tr, Run: run, Kind: "round_trip", Callers: 1}, Phase{Transport: tr, Run: run, Kind: "round_trip", Callers: 16})
		}
	}
	r.Phases = append(r.Phases, Phase{Transport: "floor", Kind: "round_trip", Callers: 1})
	var got []string
	for _, p := range r.rows() {
		got = append(got, fmt.Sprintf("%s/%d/%d", p.Transport, p.Callers, p.Run))
	}
	want := []string{"websocket/1/1", "websocket/1/2", "websocket/16/1", "websocket/16/2", "grpc/1/1", "grpc/1/2", "grpc/16/1", "grpc/16/2", "floor/1/0"}
	if !slices.Equal(got, want) {
		t.Fatalf("rows %v, want %v", got, want)
	}
}

// TestStopAChildThatWillNotStop: a gateway that does not stop when asked
// is made to, its goroutines are kept for the error to point at, and a
// second stop (the deferred one) answers rather than wait for ever.
func TestStopAChildThatWillNotStop(t *testing.T) {
	log := filepath.Join(t.TempDir(), "stubborn.log")
	lf, err := os.Create(log)
	if err != nil {
		t.Fatal(err)
	}
	defer lf.Close()
	cmd := exec.Command("sh", "-c", "trap '' TERM; echo started; exec sleep 60")
	cmd.Stdout, cmd.Stderr = lf, lf
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	c := &child{org: "stubborn", cmd: cmd, log: log, done: make(chan error, 1), grace: 500 * time.Millisecond}
	go func() { c.done <- cmd.Wait() }()
	// The shell has set its trap once it has said so.
	for b, _ := os.ReadFile(log); !strings.Contains(string(b), "started"); b, _ = os.ReadFile(log) {
		time.Sleep(10 * time.Millisecond)
	}
	err = c.stop()
	if err == nil || !strings.Contains(err.Error(), "did not stop within 500ms") {
		t.Fatalf("first stop: %v", err)
	}
	if kept := strings.TrimSpace(err.Error()[strings.LastIndex(err.Error(), " "):]); strings.HasPrefix(kept, os.TempDir()) {
		os.Remove(kept)
	}
	if err := c.stop(); err == nil {
		t.Fatal("a second stop of a child that was made to stop reports nothing")
	}
}
