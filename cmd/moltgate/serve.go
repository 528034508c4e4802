package main

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"

	"github.com/moltgate/moltgate/gateway"
	"github.com/moltgate/moltgate/keys"
)

// servingGCPercent is the garbage collector's target under moltgate serve
// when GOGC is not set.
const servingGCPercent = 400

// setServingGC sets the garbage collector's target for a serving gateway,
// unless GOGC is set. A gateway's live heap is small (its caches and
// sessions, tens of MiB) and it allocates for every message, so with Go's
// default of 100 it collected several times a second: 8-12 % of its CPU.
// 400 collects a quarter as often for a peak heap of five times the live
// one. GOGC and GOMEMLIMIT in the environment still decide.
func setServingGC(e *env) {
	if e.getenv("GOGC") == "" {
		debug.SetGCPercent(servingGCPercent)
	}
}

func runServe(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "serve")
	dir := fs.String("dir", "", "gateway directory")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	d, err := requireDir(*dir)
	if err != nil {
		return err
	}
	pass, err := keys.PassphraseFromEnv(e.getenv)
	if err != nil {
		return err
	}
	setServingGC(e)
	s, err := gateway.Open(gateway.Options{Dir: d, Passphrase: pass, Now: e.now})
	if err != nil {
		return err
	}
	ls, err := s.Listen()
	if err != nil {
		return err
	}
	// Where it listens is the gateway's first log line ("gateway
	// serving"): standard error holds JSON lines only, one object each,
	// for whatever collects them.
	relog := slog.New(slog.NewJSONHandler(e.stderr, nil))
	// SIGHUP reads the peers, the local agents and the key files again
	// at once; the gateway also notices peer import, agent add, agent
	// remove, key rotate and tls rotate by itself within seconds.
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	defer func() { signal.Stop(hup); close(hup) }()
	go func() {
		for range hup {
			for _, line := range describeEach(s.Reload(ctx)) {
				relog.Error("reload failed", "err", line)
			}
		}
	}()
	// A second signal skips the drain delay, the wait for a load balancer
	// to see /readyz fail; calls in flight still drain.
	served := make(chan struct{})
	defer close(served)
	go func() {
		select {
		case <-e.again:
			s.SkipDrainDelay()
		case <-served:
		}
	}()
	if err := s.RunOn(ctx, ls); err != nil && !errors.Is(err, gateway.ErrServerClosed) {
		return err
	}
	return nil
}

// describeEach renders each of the errors err joins (the peers', the
// agents' and the configuration's, on a reload) as a line of its own, each
// with its own code.
func describeEach(err error) []string {
	if err == nil {
		return nil
	}
	j, ok := err.(interface{ Unwrap() []error })
	if !ok {
		return []string{describe(err)}
	}
	var lines []string
	for _, e := range j.Unwrap() {
		lines = append(lines, describeEach(e)...)
	}
	return lines
}
