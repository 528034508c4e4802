package gateway

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/moltgate/moltgate/gateway/face/frames"
	"github.com/moltgate/moltgate/gateway/face/grpcface"
	"github.com/moltgate/moltgate/gateway/face/httpface"
	"github.com/moltgate/moltgate/gateway/keyswitch"
	"github.com/moltgate/moltgate/gateway/revoke"
	"github.com/moltgate/moltgate/gateway/rotation"
	"github.com/moltgate/moltgate/internal/filestamp"
	"github.com/moltgate/moltgate/internal/pgshared"
	"github.com/moltgate/moltgate/localbridge"
)

// Listeners are the sockets a gateway serves on. Run makes them from the
// configuration; tests and embedders may make their own.
type Listeners struct {
	HTTP net.Listener // the HTTPS (or loopback HTTP) face
	GRPC net.Listener // the gRPC face
	Core net.Listener // the OpenSentience socket for local agents
	RPC  net.Listener // the JSON-RPC socket for local callers
	// Terminal is the JSON-RPC face again, at the OpenAgent-Terminal
	// spec's path, with listen.terminal_socket; nil without it.
	Terminal net.Listener
}

// all lists the listeners that are open.
func (ls *Listeners) all() []net.Listener {
	var out []net.Listener
	for _, l := range []net.Listener{ls.HTTP, ls.GRPC, ls.Core, ls.RPC, ls.Terminal} {
		if l != nil {
			out = append(out, l)
		}
	}
	return out
}

// CoreSocket and RPCSocket are the local sockets in DIR/run.
func (d Dir) CoreSocket() string { return filepath.Join(d.RunDir(), "core.sock") }

// RPCSocket is DIR/run/rpc.sock.
func (d Dir) RPCSocket() string { return filepath.Join(d.RunDir(), "rpc.sock") }

// Listen opens the configured listeners: the two network faces, each
// limited to listen.max_connections, and the two local sockets (0600, in the
// private run directory).
func (s *Server) Listen() (*Listeners, error) {
	var ls Listeners
	var err error
	fail := func(e error) (*Listeners, error) {
		for _, l := range ls.all() {
			l.Close()
		}
		return nil, e
	}
	if ls.HTTP, err = listenTCP("listen.address", s.cfg.Listen.Address); err != nil {
		return fail(err)
	}
	if ls.GRPC, err = listenTCP("listen.grpc", s.cfg.Listen.GRPC); err != nil {
		return fail(err)
	}
	if ls.Core, err = s.listenCore(); err != nil {
		return fail(err)
	}
	if ls.RPC, err = localbridge.ListenUnix(s.dir.RPCSocket()); err != nil {
		return fail(socketError("run/rpc.sock", err))
	}
	if s.cfg.Listen.TerminalSocket {
		if ls.Terminal, err = localbridge.ListenTerminal(os.Getenv, os.Getpid()); err != nil {
			return fail(socketError("listen.terminal_socket", err))
		}
	}
	return &ls, nil
}

// socketError names the local socket that could not be made. What stops it (the run
// directory open to others or owned by another user, a file in the way, another gateway
// serving this directory) is the operator's to put right, and the error says what it is.
func socketError(key string, err error) error {
	return &ConfigError{Key: key, Msg: err.Error(), Err: err}
}

// listenTCP listens on the address of the config key key. A failure names
// the key: an address another process holds is the operator's to change.
func listenTCP(key, addr string) (net.Listener, error) {
	l, err := net.Listen("tcp", addr)
	if err != nil {
		cause := err
		var oe *net.OpError
		if errors.As(err, &oe) && oe.Err != nil {
			cause = oe.Err // "bind: address already in use", without the address again
		}
		return nil, &ConfigError{Key: key, Msg: fmt.Sprintf("cannot listen on %s: %v", addr, cause), Err: err}
	}
	return l, nil
}

// Run listens as configured and serves until ctx ends, then shuts down
// gracefully: after the drain delay (see Shutdown), no new work is
// accepted and calls in flight get up to 30 seconds to finish.
func (s *Server) Run(ctx context.Context) error {
	ls, err := s.Listen()
	if err != nil {
		return err
	}
	return s.RunOn(ctx, ls)
}

// RunOn is Run on listeners already opened with Listen, so that a caller
// can say where the gateway listens once it does, before it serves.
func (s *Server) RunOn(ctx context.Context, ls *Listeners) error {
	errc := make(chan error, 1)
	go func() { errc <- s.Serve(ls) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	// The drain delay does not eat into the calls' 30 seconds.
	sctx, cancel := context.WithTimeout(context.Background(), s.cfg.Listen.DrainDelay.D()+30*time.Second)
	defer cancel()
	err := s.Shutdown(sctx)
	<-errc
	return err
}

// maxStreamsPerConn is how many requests one HTTP/2 connection may have
// open at once.
const maxStreamsPerConn = 100

// Serve serves on ls until Shutdown, and then returns ErrServerClosed. If a
// face fails, Serve shuts the others down and returns the failure.
func (s *Server) Serve(ls *Listeners) error {
	var httpTLS, grpcTLS *tls.Config
	if s.cfg.TLSEnabled() {
		// Each new connection is given the certificate in use then: a
		// rotation switches it while serving.
		httpTLS = &tls.Config{GetCertificate: s.keys.GetCertificate, MinVersion: tls.VersionTLS13, NextProtos: []string{"h2", "http/1.1"}}
		grpcTLS = &tls.Config{GetCertificate: s.keys.GetCertificate, MinVersion: tls.VersionTLS13}
	}
	ws := s.faces.ws()
	hs := s.faces.http(httpTLS, ws)
	gs := s.faces.grpc(grpcTLS)
	s.lnMu.Lock()
	// Shutdown sets closing before it takes the servers under lnMu: so
	// either it sees these, or Serve sees closing here and stops at once.
	// Otherwise a signal that came as the gateway started would leave the
	// faces serving for ever.
	if s.closing.Load() {
		s.lnMu.Unlock()
		for _, l := range ls.all() {
			l.Close()
		}
		return ErrServerClosed
	}
	s.servers = append(s.servers, hs, ws, gs, s.core, s.rpc)
	s.startBackground() // under lnMu too, so that Shutdown waits for what it starts
	s.lnMu.Unlock()

	s.held.release()
	s.log.Info("gateway serving", "org", s.cfg.Org, "https", ls.HTTP.Addr().String(), "grpc", ls.GRPC.Addr().String(),
		"tls", s.cfg.TLSEnabled(), "agents", s.roster.Len())

	errc := make(chan error, 5)
	var wg sync.WaitGroup
	run := func(name string, f func() error) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := f(); err != nil && !isClosed(err) {
				errc <- fmt.Errorf("%s: %w", name, err)
			}
		}()
	}
	run("https", func() error { return hs.Serve(ls.HTTP) })
	run("grpc", func() error { return gs.Serve(ls.GRPC) })
	run("core socket", func() error { return s.core.Serve(ls.Core) })
	run("rpc socket", func() error { return s.rpc.Serve(ls.RPC) })
	if ls.Terminal != nil {
		run("terminal socket", func() error { return s.rpc.Serve(ls.Terminal) })
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case err := <-errc:
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		// A gateway that lost a face has nothing to drain for, even if a
		// Shutdown is under way already.
		s.SkipDrainDelay()
		s.shutdown(ctx, false)
		<-done
		return err
	case <-done:
		return ErrServerClosed
	}
}

func isClosed(err error) bool {
	return errors.Is(err, httpface.ErrServerClosed) || errors.Is(err, grpcface.ErrServerClosed) ||
		errors.Is(err, localbridge.ErrServerClosed) || errors.Is(err, net.ErrClosed)
}

// Shutdown stops the gateway gracefully. /readyz answers 503 at once; if
// something polled it lately, the gateway goes on serving for
// listen.drain_delay (until ctx ends or SkipDrainDelay, if sooner), so that
// a load balancer sees the 503 and sends its new connections elsewhere
// rather than have them refused. Then the faces stop accepting, calls in
// flight are given until ctx ends to finish (the local bridge lets its
// agents finish theirs), and everything is closed.
func (s *Server) Shutdown(ctx context.Context) error { return s.shutdown(ctx, true) }

// SkipDrainDelay ends the drain delay of a Shutdown at once, or spares a
// later Shutdown its delay: the faces close and calls in flight drain as
// usual. moltgate serve calls it on a second signal.
func (s *Server) SkipDrainDelay() { s.skipDrainOnce.Do(func() { close(s.skipDrain) }) }

func (s *Server) shutdown(ctx context.Context, delay bool) error {
	if !s.draining.CompareAndSwap(false, true) {
		return nil
	}
	if delay {
		s.drainDelay(ctx)
	}
	s.closing.Store(true)
	s.log.Info("gateway shutting down", "in_flight", s.flight.Count())
	s.quit()
	s.events.Close() // its streams end, so that the faces' shutdown does not wait for them
	s.lnMu.Lock()
	servers := s.servers
	s.lnMu.Unlock()
	var errs []error
	// The network faces first, all at once, so that no new work arrives
	// on any while another drains: each answers what it has read (a
	// stream connection writes every answer before it closes) and stops;
	// then what is still in flight drains; then the local side.
	var (
		facesMu sync.Mutex
		faces   sync.WaitGroup
	)
	for _, srv := range servers {
		if srv == shutdowner(s.core) || srv == shutdowner(s.rpc) {
			continue
		}
		faces.Add(1)
		go func() {
			defer faces.Done()
			if err := srv.Shutdown(ctx); err != nil {
				facesMu.Lock()
				errs = append(errs, err)
				facesMu.Unlock()
			}
		}()
	}
	faces.Wait()
	if err := s.flight.Drain(ctx); err != nil {
		errs = append(errs, fmt.Errorf("calls still in flight: %w", err))
	}
	if err := s.rpc.Shutdown(ctx); err != nil {
		errs = append(errs, err)
	}
	if err := s.core.Shutdown(ctx); err != nil {
		errs = append(errs, err)
	}
	s.peers.Close()
	s.stopBG()
	s.bg.Wait()
	if err := s.audit.Close(ctx); err != nil {
		errs = append(errs, err)
	}
	if s.tracing != nil {
		if err := s.tracing.Shutdown(ctx); err != nil {
			errs = append(errs, err)
		}
	}
	if err := s.store.Close(); err != nil {
		errs = append(errs, err)
	}
	if s.replayJournal != nil {
		if err := s.replayJournal.Close(); err != nil {
			errs = append(errs, err)
		}
	}
	if s.shared != nil {
		// The other replicas' shares of the rate limits grow at once.
		lctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Second)
		s.shared.Leave(lctx)
		cancel()
	}
	if s.db != nil {
		if err := s.db.Close(); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// drainDelay waits listen.drain_delay, serving as usual, if the gateway
// serves and /readyz was asked within the last minute (or drain_delay, if
// longer): no one else would see its 503, and a gateway that no one polls
// (the demo, one run by hand or alone under systemd) should stop at once.
// It ends early when ctx does or on SkipDrainDelay.
func (s *Server) drainDelay(ctx context.Context) {
	d := s.cfg.Listen.DrainDelay.D()
	s.lnMu.Lock()
	serving := len(s.servers) > 0
	s.lnMu.Unlock()
	asked := s.readyAsked.Load()
	select {
	case <-s.skipDrain:
		return
	default:
	}
	if d <= 0 || !serving || asked == 0 || s.now().Sub(time.Unix(0, asked)) > max(d, time.Minute) {
		return
	}
	s.log.Info("gateway draining", "drain_delay", d.String())
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-s.skipDrain:
		s.log.Info("drain delay skipped")
	case <-ctx.Done():
		s.log.Info("drain delay cut short", "err", context.Cause(ctx).Error())
	}
}

// startBackground starts the upkeep loops: expired sessions pruned every
// minute, the directory swept every hour, the local agents' entries and the
// certificates the gateway issues renewed before they expire.
func (s *Server) startBackground() {
	tick := func(every time.Duration, f func(context.Context)) {
		s.bg.Add(1)
		go func() {
			defer s.bg.Done()
			t := time.NewTicker(every)
			defer t.Stop()
			for {
				select {
				case <-t.C:
					f(s.bgCtx)
				case <-s.bgCtx.Done():
					return
				}
			}
		}()
	}
	tick(frames.SweepEvery(s.cfg.Security.HandshakeTimeout.D()), func(context.Context) { s.frames.Sweep(time.Now()) })
	tick(time.Minute, func(context.Context) {
		s.sessions.Prune()
		s.metrics.sessions.Set(float64(s.sessions.Len()))
	})
	tick(time.Hour, func(ctx context.Context) {
		if _, err := s.store.Sweep(ctx); err != nil {
			s.log.Warn("directory sweep failed", "err", err.Error())
		}
	})
	if s.shared != nil {
		// The replicas count one another, so that each knows its share of
		// the shared rate limits for when the database is out.
		tick(pgshared.ReplicaTTL/3, func(ctx context.Context) {
			ctx, cancel := context.WithTimeout(ctx, pgshared.ReplicaTTL/3)
			defer cancel()
			if _, err := s.shared.Heartbeat(ctx); err != nil {
				s.log.Debug("replica heartbeat failed", "err", err.Error())
			}
		})
		tick(5*time.Minute, func(ctx context.Context) {
			if err := s.shared.Prune(ctx); err != nil {
				s.log.Warn("shared state prune failed", "err", err.Error())
			}
		})
	}
	tick(max(s.cfg.Directory.MaxTTL.D()/3, time.Minute), func(context.Context) {
		for _, info := range s.core.Agents() {
			s.roster.Publish(info)
		}
	})
	tick(keyswitch.RenewEvery(s.cfg.Security.CertTTL.D()), s.keySwitch.Renew)
	s.registry.Background(tick)
	// Peers and local agents added, changed or removed on disk take effect
	// within seconds. A failed reload is reported once per change, not
	// every tick.
	lastPeers := s.peersStamp()
	tick(revoke.PullEvery, s.revoked.PullAll)
	tick(rotation.PullEvery, s.rotation.PullAll)
	tick(watchEvery, func(ctx context.Context) {
		s.rotation.Tick()
		s.rotation.PushChanged(ctx)
		if err := s.ReloadKeys(ctx); err != nil {
			s.log.Error("new key material not taken up", "err", err.Error())
		}
		s.revoked.PushChanged(ctx)
		s.revoked.WriteStatus()
		if st := s.peersStamp(); st != lastPeers {
			lastPeers = st
			if err := s.ReloadPeers(ctx); err != nil {
				s.log.Warn("peers not reloaded", "err", err.Error())
			}
		}
		if st := filestamp.Dir(s.dir.AgentsDir()); st != s.agentsSeen {
			s.agentsSeen = st
			if err := s.ReloadAgents(ctx); err != nil && !errors.Is(err, ErrServerClosed) {
				s.log.Warn("agents not reloaded", "err", err.Error())
			}
		}
	})
}

// ready is "" when the gateway takes traffic: not shutting down, and its
// storage answers; otherwise the fixed word that says why not.
func (s *Server) ready(ctx context.Context) string {
	// Whoever asks may be a load balancer, which a shutdown should give
	// time to see the 503 (see drainDelay).
	s.readyAsked.Store(s.now().UnixNano())
	if s.draining.Load() {
		return "shutting_down"
	}
	if err := s.store.Ping(ctx); err != nil {
		s.log.Warn("readiness check: storage does not answer", "err", err)
		return "storage_unavailable"
	}
	if reason := storageFailing(s.outages); reason != "" {
		return reason
	}
	return ""
}
