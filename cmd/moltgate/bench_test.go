package main

import (
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
	r := &benchReport{Raw: rawResult{PerCPU: 10000, Moltgate: 20000}}
	if r.floorNote() != "" {
		t.Fatal("a note without floor phases")
	}
	r.Phases = []phase{
		{Transport: "websocket", Kind: "round_trip", Callers: 16, Ops: 1000},
		{Transport: "floor", Kind: "round_trip", Callers: 16, Ops: 1000, CPU: cpuSplit{Acme: 0.001, Globex: 0.001}},
		{Transport: "floor", Kind: "paced", Rate: 2000, Callers: 64, Ops: 1000, CPU: cpuSplit{Acme: 0.01, Globex: 0.01, Agent: 0.01, LoadGen: 1}},
		// The bound is read at the fastest paced phase.
		{Transport: "floor", Kind: "paced", Rate: 4000, Callers: 64, Ops: 2000, CPU: cpuSplit{Acme: 0.08, Globex: 0.06, Agent: 0.06, LoadGen: 1}},
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
