package bench

import (
	"fmt"
	"slices"
)

// PhaseSummary is the spread of one phase of the gateways over the runs of
// moltgate bench --runs: on a shared machine one window of a few seconds
// can land in a slow stretch, and the targets are read over several.
type PhaseSummary struct {
	Transport string `json:"transport"`
	Kind      string `json:"kind"`
	Callers   int    `json:"callers"`
	Runs      int    `json:"runs"`
	OpsPerSec Spread `json:"ops_per_second"`
	Ratio     Spread `json:"ratio_to_raw"`
	P99MS     Spread `json:"p99_ms"`
	// CPUPer1000 is the CPU seconds of all processes per 1,000 ops.
	CPUPer1000 Spread `json:"cpu_seconds_per_1000_ops"`
	// The runs that met each target. The p99 and CPU targets are about
	// round trips: for one-way phases they are not counted (-1).
	RatioMet int `json:"ratio_target_met"`
	P99Met   int `json:"p99_target_met"`
	CPUMet   int `json:"cpu_target_met"`
}

// Spread is the lowest, median and highest of a figure over the runs.
type Spread struct {
	Min    float64 `json:"min"`
	Median float64 `json:"median"`
	Max    float64 `json:"max"`
}

func spreadOf(v []float64) Spread {
	return Spread{Min: slices.Min(v), Median: median(v), Max: slices.Max(v)}
}

// median is the middle of v, or the mean of the two middle values; v is
// left as it was.
func median(v []float64) float64 {
	s := slices.Sorted(slices.Values(v))
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// summarize gathers the gateways' phases (not the floor's) by transport,
// kind and callers, in the order they first appear.
func summarize(phases []Phase) []PhaseSummary {
	type key struct {
		tr, kind string
		callers  int
	}
	var order []key
	groups := map[key][]Phase{}
	for _, p := range phases {
		if p.Transport == "floor" {
			continue
		}
		k := key{p.Transport, p.Kind, p.Callers}
		if _, ok := groups[k]; !ok {
			order = append(order, k)
		}
		groups[k] = append(groups[k], p)
	}
	out := make([]PhaseSummary, 0, len(order))
	for _, k := range order {
		g := groups[k]
		s := PhaseSummary{Transport: k.tr, Kind: k.kind, Callers: k.callers, Runs: len(g)}
		var ops, ratio, p99, cpu []float64
		for _, p := range g {
			ops, ratio, p99, cpu = append(ops, p.OpsPerSec), append(ratio, p.Ratio), append(p99, p.P99MS), append(cpu, p.CPUPer1000)
			if p.Ratio >= targetRatio {
				s.RatioMet++
			}
			if p.P99MS <= targetP99MS {
				s.P99Met++
			}
			if p.CPUPer1000 <= targetCPUPer1000 {
				s.CPUMet++
			}
		}
		if k.kind == "one_way" {
			s.P99Met, s.CPUMet = -1, -1
		}
		s.OpsPerSec, s.Ratio, s.P99MS, s.CPUPer1000 = spreadOf(ops), spreadOf(ratio), spreadOf(p99), spreadOf(cpu)
		out = append(out, s)
	}
	return out
}

// name is the phase's name without a paced phase's rate, which differs
// from run to run.
func (s *PhaseSummary) name() string {
	if s.Kind == "paced" {
		return "round trip, paced at half the rate"
	}
	p := Phase{Kind: s.Kind, Callers: s.Callers}
	return p.name()
}

// cells renders the summary's figures: ops/s, ratio, p99 and CPU, each as
// min / median / max, the last three with the runs that met the target.
func (s *PhaseSummary) cells() [4]string {
	met := func(n int) string {
		if n < 0 {
			return ""
		}
		return fmt.Sprintf(" (%d of %d)", n, s.Runs)
	}
	return [4]string{
		fmt.Sprintf("%s / %s / %s", thousands(s.OpsPerSec.Min), thousands(s.OpsPerSec.Median), thousands(s.OpsPerSec.Max)),
		fmt.Sprintf("%.2f / %.2f / %.2f%s", s.Ratio.Min, s.Ratio.Median, s.Ratio.Max, met(s.RatioMet)),
		fmt.Sprintf("%.2f / %.2f / %.2f%s", s.P99MS.Min, s.P99MS.Median, s.P99MS.Max, met(s.P99Met)),
		fmt.Sprintf("%.3f / %.3f / %.3f%s", s.CPUPer1000.Min, s.CPUPer1000.Median, s.CPUPer1000.Max, met(s.CPUMet)),
	}
}
