// Package bench measures moltgate end to end: two gateways as separate
// processes on loopback (TLS on, as by default), globex with the echo
// agent, acme with a local caller on its JSON-RPC socket: the path of a real
// call, caller → acme's gateway → globex's gateway → agent and back. Per
// transport of calls between the gateways ([peers] transport in acme's
// configuration) it measures round trips with one caller and with
// Options.Concurrency callers, and one-way messages (the agent streaming
// partial results back), and reads the CPU time of every process from
// /proc. In the same run it measures raw Ed25519 sign+verify on one core,
// the yardstick of the ratios, and the floor of the path: the same
// processes and hops relaying the bytes and doing nothing else (floor.go).
//
// The processes it starts are the moltgate binary's hidden subcommands
// `bench gateway` (a gateway with StartCPUProfile and ReportMemory),
// `bench agent` (NewAgent), `bench relay` (Relay) and `bench echo` (Echo).
package bench

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"slices"
	"time"

	"github.com/moltgate/moltgate/gateway"
	"github.com/moltgate/moltgate/keys"
	"github.com/moltgate/moltgate/localbridge"
)

// Options are the flags of moltgate bench.
type Options struct {
	// Duration is the length of each measured phase; at least 100ms.
	Duration time.Duration `json:"duration_ns"`
	// Concurrency is the callers (round trips) or streams (one-way) at
	// once in the loaded phases: 1 to 512.
	Concurrency int `json:"concurrency"`
	// Size is the payload bytes of each message: 1 to 60,000.
	Size int `json:"size"`
	// Chunks is the messages streamed per one-way call: 1 to 100,000.
	Chunks int `json:"chunks"`
	// Idle is the idle WebSocket sessions opened for the memory
	// measurement: 0 (none) to 10,000.
	Idle int `json:"idle_sessions"`
	// Runs is how many times every transport's phases are measured, in
	// turn: 1 to 50; more than one adds a summary of the spread.
	Runs int `json:"runs"`
	// Transports are those between the gateways to measure, in order:
	// gateway.TransportWebSocket, TransportGRPC, TransportHTTP.
	Transports []string `json:"transports"`
	// Profile, if not empty, is a directory to write CPU profiles of the
	// gateways, the agent and the load generator to.
	Profile string `json:"-"`
	// Observe is what the gateways record of the calls: "default" (as
	// moltgate init configures them: refusals and personal data in the
	// audit ledger, every answered call logged, no receipts, no
	// tracing), "off" (default without the log of answered calls: what a
	// gateway did before these were added, for a call that is allowed),
	// "all" (default with every allowed message in the ledger and
	// receipts) or "trace" (default, and every span written to a file).
	// Default "default".
	Observe string `json:"observe,omitempty"`
}

// Observe settings.
const (
	ObserveDefault = "default"
	ObserveOff     = "off"
	ObserveTrace   = "trace"
	ObserveAll     = "all"
)

// OptionError is an option out of its range, named by its flag.
type OptionError struct {
	Flag    string // without its dashes: "duration"
	Problem string // what follows the flag's name in the message
}

func (e *OptionError) Error() string { return "--" + e.Flag + e.Problem }

// Validate says which option, if any, is out of its range.
func (o Options) Validate() error {
	switch o.Observe {
	case "", ObserveDefault, ObserveOff, ObserveTrace, ObserveAll:
	default:
		return &OptionError{"observe", fmt.Sprintf(": unknown setting %q (default, off, all, trace)", o.Observe)}
	}
	if len(o.Transports) == 0 {
		return &OptionError{"transports", ": none given (websocket, grpc, http)"}
	}
	for _, t := range o.Transports {
		switch t {
		case gateway.TransportWebSocket, gateway.TransportGRPC, gateway.TransportHTTP:
		default:
			return &OptionError{"transports", fmt.Sprintf(": unknown transport %q (websocket, grpc, http)", t)}
		}
	}
	switch {
	case o.Duration < 100*time.Millisecond:
		return &OptionError{"duration", " must be at least 100ms"}
	case o.Concurrency < 1 || o.Concurrency > 512:
		return &OptionError{"concurrency", " must be between 1 and 512"}
	case o.Size < 1 || o.Size > 60000:
		return &OptionError{"size", " must be between 1 and 60000"}
	case o.Chunks < 1 || o.Chunks > 100000:
		return &OptionError{"chunks", " must be between 1 and 100000"}
	case o.Idle < 0 || o.Idle > 10000:
		return &OptionError{"idle", " must be between 0 and 10000"}
	case o.Runs < 1 || o.Runs > 50:
		return &OptionError{"runs", " must be between 1 and 50"}
	}
	return nil
}

// Config is one measurement.
type Config struct {
	Options
	// Exe is the moltgate binary whose hidden bench subcommands run the
	// gateways, the agent and the floor's processes. Default: this
	// program.
	Exe string
	// Keep leaves the gateways' directories and logs in the temporary
	// directory after the run. Default: false, they are removed.
	Keep bool
	// Progress receives a line as each phase starts. Default (nil):
	// nothing is written.
	Progress io.Writer
	// Now is the clock of the report's date and the peer documents.
	// Default: time.Now.
	Now func() time.Time
	// GOGC is the gateways' garbage collector target, as the report
	// states it: the subcommand that runs them sets it. Default: empty.
	GOGC string
	// Version is the release the report names. Default: empty.
	Version string
}

// Run measures what cfg asks for. An option out of its range is an
// *OptionError; on another system than Linux Run measures nothing.
func Run(ctx context.Context, cfg Config) (*Report, error) {
	if !Supported {
		return nil, errors.New("moltgate bench needs Linux: it reads its processes' CPU time from /proc")
	}
	if err := cfg.Options.Validate(); err != nil {
		return nil, err
	}
	exe := cfg.Exe
	if exe == "" {
		var err error
		if exe, err = os.Executable(); err != nil {
			return nil, fmt.Errorf("find this program to start the gateways: %w", err)
		}
	}
	root, err := os.MkdirTemp("", "mgbench")
	if err != nil {
		return nil, err
	}
	if !cfg.Keep {
		defer os.RemoveAll(root)
	}
	now := cfg.Now
	if now == nil {
		now = time.Now
	}
	b := &bench{o: cfg.Options, exe: exe, root: root, progress: cfg.Progress, now: now, gogc: cfg.GOGC, version: cfg.Version}
	return b.run(ctx)
}

// WriteJSON writes the report as indented JSON.
func (r *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

type bench struct {
	o        Options
	exe      string
	root     string
	progress io.Writer
	now      func() time.Time
	gogc     string // the gateways' GOGC
	version  string

	acme, globex, idle gateway.Dir
	globexDoc          *gateway.PeerDoc
}

func (b *bench) say(format string, a ...any) {
	if b.progress != nil {
		fmt.Fprintf(b.progress, "moltgate bench: "+format+"\n", a...)
	}
}

func (b *bench) run(ctx context.Context) (*Report, error) {
	rep := &Report{Version: b.version, Date: b.now().UTC(), Options: b.o,
		Machine: MachineInfo{CPUs: runtime.NumCPU(), Model: cpuModel(), Go: runtime.Version(), LoadBefore: loadAverage(), GOGC: b.gogc}}
	// The signed request is the payload, the JSON around it and the
	// header with its capability certificate: 1,967 bytes for a 1 KiB
	// payload (BenchmarkCrossOrgRoundTrip's request-bytes).
	rep.Raw.Bytes = b.o.Size + 943
	b.say("raw Ed25519 sign+verify of %d bytes", rep.Raw.Bytes)
	rep.Raw.Before = rawSignVerify(time.Second, rep.Raw.Bytes)
	if err := b.setUp(); err != nil {
		return nil, err
	}
	globex, err := startGateway(b.exe, b.globex, "globex", b.profile("globex"))
	if err != nil {
		return nil, err
	}
	defer globex.stop()
	gcl, err := globex.dial(ctx)
	if err != nil {
		return nil, err
	}
	err = awaitAlive(ctx, gcl, "echo")
	gcl.Close()
	if err != nil {
		return nil, fmt.Errorf("globex's echo agent: %w%s", err, globex.tail())
	}
	if len(childrenOf(globex.cmd.Process.Pid)) == 0 {
		return nil, errors.New("globex's echo agent process not found")
	}
	stopProfile, err := StartCPUProfile(b.profile("load-generator"))
	if err != nil {
		return nil, err
	}
	for run := 1; run <= b.o.Runs; run++ {
		if run > 1 {
			rep.Raw.Between = append(rep.Raw.Between, rawSignVerify(time.Second, rep.Raw.Bytes))
		}
		if b.o.Runs > 1 {
			b.say("run %d of %d", run, b.o.Runs)
		}
		for _, tr := range b.o.Transports {
			ps, err := b.transport(ctx, tr, globex)
			if err != nil {
				stopProfile()
				return nil, err
			}
			for i := range ps {
				ps[i].Run = run
			}
			rep.Phases = append(rep.Phases, ps...)
		}
	}
	stopProfile()
	// The floor is also paced at the rates the gateways carried over the
	// first transport, with --concurrency callers and in the paced phase
	// (the median over the runs), so that the two are compared at the
	// same load.
	var loaded, paced []float64
	for _, p := range rep.Phases {
		switch {
		case p.Transport != b.o.Transports[0]:
		case p.Kind == "paced":
			paced = append(paced, p.Rate)
		case p.Kind == "round_trip" && p.Callers == b.o.Concurrency:
			loaded = append(loaded, p.OpsPerSec)
		}
	}
	var rates []float64
	for _, r := range [][]float64{paced, loaded} {
		if len(r) > 0 {
			rates = append(rates, median(r))
		}
	}
	fl, err := b.floor(ctx, rep.Raw.Bytes, rates)
	if err != nil {
		return nil, fmt.Errorf("floor: %w", err)
	}
	rep.Phases = append(rep.Phases, fl...)
	if b.o.Idle > 0 {
		b.say("%d idle WebSocket sessions", b.o.Idle)
		idle, err := b.idleSessions(ctx, globex, b.o.Idle)
		if err != nil {
			return nil, fmt.Errorf("idle sessions: %w%s", err, globex.tail())
		}
		rep.Idle = &idle
	}
	if err := globex.stop(); err != nil {
		return nil, err
	}
	rep.Raw.After = rawSignVerify(time.Second, rep.Raw.Bytes)
	rep.Raw.PerCPU = (rep.Raw.Before + rep.Raw.After) / 2
	rep.Raw.Moltgate = keysSignVerify(time.Second, rep.Raw.Bytes)
	rep.Machine.LoadAfter = loadAverage()
	for i := range rep.Phases {
		p := &rep.Phases[i]
		if gw := p.CPU.Acme + p.CPU.Globex; gw > 0 {
			p.MessagesPerGatewayCPU = float64(p.Messages) / gw
			p.Ratio = p.MessagesPerGatewayCPU / rep.Raw.around(p.Run)
		}
	}
	if b.o.Runs > 1 {
		rep.Summary = summarize(rep.Phases)
	}
	return rep, nil
}

// around is the yardstick a phase of run (from 1) is read against: the
// mean of the measurements on either side of its run, or of those before
// and after all the runs for the floor (run 0) and when there is one run.
func (r RawResult) around(run int) float64 {
	if run < 1 || len(r.Between) == 0 {
		return r.PerCPU
	}
	y := append(append([]float64{r.Before}, r.Between...), r.After)
	run = min(run, len(y)-1)
	return (y[run-1] + y[run]) / 2
}

// StartCPUProfile profiles this process into path until stop is called;
// with an empty path it does nothing.
func StartCPUProfile(path string) (stop func(), err error) {
	if path == "" {
		return func() {}, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("create CPU profile: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("start CPU profile: %w", err)
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}, nil
}

func (b *bench) profile(name string) string {
	if b.o.Profile == "" {
		return ""
	}
	return filepath.Join(b.o.Profile, name+".pprof")
}

// transport measures the phases with acme calling globex over tr.
func (b *bench) transport(ctx context.Context, tr string, globex *child) ([]Phase, error) {
	cfg, err := b.acme.ReadConfig()
	if err != nil {
		return nil, err
	}
	if err := editConfig(b.acme, [2]string{fmt.Sprintf("transport = %q", cfg.Peers.Transport), fmt.Sprintf("transport = %q", tr)}); err != nil {
		return nil, err
	}
	acme, err := startGateway(b.exe, b.acme, "acme", b.profile("acme-"+tr))
	if err != nil {
		return nil, err
	}
	defer acme.stop()
	// One connection per 3 callers: the JSON-RPC face runs at most 3
	// queries per connection unless configured, as the IPC protocol says.
	var clients []*localbridge.Client
	defer func() {
		for _, c := range clients {
			c.Close()
		}
	}()
	for range (b.o.Concurrency + 2) / 3 {
		c, err := acme.dial(ctx)
		if err != nil {
			return nil, err
		}
		clients = append(clients, c)
	}
	if err := awaitAlive(ctx, clients[0], "echo@globex"); err != nil {
		return nil, fmt.Errorf("over %s: %w%s%s", tr, err, acme.tail(), globex.tail())
	}
	text := benchText(b.o.Size)
	input, _ := json.Marshal(map[string]string{"text": text})
	echoReq := localbridge.QueryRequest{From: "client", To: "echo@globex", Tool: "echo", Input: input, Class: "conf"}
	stampInput, _ := json.Marshal(map[string]int{"count": b.o.Chunks, "size": b.o.Size})
	stampReq := localbridge.QueryRequest{From: "client", To: "echo@globex", Tool: "stamp", Input: stampInput, Class: "conf"}

	b.say("%s: warming up", tr)
	window(ctx, b.o.Concurrency, min(b.o.Duration/2, time.Second), func() {}, roundTrips(echoCalls(clients, echoReq)))

	gpid := globex.cmd.Process.Pid
	pids := [3][]int{{acme.cmd.Process.Pid}, {gpid}, nil}
	var out []Phase
	specs := []phaseSpec{
		{"round_trip", 1, 0, roundTrips(echoCalls(clients, echoReq)), 2},
		{"round_trip", b.o.Concurrency, 0, roundTrips(echoCalls(clients, echoReq)), 2},
		{"paced", pacedCallers, 0, nil, 2}, // at half the rate of the phase before
		{"one_way", b.o.Concurrency, 0, oneWay(clients, stampReq), 1},
	}
	for i := 0; i < len(specs); i++ {
		ph := specs[i]
		if ph.kind == "paced" {
			ph.rate = out[len(out)-1].OpsPerSec / 2
			ph.work = paced(echoCalls(clients, echoReq), ph.rate/float64(ph.callers))
		}
		var c0, c1 [4]time.Duration
		var agentGone bool
		var l *load
		// A phase in which no call completed (a machine so busy that a
		// paced call is not even due, or not answered, within the window)
		// runs again for twice as long, up to three more times: a busy
		// machine makes the benchmark slower, not wrong.
		for d, try := b.o.Duration, 0; ; d, try = d*2, try+1 {
			b.say("%s: %s, %d callers, %v", tr, ph.kind, ph.callers, d)
			first := true
			at := func() {
				if first {
					// The agent is looked for afresh: the gateway restarts
					// one that exits.
					pids[2] = childrenOf(gpid)
					c0, first = clocks(pids), false
				} else {
					c1 = clocks(pids)
					agentGone = !slices.Equal(pids[2], childrenOf(gpid))
				}
			}
			l = window(ctx, ph.callers, d, at, ph.work)
			if l.ops > 0 || try == 3 || ctx.Err() != nil {
				break
			}
		}
		p := newPhase(tr, ph.kind, ph.callers, ph.rate, ph.msgs, l, c0, c1)
		if agentGone {
			// An agent that exited took its CPU time with it.
			p.CPU.Agent, p.AgentRestarted = 0, true
			p.CPUPer1000 = p.CPU.total() / float64(max(p.Ops, 1)) * 1000
		}
		if p.Ops == 0 {
			return nil, fmt.Errorf("over %s, %s: no call completed (errors %v)%s%s", tr, ph.kind, l.errs, acme.tail(), globex.tail())
		}
		out = append(out, p)
	}
	for _, c := range clients {
		c.Close()
	}
	clients = nil
	if err := acme.stop(); err != nil {
		return nil, err
	}
	return out, nil
}

// phaseSpec is a phase to measure: its kind and callers, the rate of a
// paced one, the work each caller does, and the messages between the
// gateways (or the relays) per op.
type phaseSpec struct {
	kind    string
	callers int
	rate    float64
	work    func(ctx context.Context, w int, end time.Time, l *load)
	msgs    int
}

// newPhase is what a window l measured, msgs messages between the
// gateways per op, with the CPU clocks c0 and c1 read at its start and end.
func newPhase(tr, kind string, callers int, rate float64, msgs int, l *load, c0, c1 [4]time.Duration) Phase {
	p := Phase{Transport: tr, Kind: kind, Callers: callers, Rate: rate, Seconds: l.elapsed.Seconds(),
		Ops: l.ops, Messages: l.ops * msgs, Errors: l.errs,
		P50MS: ms(percentile(l.lat, 50)), P99MS: ms(percentile(l.lat, 99))}
	p.OpsPerSec = float64(p.Ops) / p.Seconds
	p.MessagesPerSec = float64(p.Messages) / p.Seconds
	p.CPU = CPUSplit{Acme: (c1[0] - c0[0]).Seconds(), Globex: (c1[1] - c0[1]).Seconds(),
		Agent: (c1[2] - c0[2]).Seconds(), LoadGen: (c1[3] - c0[3]).Seconds()}
	p.CPUPer1000 = p.CPU.total() / float64(max(p.Ops, 1)) * 1000
	return p
}

// clocks reads the CPU time of acme's gateway, globex's, its agents and
// this process.
func clocks(pids [3][]int) [4]time.Duration {
	var out [4]time.Duration
	for i, ps := range pids {
		for _, p := range ps {
			d, _ := procCPU(p)
			out[i] += d
		}
	}
	out[3] = selfCPU()
	return out
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// rawSignVerify measures Ed25519 sign plus verify of an n-byte message
// with crypto/ed25519: the yardstick.
func rawSignVerify(d time.Duration, n int) float64 {
	_, sk, _ := ed25519.GenerateKey(rand.Reader)
	pk := sk.Public().(ed25519.PublicKey)
	return signVerifyRate(d, n, func(msg []byte) bool { return ed25519.Verify(pk, msg, ed25519.Sign(sk, msg)) })
}

// keysSignVerify is rawSignVerify with package keys, as the gateways sign
// and verify: the verifying key expanded once and kept.
func keysSignVerify(d time.Duration, n int) float64 {
	sk, err := keys.GenerateEd25519(rand.Reader)
	if err != nil {
		return 0
	}
	pk, v := sk.Public(), keys.NewVerifier(1)
	return signVerifyRate(d, n, func(msg []byte) bool { return v.Verify(pk, msg, sk.Sign(msg)) })
}

// signVerifyRate runs signVerify on n-byte messages on one locked thread
// for about d, and returns the runs per second of that thread's CPU time:
// on a shared machine, time the thread waited for a core is not counted
// against it.
func signVerifyRate(d time.Duration, n int, signVerify func(msg []byte) bool) float64 {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	msg := make([]byte, n)
	rand.Read(msg)
	ops := 0
	c0, t0 := threadCPU(), time.Now()
	for time.Since(t0) < d {
		for range 16 {
			if !signVerify(msg) {
				panic("ed25519 verification failed")
			}
			msg[0]++
		}
		ops += 16
	}
	cpu := threadCPU() - c0
	if cpu <= 0 {
		cpu = time.Since(t0)
	}
	return float64(ops) / cpu.Seconds()
}
