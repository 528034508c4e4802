package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/moltgate/moltgate/gateway"
	"github.com/moltgate/moltgate/internal/bench"
)

// runBench is `moltgate bench`: the end-to-end benchmark of package bench,
// two gateways as separate processes on loopback with a caller and an
// agent, measured per transport against raw Ed25519 in the same run. The
// processes it starts are this program's hidden subcommands bench gateway,
// agent, relay and echo.
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
	o := bench.Options{}
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
	fs.StringVar(&o.Observe, "observe", bench.ObserveDefault, "what the gateways record: default (as init configures them), off (not even the log of answered calls), all (every allowed message in the audit ledger, and receipts) or trace (default, and every span to a file)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	o.Transports = strings.Split(*transports, ",")
	cfg := bench.Config{Options: o, Keep: os.Getenv("MOLTGATE_BENCH_KEEP") != "", Progress: e.stderr, Now: e.now,
		GOGC: e.getenv("GOGC"), Version: Version}
	if *asJSON {
		cfg.Progress = nil
	}
	if cfg.GOGC == "" {
		cfg.GOGC = fmt.Sprintf("%d (moltgate serve's default)", servingGCPercent)
	}
	rep, err := bench.Run(ctx, cfg)
	var oe *bench.OptionError
	switch {
	case errors.As(err, &oe):
		return usagef("%s", oe)
	case err != nil:
		return err
	}
	if *asJSON {
		if err := rep.WriteJSON(e.stdout); err != nil {
			return err
		}
	} else {
		rep.WriteText(e.stdout)
	}
	if *doc != "" {
		if err := bench.UpdateDoc(*doc, rep.Markdown()); err != nil {
			return fmt.Errorf("update %s: %w", *doc, err)
		}
	}
	return nil
}

// runBenchGateway is `moltgate bench gateway --dir DIR [--cpuprofile FILE]`,
// not listed in the usage: what `moltgate serve` does, with a CPU profile
// of the whole run when asked.
func runBenchGateway(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "bench gateway")
	dir := fs.String("dir", "", "gateway directory")
	prof := fs.String("cpuprofile", "", "write a CPU profile of the gateway to this file")
	mem := fs.String("memstats", "", "on SIGUSR1, collect garbage and write the memory in use to this file")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	d, err := requireDir(*dir)
	if err != nil {
		return err
	}
	stopProfile, err := bench.StartCPUProfile(*prof)
	if err != nil {
		return err
	}
	defer stopProfile()
	if *mem != "" {
		bench.ReportMemory(ctx, *mem)
	}
	setServingGC(e)
	s, err := gateway.Open(gateway.Options{Dir: d, Now: e.now})
	if err != nil {
		return err
	}
	if err := s.Run(ctx); err != nil && !errors.Is(err, gateway.ErrServerClosed) {
		return err
	}
	return nil
}

// runBenchAgent is `moltgate bench agent [--cpuprofile FILE]`, not listed in
// the usage: the benchmark's agent (bench.NewAgent).
func runBenchAgent(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "bench agent")
	prof := fs.String("cpuprofile", "", "write a CPU profile of the agent to this file")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 0 {
		return usagef("bench agent takes no arguments")
	}
	stopProfile, err := bench.StartCPUProfile(*prof)
	if err != nil {
		return err
	}
	defer stopProfile()
	return bench.NewAgent().Run(ctx)
}

// runBenchRelay is `moltgate bench relay --in ADDR --out ADDR --tls DIR`,
// not listed in the usage: a relay of the floor (bench.Relay).
func runBenchRelay(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "bench relay")
	in := fs.String("in", "", "address to listen on: unix:PATH or tls:HOST:PORT")
	out := fs.String("out", "", "address to pass each connection on to")
	certDir := fs.String("tls", "", "directory of cert.pem and key.pem")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	return benchAddress(bench.Relay(ctx, *in, *out, *certDir, e.stderr))
}

// runBenchEcho is `moltgate bench echo --in ADDR`, not listed in the usage:
// the echo process of the floor (bench.Echo).
func runBenchEcho(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "bench echo")
	in := fs.String("in", "", "address to listen on: unix:PATH")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	return benchAddress(bench.Echo(ctx, *in))
}

// benchAddress makes a bad address a mistake on the command line.
func benchAddress(err error) error {
	var ae *bench.AddressError
	if errors.As(err, &ae) {
		return usagef("%s", ae)
	}
	return err
}
