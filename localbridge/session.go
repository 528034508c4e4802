package localbridge

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"os"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/moltgate/moltgate/localbridge/osp"
)

const (
	maxDescriptionBytes = 4096
	maxDetailsBytes     = 4096 // heartbeat details kept for AgentInfo
	recentCalls         = 4096 // finished call ids remembered to tell a second result from an unknown one
)

// States of a finished call id.
const (
	recentDone    = 1 // its result arrived
	recentExpired = 2 // cancelled, and the agent did not answer within CancelGrace
)

type tool struct {
	info  ToolInfo
	input *jsonschema.Schema
}

// session is one authenticated agent connection.
type session struct {
	c           *Core
	conn        net.Conn
	fr          *osp.Reader
	entry       *agentEntry
	launch      *launch
	credStamp   string // the key that admitted an agent started elsewhere, for Credentials.Holds
	id          string
	seq         uint64 // the order in which the Core admitted it among all sessions
	agentID     string
	version     string
	uid, pid    int64
	connectedAt time.Time

	w *osp.Writer

	sem    chan struct{} // in-flight slots
	queued atomic.Int32  // calls waiting for a slot, or for the agent's first registration

	// registered is closed once the agent's first agent.tools.register is answered; until
	// then, or until registerBy (real clock) passes, a call to a tool the session lacks waits
	// (see Core.awaitTool).
	registered     chan struct{}
	registeredOnce sync.Once
	registerBy     time.Time

	mu          sync.Mutex
	tools       map[string]*tool
	calls       map[string]*call
	recent      map[string]uint8
	recentRing  []string
	recentNext  int
	lastBeat    time.Time // real clock, for liveness
	beat        osp.Heartbeat
	beatAt      time.Time // Config.Now, for reporting
	beatLost    bool
	blocked     bool      // the reader waits for a slow caller to take a chunk
	unblockedAt time.Time // when it last stopped waiting
	protoErrors int

	// The read role: one goroutine at a time reads the agent's frames and dispatches them.
	// A caller waiting for its result takes the role when it is free (see session.lead), so
	// that the frame that wakes it is its own read rather than another goroutine's hand-off;
	// run takes it back when it stays free (see idleSoon).
	lead      chan struct{} // holds the role's token while no goroutine has it
	leader    *call         // the call whose caller has the role, if one has; only the role's holder touches it
	waiters   atomic.Int32  // callers waiting for an outcome who may take the role
	streamers atomic.Int32  // callers waiting for an outcome who may not (they stream)
	resume    chan struct{} // gives the token to run
	idleTimer *time.Timer
	idleArmed atomic.Bool
	freeSince atomic.Int64 // when the role was last freed, in Unix nanoseconds

	done      chan struct{}
	gone      chan struct{} // closed once close has finished
	endOnce   sync.Once
	closeOnce sync.Once
	closeCode string // why calls in flight fail: CodeDisconnected or CodeShuttingDown
}

// idleReadDelay is how long the read role may stay free before run takes it back. Calls
// that follow each other closely pass the role from one caller to the next; when they stop,
// the agent's heartbeats, goodbye or end are read at most this much later.
const idleReadDelay = time.Millisecond

// errInterrupted reports a read cut short by a caller that stopped waiting; nothing is lost.
var errInterrupted = errors.New("read interrupted")

func newSession(c *Core, conn net.Conn, fr *osp.Reader, e *agentEntry, l *launch, hello osp.Hello, uid, pid int64) *session {
	version := hello.AgentVersion
	if len(version) > 64 {
		version = version[:64]
	}
	s := &session{
		c:           c,
		conn:        conn,
		fr:          fr,
		entry:       e,
		launch:      l,
		id:          c.newID(),
		seq:         c.admitted.Add(1),
		agentID:     e.spec.ID,
		version:     safeRef(version),
		uid:         uid,
		pid:         pid,
		connectedAt: c.cfg.Now(),
		w:           osp.NewWriter(conn, c.cfg.MaxFrameBytes, c.cfg.WriteTimeout),
		sem:         make(chan struct{}, c.cfg.MaxInFlight),
		registered:  make(chan struct{}),
		registerBy:  time.Now().Add(c.cfg.RegisterWait),
		tools:       make(map[string]*tool),
		calls:       make(map[string]*call),
		recent:      make(map[string]uint8),
		recentRing:  make([]string, recentCalls),
		lastBeat:    time.Now(),
		lead:        make(chan struct{}, 1),
		resume:      make(chan struct{}, 1),
		done:        make(chan struct{}),
		gone:        make(chan struct{}),
	}
	s.idleTimer = time.AfterFunc(time.Hour, s.idleFire)
	s.idleTimer.Stop()
	return s
}

// run reads the agent's messages until the connection ends. It holds the read role at first,
// gives it to callers while they wait for results, and takes it back when it stays free.
func (s *session) run() {
	go s.watchdog()
	for {
		if err := s.readOne(); err != nil && err != errInterrupted {
			return
		}
		if s.waiters.Load() == 0 {
			continue
		}
		s.release()
		select {
		case <-s.resume:
		case <-s.gone:
			return
		}
	}
}

// release gives up the read role: a waiting caller takes it, or run does soon; at once if a
// streaming call needs a reader.
func (s *session) release() {
	s.leader = nil
	if s.streamers.Load() > 0 {
		s.resume <- struct{}{} // never blocks: there is one token
		return
	}
	s.freeSince.Store(time.Now().UnixNano())
	s.lead <- struct{}{}
	s.idleSoon(idleReadDelay)
}

// idleSoon makes sure the role goes back to run if it stays free for idleReadDelay. Calls
// that follow each other closely arm the timer once per delay, not once per call.
func (s *session) idleSoon(d time.Duration) {
	if s.idleArmed.CompareAndSwap(false, true) {
		s.idleTimer.Reset(d)
	}
}

// idleFire gives the read role to run if it has been free for idleReadDelay. The timer may
// find the role freed only lately: then it waits for the rest.
func (s *session) idleFire() {
	s.idleArmed.Store(false) // first: a release from now on arms the timer again
	if s.closed() {
		return
	}
	select {
	case <-s.lead:
	default:
		return // a caller reads
	}
	if left := idleReadDelay - time.Duration(time.Now().UnixNano()-s.freeSince.Load()); left > 0 {
		s.lead <- struct{}{}
		s.idleSoon(left)
		return
	}
	s.resume <- struct{}{}
}

// interruptRead makes the read in progress, if any, return errInterrupted at once.
func (s *session) interruptRead() { s.conn.SetReadDeadline(time.Unix(1, 0)) }

// readOne reads and dispatches one frame; the caller holds the read role. An error other than
// errInterrupted means the session has closed.
func (s *session) readOne() error {
	frame, err := s.fr.ReadFrame()
	switch {
	case err == nil:
	case errors.Is(err, osp.ErrEmptyFrame):
		// The framing is intact: the length said zero and nothing followed.
		s.reject("", osp.Errorf(osp.CodeInvalidFrame, "empty frame"))
		return nil
	case errors.Is(err, os.ErrDeadlineExceeded) && !s.closed():
		// A caller that led stopped waiting; the frame in progress is kept.
		s.conn.SetReadDeadline(time.Time{})
		return errInterrupted
	default:
		var tl *osp.FrameTooLargeError
		if errors.As(err, &tl) {
			s.c.audit(AuditEvent{Event: AuditFrameTooLarge, Agent: s.agentID, Session: s.id, PeerUID: s.uid, PeerPID: s.pid, Size: int64(tl.Size)})
			s.goodbye("frame_too_large")
		}
		s.close(CodeDisconnected)
		return err
	}
	env, err := osp.Decode(frame)
	if err != nil {
		s.reject("", err.(*osp.Error))
		return nil
	}
	s.dispatch(env)
	return nil
}

func (s *session) dispatch(env *osp.Envelope) {
	switch env.Type {
	case osp.TypeHeartbeat:
		s.heartbeat(env)
	case osp.TypeToolStream:
		s.stream(env)
	case osp.TypeToolResult:
		s.result(env)
	case osp.TypeCancelAck:
		var p osp.CancelAck
		if err := env.DecodePayload(&p); err != nil {
			s.reject(env.ID, err.(*osp.Error))
		}
	case osp.TypeToolsRegister:
		s.register(env)
	case osp.TypeToolsUnregister:
		s.unregister(env)
	case osp.TypeAgentUpdate:
		s.update(env)
	case osp.TypePong:
	case osp.TypeHello:
		s.reject(env.ID, osp.Errorf(osp.CodeUnexpectedMessage, "agent.hello after the handshake"))
	default:
		s.reject(env.ID, osp.Errorf(osp.CodeUnknownType, "unknown message type"))
	}
}

// reject answers a message the Core cannot accept with core.error, and disconnects an agent
// that keeps sending such messages.
func (s *session) reject(inReplyTo string, e *osp.Error) {
	s.mu.Lock()
	s.protoErrors++
	n := s.protoErrors
	s.mu.Unlock()
	s.c.audit(AuditEvent{Event: AuditProtocolError, Agent: s.agentID, Session: s.id, PeerUID: s.uid, PeerPID: s.pid, Reason: e.Code})
	h := s.header(osp.TypeError)
	h.InReplyTo = safeRef(inReplyTo)
	h.Error = &osp.Error{Code: e.Code, Message: e.Message, Where: "core.session"}
	s.send(&h, nil)
	if n >= maxProtocolErrors {
		s.goodbye(osp.CodeTooManyErrors)
	}
}

func (s *session) header(typ string) osp.Header {
	return osp.Header{V: osp.Version, Type: typ, ID: s.c.newID(), TS: osp.Timestamp(s.c.cfg.Now())}
}

// send writes one message. Messages sent at once by many goroutines go out in few system
// calls (see osp.Writer).
func (s *session) send(h *osp.Header, p any) error { return s.sendWith(h, p, nil) }

// sendWith is send with a hook that runs once the message's turn to be written has come:
// whatever it makes visible to other senders cannot overtake the message.
func (s *session) sendWith(h *osp.Header, p any, hook func()) error {
	err := s.w.WriteEncoded(func(b []byte) ([]byte, error) { return osp.AppendMarshal(b, h, p) }, hook)
	if err != nil {
		if tl := (*osp.FrameTooLargeError)(nil); !errors.As(err, &tl) && s.w.Err() != nil {
			go s.close(CodeDisconnected)
		}
	}
	return err
}

// goodbye tells the agent the Core is closing the connection, and closes it. The calls in
// flight fail first, so that what the agent answers to the goodbye does not count.
func (s *session) goodbye(reason string) {
	if s.closed() {
		return
	}
	code := CodeDisconnected
	if reason == "shutting_down" {
		code = CodeShuttingDown
	}
	s.end(code)
	h := s.header(osp.TypeGoodbye)
	s.send(&h, osp.Goodbye{Reason: reason})
	s.w.Sync()
	s.close(code)
}

// drainThenClose waits, without blocking its caller, for the session's calls to finish or
// ctx to end, and then says goodbye.
func (s *session) drainThenClose(ctx context.Context, reason string) {
	go func() {
		t := time.NewTicker(10 * time.Millisecond)
		defer t.Stop()
		for s.inFlight() > 0 {
			select {
			case <-t.C:
			case <-ctx.Done():
				s.goodbye(reason)
				return
			case <-s.done:
				return
			}
		}
		s.goodbye(reason)
	}()
}

func (s *session) inFlight() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.calls)
}

// end fails the calls in flight with code (their callers watch s.done) and stops taking the
// agent's messages; the connection stays open for a goodbye.
func (s *session) end(code string) {
	s.endOnce.Do(func() {
		s.mu.Lock()
		s.closeCode = code
		s.calls = map[string]*call{}
		s.mu.Unlock()
		close(s.done)
	})
}

// close ends the session and its connection.
func (s *session) close(code string) {
	s.closeOnce.Do(func() {
		s.end(code)
		s.conn.Close()
		s.idleTimer.Stop()
		s.c.detach(s)
		if s.launch != nil {
			s.launch.sessionEnded()
		}
		s.c.audit(AuditEvent{Event: AuditAgentDisconnected, Agent: s.agentID, Session: s.id, PeerUID: s.uid, PeerPID: s.pid})
		close(s.gone)
	})
}

// lost is the error of a call cut off by the end of the session.
func (s *session) lost() *Error {
	s.mu.Lock()
	code := s.closeCode
	s.mu.Unlock()
	if code == CodeShuttingDown {
		return &Error{Code: CodeShuttingDown, Message: "the gateway is shutting down", Retryable: true, Where: "core"}
	}
	return disconnected()
}

func (s *session) closed() bool {
	select {
	case <-s.done:
		return true
	default:
		return false
	}
}

// watchdog marks the agent unhealthy when heartbeats stop, and disconnects it when they stay
// away twice as long.
func (s *session) watchdog() {
	limit := s.c.cfg.HeartbeatInterval * time.Duration(s.c.cfg.MissedHeartbeats)
	t := time.NewTicker(max(s.c.cfg.HeartbeatInterval/2, 5*time.Millisecond))
	defer t.Stop()
	for {
		select {
		case <-s.done:
			return
		case <-t.C:
		}
		if s.credentialRevoked() {
			s.c.audit(AuditEvent{Event: AuditUnauthorized, Agent: s.agentID, Session: s.id, PeerUID: s.uid, PeerPID: s.pid, Reason: "credential revoked"})
			s.goodbye("revoked")
			return
		}
		s.mu.Lock()
		if s.blocked {
			s.mu.Unlock()
			continue
		}
		last := s.lastBeat
		if s.unblockedAt.After(last) {
			last = s.unblockedAt
		}
		silent := time.Since(last)
		lost := !s.beatLost && silent > limit
		if lost {
			s.beatLost = true
		}
		s.mu.Unlock()
		switch {
		case silent > 2*limit:
			s.c.audit(AuditEvent{Event: AuditHeartbeatLost, Agent: s.agentID, Session: s.id, PeerUID: s.uid, PeerPID: s.pid, Reason: "disconnected"})
			s.goodbye("heartbeat_timeout")
			return
		case lost:
			s.c.audit(AuditEvent{Event: AuditHeartbeatLost, Agent: s.agentID, Session: s.id, PeerUID: s.uid, PeerPID: s.pid, Reason: "marked unhealthy"})
			s.c.notify.changed(s.agentID)
		}
	}
}

func (s *session) heartbeat(env *osp.Envelope) {
	var p osp.Heartbeat
	if err := env.DecodePayload(&p); err != nil {
		s.reject(env.ID, err.(*osp.Error))
		return
	}
	if p.SessionID != s.id {
		s.reject(env.ID, osp.Errorf(osp.CodeInvalidMessage, "heartbeat names another session"))
		return
	}
	switch p.Status {
	case osp.HealthOK, osp.HealthDegraded, osp.HealthUnhealthy:
	default:
		s.reject(env.ID, osp.Errorf(osp.CodeInvalidMessage, "heartbeat status must be ok, degraded or unhealthy"))
		return
	}
	if len(p.Details) > maxDetailsBytes {
		p.Details = nil
	}
	s.mu.Lock()
	wasHealthy := s.healthyLocked()
	prevStatus := s.beat.Status
	s.lastBeat = time.Now()
	s.beatAt = s.c.cfg.Now()
	s.beatLost = false
	s.beat = p
	changed := wasHealthy != s.healthyLocked() || prevStatus != p.Status
	s.mu.Unlock()
	if changed {
		s.c.notify.changed(s.agentID)
	}
}

func (s *session) healthyLocked() bool {
	return !s.beatLost && s.beat.Status != osp.HealthUnhealthy
}

// fill copies the session's state into a.
func (s *session) fill(a *AgentInfo) {
	s.mu.Lock()
	defer s.mu.Unlock()
	a.Connected = !s.closed()
	a.Healthy = a.Connected && s.healthyLocked()
	switch {
	case !a.Connected:
		a.Status = StatusOffline
	case !a.Healthy:
		a.Status = StatusUnhealthy
	case s.beat.Status == osp.HealthDegraded:
		a.Status = StatusDegraded
	default:
		a.Status = StatusOK
	}
	a.SessionID = s.id
	a.Version = s.version
	a.ConnectedAt = s.connectedAt
	a.LastHeartbeat = s.beatAt
	a.Uptime = time.Duration(s.beat.UptimeMS) * time.Millisecond
	a.Details = append(json.RawMessage(nil), s.beat.Details...)
	a.InFlight = len(s.sem)
	a.Queued = int(s.queued.Load())
	a.Load = float64(a.InFlight) / float64(cap(s.sem))
	a.Tools = make([]ToolInfo, 0, len(s.tools))
	for _, t := range s.tools {
		a.Tools = append(a.Tools, t.info)
	}
	sort.Slice(a.Tools, func(i, j int) bool { return a.Tools[i].Name < a.Tools[j].Name })
}

func cutPrefix(s, prefix string) (string, bool) {
	if len(s) >= len(prefix) && s[:len(prefix)] == prefix {
		return s[len(prefix):], true
	}
	return s, false
}
