package bench

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strings"
	"text/tabwriter"
)

// Targets of the end-to-end benchmark (idle sessions: idleResult).
const (
	targetRatio      = 0.6  // messages per gateway CPU-second against raw sign+verify
	targetP99MS      = 5.0  // round trip under load
	targetCPUPer1000 = 0.21 // CPU-seconds per 1,000 round trips, all processes
)

func (r *Report) title() string {
	return fmt.Sprintf("%d-byte payloads, signed and sealed in sessions, TLS between the gateways; %v per phase",
		r.Options.Size, r.Options.Duration)
}

func (r *Report) machine() string {
	return fmt.Sprintf("%d CPUs (%s), %s, gateways at GOGC=%s; load average %.2f at the start, %.2f at the end",
		r.Machine.CPUs, r.Machine.Model, r.Machine.Go, r.Machine.GOGC, r.Machine.LoadBefore, r.Machine.LoadAfter)
}

func (r *Report) yardstick() string {
	between := ""
	if len(r.Raw.Between) > 0 {
		between = ", " + joinThousands(r.Raw.Between) + " between the runs"
	}
	return fmt.Sprintf("raw Ed25519 sign+verify of %d bytes, one core: %s per CPU-second (%s before the phases%s, %s after)",
		r.Raw.Bytes, thousands(r.Raw.PerCPU), thousands(r.Raw.Before), between, thousands(r.Raw.After))
}

func (r *Report) idle() string {
	i := r.Idle
	return fmt.Sprintf("idle WebSocket sessions: %d opened to globex, each with its handshake; once globex's goroutines had settled, its heap and stacks had grown by %.1f KiB per session after a collection (%.1f KiB of it stacks, %.1f goroutines per session; resident set: %.1f KiB); target ≤ %.0f KiB",
		i.Sessions, i.BytesPerHeap/1024, i.StackPerSess/1024, i.Goroutines, i.BytesPerRSS/1024, i.TargetPerSess/1024)
}

func (p *Phase) name() string {
	switch p.Kind {
	case "one_way":
		return fmt.Sprintf("one-way, %d streams", p.Callers)
	case "paced":
		return fmt.Sprintf("round trip, paced at %.0f/s", p.Rate)
	}
	if p.Callers == 1 {
		return "round trip, 1 caller"
	}
	return fmt.Sprintf("round trip, %d callers", p.Callers)
}

func (p *Phase) errors() string {
	var s []string
	if p.AgentRestarted {
		s = append(s, "(the agent restarted: its CPU time is missing)")
	}
	if len(p.Errors) == 0 && len(s) == 0 {
		return "0"
	}
	for _, k := range slices.Sorted(maps.Keys(p.Errors)) {
		s = append(s, fmt.Sprintf("%s×%d", k, p.Errors[k]))
	}
	return strings.Join(s, " ")
}

// rows are the phases in the order the tables list them: by transport,
// then phase, then run, so that the runs of a phase stand together; the
// floor, measured once, last.
func (r *Report) rows() []*Phase {
	type pos struct{ tr, ph, run int }
	at := map[*Phase]pos{}
	seen := map[[2]int]int{} // phases so far in each run of each transport
	trIndex := func(tr string) int {
		if i := slices.Index(r.Options.Transports, tr); i >= 0 {
			return i
		}
		return len(r.Options.Transports) // the floor
	}
	out := make([]*Phase, len(r.Phases))
	for i := range r.Phases {
		p := &r.Phases[i]
		t := trIndex(p.Transport)
		k := [2]int{t, p.Run}
		at[p] = pos{t, seen[k], p.Run}
		seen[k]++
		out[i] = p
	}
	slices.SortStableFunc(out, func(a, b *Phase) int {
		x, y := at[a], at[b]
		if x.tr != y.tr {
			return x.tr - y.tr
		}
		if x.ph != y.ph {
			return x.ph - y.ph
		}
		return x.run - y.run
	})
	return out
}

// label is the phase's name in the tables: with several runs, which one.
func (r *Report) label(p *Phase) string {
	if r.Options.Runs > 1 && p.Run > 0 {
		return fmt.Sprintf("%s, run %d", p.name(), p.Run)
	}
	return p.name()
}

// floorNote says what the floor phases are, and what they and the
// gateways' own Ed25519 primitives leave of the targets; "" when the run
// has none.
func (r *Report) floorNote() string {
	// The bound is read at the load the targets are read at: the floor
	// paced at the rate the gateways carried with --concurrency callers
	// (its fastest paced phase), else its phase with the most callers.
	var fl *Phase
	better := func(p, q *Phase) bool {
		if (p.Kind == "paced") != (q.Kind == "paced") {
			return p.Kind == "paced"
		}
		return p.Rate > q.Rate || p.Rate == q.Rate && p.Callers > q.Callers
	}
	for i := range r.Phases {
		if p := &r.Phases[i]; p.Transport == "floor" && (fl == nil || better(p, fl)) {
			fl = p
		}
	}
	if fl == nil {
		return ""
	}
	s := "floor: the same four processes and three hops (Unix socket, TLS over loopback TCP, Unix socket) relaying each round trip's bytes and doing nothing else; in its rows acme and globex are the two relays and agent the echo process"
	if r.Raw.Moltgate <= 0 || fl.Ops == 0 {
		return s
	}
	// Two sign+verify pairs a round trip: each gateway signs what it sends
	// and verifies what it receives. The load generator is left out: its
	// pacing costs more than the closed loop of the gateways' phases.
	crypto := 2000 / r.Raw.Moltgate
	relays := fl.per1000(fl.CPU.Acme + fl.CPU.Globex)
	path := relays + fl.per1000(fl.CPU.Agent)
	ratio := 2000 / (relays + crypto) / r.Raw.PerCPU
	at := fl.name() + ","
	if fl.Kind == "paced" {
		at = fmt.Sprintf("%s round trips a second, evenly paced,", thousands(fl.Rate))
	}
	return s + fmt.Sprintf(". At %s the relays and the echo process cost %.3f CPU-s per 1,000 round trips and the four Ed25519 operations of a round trip %.3f with the gateways' primitives (%s sign+verify per CPU-second): %.3f of the %.2f target before the caller and before anything moltgate does to a message. The highest ratio gateways on this path can reach: %.2f (target %.1f)",
		at, path, crypto, thousands(r.Raw.Moltgate), path+crypto, targetCPUPer1000, ratio, targetRatio)
}

// per1000 is a process's CPU seconds per 1,000 ops.
func (p *Phase) per1000(sec float64) float64 { return sec / float64(max(p.Ops, 1)) * 1000 }

// WriteText prints the report as a table.
func (r *Report) WriteText(w io.Writer) {
	fmt.Fprintf(w, "moltgate bench: %s\n", r.title())
	fmt.Fprintf(w, "machine: %s\n", r.machine())
	fmt.Fprintf(w, "%s\n\n", r.yardstick())
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "transport\tphase\tops/s\tmsgs/s\tp50 ms\tp99 ms\tmsgs per gw CPU-s\tratio\tCPU-s/1000 ops\tacme\tglobex\tagent\tcaller\terrors\t")
	for _, p := range r.rows() {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%.2f\t%.2f\t%s\t%.2f\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%s\t\n",
			p.Transport, r.label(p), thousands(p.OpsPerSec), thousands(p.MessagesPerSec), p.P50MS, p.P99MS,
			thousands(p.MessagesPerGatewayCPU), p.Ratio, p.CPUPer1000,
			p.per1000(p.CPU.Acme), p.per1000(p.CPU.Globex), p.per1000(p.CPU.Agent), p.per1000(p.CPU.LoadGen), p.errors())
	}
	tw.Flush()
	if len(r.Summary) > 0 {
		fmt.Fprintf(w, "\nacross the %d runs, min / median / max (runs that met the target):\n", r.Options.Runs)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "transport\tphase\tops/s\tratio\tp99 ms\tCPU-s/1000 ops\t")
		for i := range r.Summary {
			s := &r.Summary[i]
			c := s.cells()
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t\n", s.Transport, s.name(), c[0], c[1], c[2], c[3])
		}
		tw.Flush()
	}
	if n := r.floorNote(); n != "" {
		fmt.Fprintf(w, "\n%s\n", n)
	}
	if r.Idle != nil {
		fmt.Fprintf(w, "\n%s\n", r.idle())
	}
	fmt.Fprintf(w, "\ntargets: ratio ≥ %.1f; p99 round trip under load ≤ %.0f ms; ≤ %.2f CPU-s per 1,000 round trips (all processes)\n",
		targetRatio, targetP99MS, targetCPUPer1000)
}

// Markdown renders the generated part of the documentation's section.
func (r *Report) Markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Run of %s: %s.\n\n", r.Date.Format("2006-01-02 15:04 MST"), r.title())
	fmt.Fprintf(&b, "- Machine: %s.\n", r.machine())
	fmt.Fprintf(&b, "- Yardstick: %s.\n", r.yardstick())
	runs := ""
	if r.Options.Runs > 1 {
		runs = fmt.Sprintf(" --runs %d", r.Options.Runs)
	}
	fmt.Fprintf(&b, "- Command: `moltgate bench --duration %v --concurrency %d --size %d --chunks %d --transports %s%s --doc docs/benchmarks.md`\n\n",
		r.Options.Duration, r.Options.Concurrency, r.Options.Size, r.Options.Chunks, strings.Join(r.Options.Transports, ","), runs)
	b.WriteString("| transport | phase | ops/s | msgs/s | p50 ms | p99 ms | msgs per gateway CPU-s | ratio to raw | CPU-s per 1,000 ops | acme | globex | agent | caller | errors |\n")
	b.WriteString("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|\n")
	for _, p := range r.rows() {
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %.2f | %.2f | %s | **%.2f** | **%.3f** | %.3f | %.3f | %.3f | %.3f | %s |\n",
			p.Transport, r.label(p), thousands(p.OpsPerSec), thousands(p.MessagesPerSec), p.P50MS, p.P99MS,
			thousands(p.MessagesPerGatewayCPU), p.Ratio, p.CPUPer1000,
			p.per1000(p.CPU.Acme), p.per1000(p.CPU.Globex), p.per1000(p.CPU.Agent), p.per1000(p.CPU.LoadGen), p.errors())
	}
	b.WriteString("\nOps are round trips, or one-way messages; the last four columns split the CPU-s per 1,000 ops by process.\n")
	if len(r.Summary) > 0 {
		fmt.Fprintf(&b, "\nAcross the %d runs, min / median / max (in brackets, the runs that met the target):\n\n", r.Options.Runs)
		b.WriteString("| transport | phase | ops/s | ratio to raw | p99 ms | CPU-s per 1,000 ops |\n")
		b.WriteString("|---|---|---:|---:|---:|---:|\n")
		for i := range r.Summary {
			s := &r.Summary[i]
			c := s.cells()
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s |\n", s.Transport, s.name(), c[0], c[1], c[2], c[3])
		}
		if len(r.Raw.Between) > 0 {
			b.WriteString("\nEach run's ratios are read against the yardstick measured on either side of it.\n")
		}
	}
	if n := r.floorNote(); n != "" {
		fmt.Fprintf(&b, "\n%s%s.\n", strings.ToUpper(n[:1]), n[1:])
	}
	if r.Idle != nil {
		idle := r.idle()
		fmt.Fprintf(&b, "\n%s%s.\n", strings.ToUpper(idle[:1]), idle[1:])
	}
	fmt.Fprintf(&b, "\nTargets: ratio ≥ %.1f; p99 round trip under load ≤ %.0f ms; ≤ %.2f CPU-s per 1,000 round trips.\n",
		targetRatio, targetP99MS, targetCPUPer1000)
	return b.String()
}

// Markers of the part of docs/benchmarks.md that moltgate bench writes.
const (
	docSection = "## End to end (moltgate bench)"
	docBegin   = "<!-- moltgate bench: begin (generated by moltgate bench --doc; edits between these markers are overwritten) -->"
	docEnd     = "<!-- moltgate bench: end -->"
)

// UpdateDoc replaces the generated part of the end-to-end section of the
// Markdown file at path, between its markers, leaving the rest of the file
// as it is. A file without the markers gets the section appended.
func UpdateDoc(path, generated string) error {
	old, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	out, err := spliceDoc(old, generated)
	if err != nil {
		return err
	}
	return os.WriteFile(path, out, 0o644)
}

func spliceDoc(old []byte, generated string) ([]byte, error) {
	block := docBegin + "\n\n" + strings.TrimRight(generated, "\n") + "\n\n" + docEnd
	i, j := bytes.Index(old, []byte(docBegin)), bytes.Index(old, []byte(docEnd))
	switch {
	case i >= 0 && j > i:
		var b bytes.Buffer
		b.Write(old[:i])
		b.WriteString(block)
		b.Write(old[j+len(docEnd):])
		return b.Bytes(), nil
	case i >= 0 || j >= 0:
		return nil, errors.New("the file has only one of the moltgate bench markers")
	}
	var b bytes.Buffer
	b.Write(bytes.TrimRight(old, "\n"))
	if b.Len() > 0 {
		b.WriteString("\n\n")
	}
	b.WriteString(docSection + "\n\n" + block + "\n")
	return b.Bytes(), nil
}

// joinThousands renders each of v as thousands does, comma-separated.
func joinThousands(v []float64) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = thousands(x)
	}
	return strings.Join(s, "; ")
}

// thousands renders v rounded, with thousands separators.
func thousands(v float64) string {
	n := int64(v + 0.5)
	s := fmt.Sprint(n)
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}
