package localbridge

import (
	"bytes"
	"context"
	"log/slog"
	"math/rand/v2"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/moltgate/moltgate/pii"
)

// Environment variables a launched agent finds its Core by.
const (
	EnvSocket  = "OPENSENTIENCE_SOCKET"
	EnvToken   = "OPENSENTIENCE_TOKEN"
	EnvAgentID = "OPENSENTIENCE_AGENT_ID"
)

// minimalEnviron is the default Config.Environ: an agent inherits PATH, HOME, LANG and TZ and
// nothing else of the gateway's environment, which may hold the gateway's own secrets.
func minimalEnviron() []string {
	var env []string
	for _, k := range []string{"PATH", "HOME", "LANG", "TZ"} {
		if v, ok := os.LookupEnv(k); ok {
			env = append(env, k+"="+v)
		} else if k == "PATH" {
			env = append(env, "PATH=/usr/local/bin:/usr/bin:/bin")
		}
	}
	return env
}

// launch is one start of a supervised agent's process.
type launch struct {
	connected atomic.Bool
	ended     chan struct{} // closed when its session ends
	endOnce   sync.Once
}

func (l *launch) sessionEnded() { l.endOnce.Do(func() { close(l.ended) }) }

// supervisor keeps one agent's process running.
type supervisor struct {
	c        *Core
	spec     AgentSpec
	after    <-chan struct{} // if not nil: the first launch waits for it (the process this one replaces is gone)
	stopCh   chan struct{}
	stopOnce sync.Once
	done     chan struct{}

	mu     sync.Mutex
	pid    int
	starts int
}

func (c *Core) startSupervisorLocked(e *agentEntry) { c.startSupervisorAfterLocked(e, nil) }

// startSupervisorAfterLocked starts e's supervisor, whose first launch waits until after is
// closed.
func (c *Core) startSupervisorAfterLocked(e *agentEntry, after <-chan struct{}) {
	if len(e.spec.Command) == 0 || e.sup != nil {
		return
	}
	s := &supervisor{c: c, spec: e.spec, after: after, stopCh: make(chan struct{}), done: make(chan struct{})}
	e.sup = s
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		s.run()
	}()
}

func (s *supervisor) state() (pid, restarts int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.pid, max(s.starts-1, 0)
}

// stop terminates the process and waits for the supervisor to end. A process whose session
// was told goodbye first is given StopGrace to exit by itself before it is sent SIGTERM, and
// StopGrace more before SIGKILL.
func (s *supervisor) stop() {
	s.halt()
	<-s.done
}

// halt tells the supervisor to stop, and does not wait. Once it returns the supervisor issues
// no more tokens, so revoking the agent's tokens then leaves none.
func (s *supervisor) halt() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.stopOnce.Do(func() { close(s.stopCh) })
}

func (s *supervisor) stopping() bool {
	select {
	case <-s.stopCh:
		return true
	case <-s.c.done:
		return true
	default:
		return false
	}
}

// run starts the agent and starts it again whenever it exits, waiting RestartMin at first and
// twice as long after each exit that came quicker than RestartMax.
func (s *supervisor) run() {
	defer close(s.done)
	if s.after != nil {
		select {
		case <-s.after:
		case <-s.stopCh:
			return
		case <-s.c.done:
			return
		}
	}
	cfg := s.c.cfg
	delay := cfg.RestartMin
	for {
		started := time.Now()
		s.runOnce()
		if s.stopping() {
			return
		}
		if time.Since(started) > cfg.RestartMax {
			delay = cfg.RestartMin
		}
		d := time.Duration(float64(delay) * (0.8 + 0.4*rand.Float64()))
		s.c.log.Info("agent exited; restarting", "agent", s.spec.ID, "delay", d.Round(time.Millisecond))
		t := time.NewTimer(d)
		select {
		case <-t.C:
		case <-s.stopCh:
			t.Stop()
			return
		case <-s.c.done:
			t.Stop()
			return
		}
		delay = min(2*delay, cfg.RestartMax)
	}
}

// runOnce starts the process with a fresh token and waits until it is gone.
func (s *supervisor) runOnce() {
	c, id := s.c, s.spec.ID
	path := c.SocketPath()
	if path == "" {
		c.log.Error("cannot launch agent", "agent", id, "err", errNoSocket)
		return
	}
	l := &launch{ended: make(chan struct{})}
	s.mu.Lock()
	if s.stopping() {
		s.mu.Unlock()
		return
	}
	tok, err := c.tokens.issue(c.cfg.Rand, c.cfg.Now(), grant{agentID: id, expires: c.cfg.Now().Add(c.cfg.TokenTTL), launch: l})
	s.mu.Unlock()
	if err != nil {
		c.log.Error("cannot launch agent", "agent", id, "err", err)
		return
	}
	defer c.tokens.revoke(tok)

	cmd := exec.Command(s.spec.Command[0], s.spec.Command[1:]...)
	cmd.Dir = s.spec.Dir
	cmd.Env = append(c.cfg.Environ(), EnvSocket+"="+path, EnvToken+"="+tok.Reveal(), EnvAgentID+"="+id)
	stdout := &lineLogger{log: c.log, agent: id, stream: "stdout", secret: tok.Reveal()}
	stderr := &lineLogger{log: c.log, agent: id, stream: "stderr", secret: tok.Reveal()}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // so the whole group can be stopped
	cmd.WaitDelay = time.Second
	if err := cmd.Start(); err != nil {
		c.log.Error("cannot launch agent", "agent", id, "err", err)
		return
	}
	pid := cmd.Process.Pid
	s.mu.Lock()
	s.pid = pid
	s.starts++
	s.mu.Unlock()
	c.audit(AuditEvent{Event: AuditAgentStarted, Agent: id, PeerUID: -1, PeerPID: int64(pid)})

	waitCh := make(chan error, 1)
	go func() { waitCh <- cmd.Wait() }()
	terminate := func(why string) {
		c.log.Info("stopping agent", "agent", id, "pid", pid, "reason", why)
		syscall.Kill(-pid, syscall.SIGTERM)
		t := time.NewTimer(c.cfg.StopGrace)
		defer t.Stop()
		select {
		case <-waitCh:
		case <-t.C:
			syscall.Kill(-pid, syscall.SIGKILL)
			<-waitCh
		}
	}
	// exitOrTerminate gives a process whose session ended (it was told goodbye, or hung up)
	// StopGrace to exit by itself before it is terminated. Close, which stops the Core at
	// once, does not wait.
	exitOrTerminate := func(why string) {
		t := time.NewTimer(c.cfg.StopGrace)
		defer t.Stop()
		stopCh, coreDone := s.stopCh, c.done
		for {
			select {
			case <-waitCh:
				return
			case <-t.C:
				terminate(why)
				return
			case <-stopCh:
				stopCh = nil
			case <-coreDone:
				coreDone = nil
			}
			if stopCh == nil && coreDone == nil {
				terminate("gateway closing")
				return
			}
		}
	}
	startup := time.NewTimer(c.cfg.TokenTTL)
	defer startup.Stop()
	coreDone := c.done
wait:
	for {
		select {
		case <-waitCh:
			break wait
		case <-s.stopCh:
			if l.connected.Load() && !c.isClosed() {
				exitOrTerminate("agent stopped")
			} else {
				terminate("agent stopped")
			}
			break wait
		case <-coreDone:
			// Shutdown lets a connected agent finish its calls; its session's end stops it.
			if !l.connected.Load() {
				terminate("gateway shutting down")
				break wait
			}
			coreDone = nil
		case <-startup.C:
			if !l.connected.Load() {
				terminate("never connected")
				break wait
			}
		case <-l.ended:
			// Stopping or not, the agent has its grace to exit after its session ended.
			exitOrTerminate("connection ended")
			break wait
		}
	}
	// Kill what the agent may have left behind in its process group.
	syscall.Kill(-pid, syscall.SIGKILL)
	stdout.flush()
	stderr.flush()
	s.mu.Lock()
	s.pid = 0
	s.mu.Unlock()
	state := "unknown"
	if cmd.ProcessState != nil {
		state = cmd.ProcessState.String()
	}
	c.audit(AuditEvent{Event: AuditAgentExited, Agent: id, PeerUID: -1, PeerPID: int64(pid), Reason: state})
	c.endLaunch(l)
}

// endLaunch closes the session of a process that is gone, should something it left behind
// still hold the connection.
func (c *Core) endLaunch(l *launch) {
	c.mu.Lock()
	var s *session
	for _, e := range c.agents {
		if e.sess != nil && e.sess.launch == l {
			s = e.sess
		}
	}
	c.mu.Unlock()
	if s != nil {
		s.close(CodeDisconnected)
	}
}

// maxLogLine bounds one logged line of agent output.
const maxLogLine = 8 << 10

// lineLogger logs what an agent writes, one record per line. The agent's token is redacted
// should the agent print it, and a private key it prints in PEM form is one "[secret]".
type lineLogger struct {
	log           *slog.Logger
	agent, stream string
	secret        string

	mu    sync.Mutex
	buf   []byte
	inKey bool // within the body of a PEM private key
}

func (w *lineLogger) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf = append(w.buf, p...)
	for {
		i := bytes.IndexByte(w.buf, '\n')
		if i < 0 {
			break
		}
		w.emit(w.buf[:i])
		w.buf = w.buf[i+1:]
	}
	// Cut an overlong line only where no token can straddle the cut.
	for len(w.buf) >= maxLogLine+len(w.secret) {
		w.buf = bytes.ReplaceAll(w.buf, []byte(w.secret), []byte("[redacted]"))
		if len(w.buf) < maxLogLine+len(w.secret) {
			break
		}
		w.emit(w.buf[:maxLogLine])
		w.buf = w.buf[maxLogLine:]
	}
	w.buf = append([]byte(nil), w.buf...)
	return len(p), nil
}

func (w *lineLogger) flush() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.buf) > 0 {
		w.emit(w.buf)
		w.buf = nil
	}
}

func (w *lineLogger) emit(line []byte) {
	s := strings.TrimRight(string(line), "\r")
	if w.secret != "" {
		s = strings.ReplaceAll(s, w.secret, "[redacted]")
	}
	// A PEM private key comes one line at a time, and no line of its
	// body reads as a key on its own: from its BEGIN line to its END
	// line, or to the first line that cannot be part of its body, the
	// log gets one "[secret]".
	if w.inKey {
		if pemBodyLine(s) {
			w.inKey = !strings.HasPrefix(strings.TrimSpace(s), "-----END ")
			return
		}
		w.inKey = false // not the key's: logged as any line
	} else if t := strings.TrimSpace(s); strings.HasPrefix(t, "-----BEGIN ") && strings.HasSuffix(t, "PRIVATE KEY-----") {
		w.inKey = true
		s = pii.MaskSecret
	}
	s = strings.ToValidUTF8(s, "\uFFFD")
	w.log.LogAttrs(context.Background(), slog.LevelInfo, "agent output",
		slog.String("agent", w.agent), slog.String("stream", w.stream), slog.String("line", s))
}

// pemBodyLine reports whether s can be a line of a PEM block's body:
// base64, a header ("Proc-Type: 4,ENCRYPTED") or blank.
func pemBodyLine(s string) bool {
	s = strings.TrimSpace(s)
	if strings.HasPrefix(s, "-----END ") || strings.HasPrefix(s, "Proc-Type:") || strings.HasPrefix(s, "DEK-Info:") {
		return true
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '+' || c == '/' || c == '=') {
			return false
		}
	}
	return true
}
