package main

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"slices"
	"strings"
	"time"

	"github.com/moltgate/moltgate/gateway"
	"github.com/moltgate/moltgate/keys"
	"github.com/moltgate/moltgate/localbridge"
)

// runBench is `moltgate bench`: two gateways as separate processes on
// loopback (TLS on, as by default), globex with the echo agent, acme with
// a local caller on its JSON-RPC socket: the path of a real call, caller →
// acme's gateway → globex's gateway → agent and back. Per transport of
// calls between the gateways ([peers] transport in acme's configuration)
// it measures round trips with one caller and with --concurrency callers,
// and one-way messages (the agent streaming partial results back), and
// reads the CPU time of every process from /proc. In the same run it
// measures raw Ed25519 sign+verify on one core, the yardstick of the
// ratios, and the floor of the path: the same processes and hops relaying
// the bytes and doing nothing else (bench_floor.go).
func runBench(ctx context.Context, e *env, args []string) error {
	if len(args) > 0 {
		switch args[0] {
		case "gateway":
			return runBenchGateway(ctx, e, args[1:])
		case "agent":
			return runBenchAgent(ctx, e, args[1:])
		case "relay":
			return runBenchRelay(ctx, e, args[1:])
		case "echo":
			return runBenchEcho(ctx, e, args[1:])
		}
	}
	fs := newFlags(e, "bench")
	o := benchOptions{}
	fs.DurationVar(&o.Duration, "duration", 3*time.Second, "length of each measured phase")
	fs.IntVar(&o.Concurrency, "concurrency", 16, "callers (round trips) or streams (one-way) at once in the loaded phases")
	fs.IntVar(&o.Size, "size", 1024, "payload bytes of each message")
	fs.IntVar(&o.Chunks, "chunks", 20, "messages streamed per one-way call")
	fs.IntVar(&o.Idle, "idle", 100, "idle WebSocket sessions to open for the memory measurement (0: none)")
	fs.IntVar(&o.Runs, "runs", 1, "times to measure every transport's phases, in turn; more than one adds a summary of the spread")
	transports := fs.String("transports", "websocket,grpc,http", "transports between the gateways to measure, in order")
	asJSON := fs.Bool("json", false, "print the results as JSON")
	doc := fs.String("doc", "", "update the generated part of the \"End to end\" section of this Markdown file (docs/benchmarks.md)")
	fs.StringVar(&o.Profile, "cpuprofile", "", "write CPU profiles of the gateways, the agent and this load generator to this directory")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if !benchSupported {
		return errors.New("moltgate bench needs Linux: it reads its processes' CPU time from /proc")
	}
	for _, t := range strings.Split(*transports, ",") {
		switch t {
		case gateway.TransportWebSocket, gateway.TransportGRPC, gateway.TransportHTTP:
			o.Transports = append(o.Transports, t)
		default:
			return usagef("--transports: unknown transport %q (websocket, grpc, http)", t)
		}
	}
	switch {
	case o.Duration < 100*time.Millisecond:
		return usagef("--duration must be at least 100ms")
	case o.Concurrency < 1 || o.Concurrency > 512:
		return usagef("--concurrency must be between 1 and 512")
	case o.Size < 1 || o.Size > 60000:
		return usagef("--size must be between 1 and 60000")
	case o.Chunks < 1 || o.Chunks > 100000:
		return usagef("--chunks must be between 1 and 100000")
	case o.Idle < 0 || o.Idle > 10000:
		return usagef("--idle must be between 0 and 10000")
	case o.Runs < 1 || o.Runs > 50:
		return usagef("--runs must be between 1 and 50")
	}
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("find this program to start the gateways: %w", err)
	}
	root, err := os.MkdirTemp("", "mgbench")
	if err != nil {
		return err
	}
	if os.Getenv("MOLTGATE_BENCH_KEEP") == "" {
		defer os.RemoveAll(root)
	}
	progress := e.stderr
	if *asJSON {
		progress = nil
	}
	gogc := e.getenv("GOGC")
	if gogc == "" {
		gogc = fmt.Sprintf("%d (moltgate serve's default)", servingGCPercent)
	}
	b := &bench{o: o, exe: exe, root: root, progress: progress, now: e.now, gogc: gogc}
	rep, err := b.run(ctx)
	if err != nil {
		return err
	}
	if *asJSON {
		enc := json.NewEncoder(e.stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(rep); err != nil {
			return err
		}
	} else {
		rep.writeText(e.stdout)
	}
	if *doc != "" {
		if err := updateDoc(*doc, rep.markdown()); err != nil {
			return fmt.Errorf("update %s: %w", *doc, err)
		}
	}
	return nil
}

// benchOptions are the flags of moltgate bench.
type benchOptions struct {
	Duration    time.Duration `json:"duration_ns"`
	Concurrency int           `json:"concurrency"`
	Size        int           `json:"size"`
	Chunks      int           `json:"chunks"`
	Idle        int           `json:"idle_sessions"`
	Runs        int           `json:"runs"`
	Transports  []string      `json:"transports"`
	Profile     string        `json:"-"`
}

type bench struct {
	o        benchOptions
	exe      string
	root     string
	progress interface{ Write([]byte) (int, error) }
	now      func() time.Time
	gogc     string // the gateways' GOGC

	acme, globex, idle gateway.Dir
	globexDoc          *gateway.PeerDoc
}

func (b *bench) say(format string, a ...any) {
	if b.progress != nil {
		fmt.Fprintf(b.progress, "moltgate bench: "+format+"\n", a...)
	}
}

// benchReport is the whole result: machine, yardstick and phases.
type benchReport struct {
	Version string       `json:"version"`
	Date    time.Time    `json:"date"`
	Machine machineInfo  `json:"machine"`
	Options benchOptions `json:"options"`
	Raw     rawResult    `json:"raw_ed25519"`
	Phases  []phase      `json:"phases"`
	// Summary is the spread of each phase over the runs, with --runs above 1.
	Summary []phaseSummary `json:"summary,omitempty"`
	Idle    *idleResult    `json:"idle_websocket,omitempty"`
}

type machineInfo struct {
	CPUs       int     `json:"cpus"`
	Model      string  `json:"model"`
	Go         string  `json:"go"`
	LoadBefore float64 `json:"load_before"`
	LoadAfter  float64 `json:"load_after"`
	GOGC       string  `json:"gateway_gogc"`
}

// rawResult is the yardstick: Ed25519 sign plus verify of a message of the
// signed request's size, on one thread, per second of that thread's CPU
// time, measured before and after the phases.
type rawResult struct {
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

// phase is one measured phase.
type phase struct {
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
	CPU cpuSplit `json:"cpu_seconds"`
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

type cpuSplit struct {
	Acme    float64 `json:"acme"`
	Globex  float64 `json:"globex"`
	Agent   float64 `json:"agent"`
	LoadGen float64 `json:"load_generator"`
}

func (c cpuSplit) total() float64 { return c.Acme + c.Globex + c.Agent + c.LoadGen }

func (b *bench) run(ctx context.Context) (*benchReport, error) {
	rep := &benchReport{Version: Version, Date: b.now().UTC(), Options: b.o,
		Machine: machineInfo{CPUs: runtime.NumCPU(), Model: cpuModel(), Go: runtime.Version(), LoadBefore: loadAverage(), GOGC: b.gogc}}
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
	stopProfile, err := startCPUProfile(b.profile("load-generator"))
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
func (r rawResult) around(run int) float64 {
	if run < 1 || len(r.Between) == 0 {
		return r.PerCPU
	}
	y := append(append([]float64{r.Before}, r.Between...), r.After)
	run = min(run, len(y)-1)
	return (y[run-1] + y[run]) / 2
}

// startCPUProfile profiles this process into path until stop is called;
// with an empty path it does nothing.
func startCPUProfile(path string) (stop func(), err error) {
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

// setUp makes the two gateway directories: globex with the echo agent
// (launched by its gateway), acme with the agent its caller sends as; each
// trusts the other up to conf; the rate limits are out of the way.
func (b *bench) setUp() error {
	b.acme, b.globex = gateway.Dir(filepath.Join(b.root, "acme")), gateway.Dir(filepath.Join(b.root, "globex"))
	// idle is a third organisation, trusted by globex, whose sessions
	// are left idle for the memory measurement; its gateway never runs.
	b.idle = gateway.Dir(filepath.Join(b.root, "idle"))
	for _, d := range []struct {
		dir gateway.Dir
		org string
	}{{b.acme, "acme"}, {b.globex, "globex"}, {b.idle, "idle"}} {
		ports, err := freePorts(2)
		if err != nil {
			return err
		}
		if _, err := gateway.Init(d.dir, gateway.InitOptions{Org: d.org, Listen: ports[0], GRPC: ports[1]}); err != nil {
			return err
		}
		if err := editConfig(d.dir,
			[2]string{"peer_org_per_second = 200.0", "peer_org_per_second = 1000000.0"},
			[2]string{"peer_org_burst = 400", "peer_org_burst = 1000000"},
			[2]string{"agent_per_second = 50.0", "agent_per_second = 1000000.0"},
			[2]string{"agent_burst = 100", "agent_burst = 1000000"},
			[2]string{"peer_concurrency = 64", "peer_concurrency = 4096"},
		); err != nil {
			return err
		}
	}
	agentCmd := shellQuote(b.exe) + " bench agent"
	if b.o.Profile != "" {
		agentCmd += " --cpuprofile " + shellQuote(b.profile("agent"))
	}
	if _, err := gateway.AddAgent(b.globex, gateway.AddAgentOptions{ID: "echo", Exec: agentCmd, Capabilities: []string{"echo.text"}}); err != nil {
		return err
	}
	if _, err := gateway.AddAgent(b.acme, gateway.AddAgentOptions{ID: "client"}); err != nil {
		return err
	}
	for _, p := range [][2]gateway.Dir{{b.acme, b.globex}, {b.globex, b.acme}, {b.globex, b.idle}} {
		doc, err := gateway.ExportPeer(p[1], nil, b.now())
		if err != nil {
			return err
		}
		if _, err := gateway.ImportPeer(p[0], doc, gateway.ImportOptions{MaxCls: "conf"}); err != nil {
			return err
		}
		if p[1] == b.globex {
			if b.globexDoc, err = gateway.ParsePeerDoc(doc); err != nil {
				return err
			}
		}
	}
	if b.o.Profile != "" {
		return os.MkdirAll(b.o.Profile, 0o755)
	}
	return nil
}

// transport measures the phases with acme calling globex over tr.
func (b *bench) transport(ctx context.Context, tr string, globex *child) ([]phase, error) {
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
	// One connection per 16 callers: the JSON-RPC face runs at most 64
	// queries per connection.
	var clients []*localbridge.Client
	defer func() {
		for _, c := range clients {
			c.Close()
		}
	}()
	for range (b.o.Concurrency + 15) / 16 {
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
	var out []phase
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
		b.say("%s: %s, %d callers, %v", tr, ph.kind, ph.callers, b.o.Duration)
		var c0, c1 [4]time.Duration
		var agentGone bool
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
		l := window(ctx, ph.callers, b.o.Duration, at, ph.work)
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
func newPhase(tr, kind string, callers int, rate float64, msgs int, l *load, c0, c1 [4]time.Duration) phase {
	p := phase{Transport: tr, Kind: kind, Callers: callers, Rate: rate, Seconds: l.elapsed.Seconds(),
		Ops: l.ops, Messages: l.ops * msgs, Errors: l.errs,
		P50MS: ms(percentile(l.lat, 50)), P99MS: ms(percentile(l.lat, 99))}
	p.OpsPerSec = float64(p.Ops) / p.Seconds
	p.MessagesPerSec = float64(p.Messages) / p.Seconds
	p.CPU = cpuSplit{Acme: (c1[0] - c0[0]).Seconds(), Globex: (c1[1] - c0[1]).Seconds(),
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

// freePorts returns n loopback addresses that were free a moment ago.
func freePorts(n int) ([]string, error) {
	var ls []net.Listener
	defer func() {
		for _, l := range ls {
			l.Close()
		}
	}()
	var out []string
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		ls = append(ls, l)
		out = append(out, l.Addr().String())
	}
	return out, nil
}
