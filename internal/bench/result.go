package bench

import "time"

// Report is the whole result: machine, yardstick and phases.
type Report struct {
	Version string      `json:"version"`
	Date    time.Time   `json:"date"`
	Machine MachineInfo `json:"machine"`
	Options Options     `json:"options"`
	Raw     RawResult   `json:"raw_ed25519"`
	Phases  []Phase     `json:"phases"`
	// Summary is the spread of each phase over the runs, with --runs above 1.
	Summary []PhaseSummary `json:"summary,omitempty"`
	Idle    *IdleResult    `json:"idle_websocket,omitempty"`
}

// MachineInfo is the machine a report was measured on.
type MachineInfo struct {
	CPUs       int     `json:"cpus"`
	Model      string  `json:"model"`
	Go         string  `json:"go"`
	LoadBefore float64 `json:"load_before"`
	LoadAfter  float64 `json:"load_after"`
	GOGC       string  `json:"gateway_gogc"`
}

// RawResult is the yardstick: Ed25519 sign plus verify of a message of the
// signed request's size, on one thread, per second of that thread's CPU
// time, measured before and after the phases.
type RawResult struct {
	Bytes  int     `json:"bytes"`
	Before float64 `json:"before_per_cpu_second"`
	After  float64 `json:"after_per_cpu_second"`
	PerCPU float64 `json:"per_cpu_second"`
	// Moltgate is the same with the primitives the gateways use (package
	// keys: curve25519-voi under crypto/ed25519's rules, the verifying
	// key kept expanded), once, after the phases.
	Moltgate float64 `json:"moltgate_per_cpu_second"`
	// Between is the yardstick measured again after each run but the
	// last, with --runs above 1: a run's ratios are read against the
	// yardstick measured on either side of it, as the machine's speed
	// drifts over a long measurement.
	Between []float64 `json:"between_runs_per_cpu_second,omitempty"`
}

// Phase is one measured phase.
type Phase struct {
	Transport string `json:"transport"`
	Run       int    `json:"run"`  // from 1; the floor's phases are measured once, after the runs
	Kind      string `json:"kind"` // "round_trip", "paced" or "one_way"
	Callers   int    `json:"callers"`
	// Rate is the round trips a second a paced phase starts, whatever
	// the replies do; 0 in the other phases, whose callers start the next
	// call when the last one ends.
	Rate    float64 `json:"rate,omitempty"`
	Seconds float64
	// Ops are round trips, or one-way messages, completed in the window;
	// Messages the signed, sealed messages between the gateways they
	// took (two per round trip).
	Ops            int            `json:"ops"`
	Messages       int            `json:"messages"`
	Errors         map[string]int `json:"errors,omitempty"`
	OpsPerSec      float64        `json:"ops_per_second"`
	MessagesPerSec float64        `json:"messages_per_second"`
	P50MS          float64        `json:"p50_ms"`
	P99MS          float64        `json:"p99_ms"`
	// CPU seconds each process used in the window.
	CPU CPUSplit `json:"cpu_seconds"`
	// MessagesPerGatewayCPU is Messages over the two gateways' CPU
	// seconds: each message is signed and sealed by one gateway and
	// opened and verified by the other, so it is directly comparable with
	// the raw sign+verify rate. Ratio is the two's quotient.
	MessagesPerGatewayCPU float64 `json:"messages_per_gateway_cpu_second"`
	Ratio                 float64 `json:"ratio_to_raw"`
	// CPUPer1000 is the CPU seconds of all processes per 1,000 ops.
	CPUPer1000 float64 `json:"cpu_seconds_per_1000_ops"`
	// AgentRestarted says the agent process exited during the phase, so
	// its CPU time is missing from the figures.
	AgentRestarted bool `json:"agent_restarted,omitempty"`
}

// CPUSplit is the CPU seconds each process used in a phase.
type CPUSplit struct {
	Acme    float64 `json:"acme"`
	Globex  float64 `json:"globex"`
	Agent   float64 `json:"agent"`
	LoadGen float64 `json:"load_generator"`
}

func (c CPUSplit) total() float64 { return c.Acme + c.Globex + c.Agent + c.LoadGen }
