package localbridge

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"regexp"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/moltgate/moltgate/internal/sockio"
	"github.com/moltgate/moltgate/localbridge/credential"
	"github.com/moltgate/moltgate/localbridge/osp"
)

// ErrServerClosed is returned by Serve after Shutdown or Close.
var ErrServerClosed = errors.New("localbridge: server closed")

// Config configures a Core. The zero value is usable: every field states its default.
type Config struct {
	// Logger receives the Core's log and, line by line, the stdout and stderr of the agents
	// it launches. Default: slog.Default().
	Logger *slog.Logger

	// Audit receives security-relevant events. Default: each is logged on Logger with the
	// message "audit".
	Audit func(AuditEvent)

	// MaxFrameBytes is the largest frame accepted from or sent to an agent once it is
	// authenticated; a larger one closes the connection. Default: 4 MiB.
	MaxFrameBytes int

	// MaxInFlight is how many calls one agent may have in flight. Default: 256.
	MaxInFlight int

	// MaxQueued is how many calls may wait for one agent's in-flight slots; further calls
	// fail at once with core.overloaded. Default: 1024.
	MaxQueued int

	// HeartbeatInterval is the heartbeat cadence agents are told in core.welcome.
	// Default: 5s.
	HeartbeatInterval time.Duration

	// MissedHeartbeats is how many intervals may pass without a heartbeat before the agent is
	// marked unhealthy and gets no more calls. After twice as many the Core says goodbye and
	// closes the connection, and a supervised agent is restarted. Default: 3.
	MissedHeartbeats int

	// HandshakeTimeout bounds the time between connecting and sending agent.hello.
	// Default: 10s.
	HandshakeTimeout time.Duration

	// WriteTimeout bounds one write to an agent; an agent that stops reading for longer is
	// disconnected. Default: 10s.
	WriteTimeout time.Duration

	// TokenTTL is how long the token of a launched agent stays valid. Default: 2m.
	TokenTTL time.Duration

	// CancelGrace is how long a cancelled or abandoned call keeps its in-flight slot while
	// the agent finishes it. Default: 30s.
	CancelGrace time.Duration

	// MaxOutputBytes bounds what one call may send back: its stream chunks and its output
	// together. A call that sends more fails with tool.output_too_large. Default: 64 MiB.
	MaxOutputBytes int64

	// MaxTools is how many tools one agent may register. Default: 1024.
	MaxTools int

	// MaxSchemaBytes bounds one tool's input or output schema. Default: 64 KiB.
	MaxSchemaBytes int

	// PeerUIDs lists the user ids whose processes may connect to the agent socket; the
	// check uses the socket's peer credentials. Default: the gateway's own uid only.
	PeerUIDs []uint32

	// Credentials admits agents started elsewhere with credentials of their own: an
	// operator's token for the first connection, then the key that connection is given in
	// core.welcome (see package localbridge/credential). A connection it admitted ends when
	// the credential is revoked. Default: nil, and only tokens of this Core are taken.
	Credentials Credentials

	// Approver decides calls that need a human's approval: tools that declare side_effects
	// or requires_directive, and every tool of an agent whose AgentSpec asks for approval.
	// Default: nil, and such calls are refused with core.approval_denied.
	Approver Approver

	// ApprovalTimeout bounds the wait for an approval; no answer in time is a refusal.
	// Default: 2m.
	ApprovalTimeout time.Duration

	// MaskArguments shapes the arguments an approver is shown, given the call's
	// classification. Default: MaskArguments.
	MaskArguments func(class string, args json.RawMessage) json.RawMessage

	// OnAgentChange is called after an agent connects or disconnects, changes its tools or
	// its health. Calls are made one at a time from one goroutine, with the agent's latest
	// state; changes that come faster are coalesced. Default: nil.
	OnAgentChange func(AgentInfo)

	// RestartMin and RestartMax bound the delay before a supervised agent that exited is
	// started again; the delay doubles from RestartMin with each quick exit.
	// Defaults: 500ms and 30s.
	RestartMin, RestartMax time.Duration

	// StopGrace is how long a supervised agent has to exit after SIGTERM before SIGKILL,
	// and how long it may live on after its connection ended. Default: 5s.
	StopGrace time.Duration

	// Environ returns the variables a launched agent inherits besides the three
	// OPENSENTIENCE_* ones. Default: PATH, HOME, LANG and TZ from the gateway's environment.
	Environ func() []string

	// TaskRetention is how long a finished task's status stays available. Default: 15m.
	TaskRetention time.Duration

	// MaxTasks bounds the tasks kept at once, running or retained. Default: 10000.
	MaxTasks int

	// CoreVersion is reported to agents in core.welcome. Default: "moltgate".
	CoreVersion string

	// Rand is the source of tokens and ids. Default: crypto/rand.Reader.
	Rand io.Reader

	// Now tells the time. Default: time.Now.
	Now func() time.Time
}

func (c Config) withDefaults() Config {
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	if c.Audit == nil {
		log := c.Logger
		c.Audit = func(e AuditEvent) { logAudit(log, e) }
	}
	if c.MaxFrameBytes <= 0 {
		c.MaxFrameBytes = osp.DefaultMaxFrameBytes
	}
	if c.MaxInFlight <= 0 {
		c.MaxInFlight = 256
	}
	if c.MaxQueued <= 0 {
		c.MaxQueued = 1024
	}
	if c.HeartbeatInterval <= 0 {
		c.HeartbeatInterval = 5 * time.Second
	}
	if c.MissedHeartbeats <= 0 {
		c.MissedHeartbeats = 3
	}
	if c.HandshakeTimeout <= 0 {
		c.HandshakeTimeout = 10 * time.Second
	}
	if c.WriteTimeout <= 0 {
		c.WriteTimeout = 10 * time.Second
	}
	if c.TokenTTL <= 0 {
		c.TokenTTL = 2 * time.Minute
	}
	if c.CancelGrace <= 0 {
		c.CancelGrace = 30 * time.Second
	}
	if c.MaxOutputBytes <= 0 {
		c.MaxOutputBytes = 64 << 20
	}
	if c.MaxTools <= 0 {
		c.MaxTools = 1024
	}
	if c.MaxSchemaBytes <= 0 {
		c.MaxSchemaBytes = 64 << 10
	}
	if len(c.PeerUIDs) == 0 {
		c.PeerUIDs = []uint32{uint32(os.Getuid())}
	}
	if c.ApprovalTimeout <= 0 {
		c.ApprovalTimeout = 2 * time.Minute
	}
	if c.MaskArguments == nil {
		c.MaskArguments = MaskArguments
	}
	if c.RestartMin <= 0 {
		c.RestartMin = 500 * time.Millisecond
	}
	if c.RestartMax <= 0 {
		c.RestartMax = 30 * time.Second
	}
	if c.RestartMax < c.RestartMin {
		c.RestartMax = c.RestartMin
	}
	if c.StopGrace <= 0 {
		c.StopGrace = 5 * time.Second
	}
	if c.Environ == nil {
		c.Environ = minimalEnviron
	}
	if c.TaskRetention <= 0 {
		c.TaskRetention = 15 * time.Minute
	}
	if c.MaxTasks <= 0 {
		c.MaxTasks = 10000
	}
	if c.CoreVersion == "" {
		c.CoreVersion = "moltgate"
	}
	if c.Rand == nil {
		c.Rand = rand.Reader
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	return c
}

// handshakeFrameBytes bounds frames before authentication: agent.hello is small, and an
// unauthenticated peer must not make the Core allocate megabytes.
const handshakeFrameBytes = 64 << 10

// maxProtocolErrors is how many unacceptable messages an agent may send before the Core says
// goodbye and disconnects it.
const maxProtocolErrors = 16

// agentIDPattern is the form of an agent id: it is also the agent's MoltSpeak name.
var agentIDPattern = regexp.MustCompile(`^[A-Za-z0-9_-]{1,128}$`)

// Core is the OpenSentience Core side of the gateway: it accepts agents on a Unix socket,
// launches and supervises the configured ones, holds their tool registrations and health, and
// makes tool calls into them.
type Core struct {
	cfg      Config
	log      *slog.Logger
	instance string
	ids      *osp.IDSource
	admitted atomic.Uint64 // sessions admitted so far: each session's seq
	tokens   tokenStore
	tasks    taskTable
	notify   *notifier

	mu         sync.Mutex
	agents     map[string]*agentEntry
	names      map[string]string // display names agents gave themselves (agent.update)
	listeners  map[net.Listener]struct{}
	pending    map[net.Conn]struct{} // connections still in the handshake
	socketPath string
	started    bool // supervisors run
	closed     bool
	done       chan struct{} // closed by Shutdown and Close
	life       context.Context
	endLife    context.CancelFunc
	wg         sync.WaitGroup
}

// NewCore returns a Core configured by cfg.
func NewCore(cfg Config) *Core {
	cfg = cfg.withDefaults()
	c := &Core{
		cfg:       cfg,
		log:       cfg.Logger,
		agents:    make(map[string]*agentEntry),
		listeners: make(map[net.Listener]struct{}),
		pending:   make(map[net.Conn]struct{}),
		done:      make(chan struct{}),
	}
	c.life, c.endLife = context.WithCancel(context.Background())
	ids, err := osp.NewIDSource(cfg.Rand)
	if err != nil {
		// Without randomness no id or token is safe to hand out.
		panic(fmt.Sprintf("localbridge: %v", err))
	}
	c.ids = ids
	c.instance = ids.New()
	c.notify = newNotifier(c)
	return c
}

// Serve accepts agent connections on l until Shutdown or Close, and then returns
// ErrServerClosed. l must be a Unix socket listener (see ListenUnix): its path is what
// launched agents are given. Agents added with a command are launched when Serve first runs.
func (c *Core) Serve(l net.Listener) error {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return ErrServerClosed
	}
	c.listeners[l] = struct{}{}
	if c.socketPath == "" {
		if a, ok := l.Addr().(*net.UnixAddr); ok {
			c.socketPath = a.Name
		}
	}
	if !c.started {
		c.started = true
		for _, e := range c.agents {
			c.startSupervisorLocked(e)
		}
	}
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		delete(c.listeners, l)
		c.mu.Unlock()
	}()

	backoff := acceptBackoff{log: c.log, face: "agent socket"}
	for {
		conn, err := l.Accept()
		if err != nil {
			if c.isClosed() {
				return ErrServerClosed
			}
			if backoff.retry(err) {
				continue
			}
			return fmt.Errorf("accept agent connection: %w", err)
		}
		backoff.accepted()
		conn = sockio.Wrap(conn)
		c.mu.Lock()
		if c.closed {
			c.mu.Unlock()
			conn.Close()
			return ErrServerClosed
		}
		c.pending[conn] = struct{}{}
		c.wg.Add(1)
		c.mu.Unlock()
		go func() {
			defer c.wg.Done()
			c.handleConn(conn)
		}()
	}
}

// SocketPath returns the path of the socket Serve listens on, or "" before Serve.
func (c *Core) SocketPath() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.socketPath
}

func (c *Core) isClosed() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.closed
}

// Shutdown stops accepting agents and new calls, stops the supervised agents and says goodbye
// to every connected one once its calls in flight have finished, or when ctx is done, whichever
// comes first. Calls still in flight then fail with core.shutting_down.
func (c *Core) Shutdown(ctx context.Context) error {
	sessions := c.stop()
	for _, s := range sessions {
		s.drainThenClose(ctx, "shutting_down")
	}
	waited := make(chan struct{})
	go func() { c.wg.Wait(); close(waited) }()
	select {
	case <-waited:
		return nil
	case <-ctx.Done():
		for _, s := range sessions {
			s.close(CodeShuttingDown)
		}
		return ctx.Err()
	}
}

// Close stops the Core at once: listeners and connections are closed, calls in flight fail
// with core.shutting_down and supervised agents are killed.
func (c *Core) Close() error {
	sessions := c.stop()
	c.mu.Lock()
	var sups []*supervisor
	for _, e := range c.agents {
		if e.sup != nil {
			sups = append(sups, e.sup)
		}
	}
	c.mu.Unlock()
	for _, sup := range sups {
		sup.stopOnce.Do(func() { close(sup.stopCh) })
	}
	for _, s := range sessions {
		s.goodbye("shutting_down")
	}
	c.wg.Wait()
	return nil
}

// stop marks the Core closed, closes listeners and half-open connections, tells supervisors
// to stop, and returns the live sessions.
func (c *Core) stop() []*session {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.closed {
		c.closed = true
		close(c.done)
		c.endLife()
	}
	for l := range c.listeners {
		l.Close()
	}
	for conn := range c.pending {
		conn.Close()
	}
	var out []*session
	for _, e := range c.agents {
		if e.sess != nil {
			out = append(out, e.sess)
		}
	}
	c.notify.stop()
	return out
}

// lifetime is a context that ends with the Core: background tasks run in it.
func (c *Core) lifetime() context.Context { return c.life }

func (c *Core) audit(e AuditEvent) {
	if e.Time.IsZero() {
		e.Time = c.cfg.Now()
	}
	c.cfg.Audit(e)
}

func (c *Core) newID() string { return c.ids.New() }

// handleConn runs one agent connection: peer check, handshake, then the session.
func (c *Core) handleConn(conn net.Conn) {
	uid, pid := int64(-1), int64(-1)
	unregister := func() {
		c.mu.Lock()
		delete(c.pending, conn)
		c.mu.Unlock()
	}
	uc, ok := unixSocket(conn)
	if !ok {
		c.audit(AuditEvent{Event: AuditPeerRejected, PeerUID: uid, PeerPID: pid, Reason: "not a unix socket connection"})
		unregister()
		conn.Close()
		return
	}
	u, p, err := peerCred(uc)
	if err != nil {
		c.audit(AuditEvent{Event: AuditPeerRejected, PeerUID: uid, PeerPID: pid, Reason: "peer credentials unavailable"})
		unregister()
		conn.Close()
		return
	}
	uid, pid = int64(u), int64(p)
	if !slices.Contains(c.cfg.PeerUIDs, u) {
		c.audit(AuditEvent{Event: AuditPeerRejected, PeerUID: uid, PeerPID: pid, Reason: "peer user id not allowed"})
		unregister()
		conn.Close()
		return
	}

	s, err := c.handshake(conn, uid, pid)
	unregister()
	if err != nil {
		conn.Close()
		return
	}
	s.run()
}

// handshake reads agent.hello, checks the token and answers core.welcome.
//
//	agent → core  agent.hello   {session_token, agent_id, agent_version, protocol{supported_versions}}
//	core → agent  core.welcome  {accepted_version, session_id, heartbeat_interval_ms, max_frame_bytes, server}
//	              or core.welcome with error {code: protocol.unauthorized | protocol.unsupported_version
//	              | protocol.invalid_message}, then close
func (c *Core) handshake(conn net.Conn, uid, pid int64) (*session, error) {
	conn.SetDeadline(time.Now().Add(c.cfg.HandshakeTimeout))
	fr := osp.NewReader(conn, handshakeFrameBytes)
	frame, err := fr.ReadFrame()
	if err != nil {
		var tl *osp.FrameTooLargeError
		if errors.As(err, &tl) {
			c.audit(AuditEvent{Event: AuditFrameTooLarge, PeerUID: uid, PeerPID: pid, Size: int64(tl.Size), Reason: "during handshake"})
		}
		return nil, err
	}
	refuse := func(inReplyTo string, e *osp.Error) error {
		h := osp.Header{V: osp.Version, Type: osp.TypeWelcome, ID: c.newID(), TS: osp.Timestamp(c.cfg.Now()), InReplyTo: safeRef(inReplyTo), Error: e}
		if b, err := osp.Marshal(&h, struct{}{}); err == nil {
			osp.WriteFrame(conn, b, 0)
		}
		return e
	}
	env, err := osp.Decode(frame)
	if err != nil {
		return nil, refuse("", err.(*osp.Error))
	}
	if env.Type != osp.TypeHello {
		return nil, refuse(env.ID, osp.Errorf(osp.CodeUnexpectedMessage, "the first message must be agent.hello"))
	}
	var hello osp.Hello
	if err := env.DecodePayload(&hello); err != nil {
		return nil, refuse(env.ID, err.(*osp.Error))
	}
	var adm credential.Admission
	claimed := hello.AgentID
	if !agentIDPattern.MatchString(claimed) {
		claimed = ""
	}
	g, ok := c.tokens.redeem(hello.SessionToken, c.cfg.Now())
	reason := ""
	switch {
	case hello.SessionToken == "":
		reason = "no token"
	case !ok && g.agentID != "":
		reason = "expired token"
	case !ok && c.cfg.Credentials != nil && claimed != "" && c.startedElsewhere(claimed):
		// Not one of this Core's own tokens: an operator's token or the agent's key.
		var err error
		if adm, err = c.cfg.Credentials.Admit(claimed, hello.SessionToken); err != nil {
			var re *credential.RefusedError
			if reason = "credential store unreadable"; errors.As(err, &re) {
				reason = re.Reason
			} else {
				c.log.Error("cannot read the credential store", "agent", claimed, "err", err.Error())
			}
		}
		g = grant{agentID: claimed}
	case !ok:
		reason = "unknown or used token"
	case g.agentID != hello.AgentID:
		reason = "token issued to another agent"
	}
	var entry *agentEntry
	if reason == "" {
		c.mu.Lock()
		entry = c.agents[g.agentID]
		c.mu.Unlock()
		if entry == nil {
			reason = "agent no longer configured"
		}
	}
	if reason != "" {
		c.audit(AuditEvent{Event: AuditUnauthorized, Agent: claimed, PeerUID: uid, PeerPID: pid, Reason: reason})
		return nil, refuse(env.ID, osp.Errorf(osp.CodeUnauthorized, "authentication failed"))
	}
	if !slices.Contains(hello.Protocol.SupportedVersions, osp.Version) {
		c.audit(AuditEvent{Event: AuditProtocolError, Agent: g.agentID, PeerUID: uid, PeerPID: pid, Reason: "no common protocol version"})
		return nil, refuse(env.ID, osp.Errorf(osp.CodeUnsupportedVersion, "this Core speaks protocol version %d only", osp.Version))
	}

	s := newSession(c, conn, fr, entry, g.launch, hello, uid, pid)
	s.credStamp = adm.Stamp
	welcome := osp.Welcome{
		AgentKey:            adm.Key,
		AcceptedVersion:     osp.Version,
		SessionID:           s.id,
		HeartbeatIntervalMS: c.cfg.HeartbeatInterval.Milliseconds(),
		MaxFrameBytes:       c.cfg.MaxFrameBytes,
		Server:              osp.ServerInfo{CoreVersion: c.cfg.CoreVersion, InstanceID: c.instance},
	}
	h := osp.Header{V: osp.Version, Type: osp.TypeWelcome, ID: c.newID(), TS: osp.Timestamp(c.cfg.Now()), InReplyTo: safeRef(env.ID)}
	b, err := osp.Marshal(&h, welcome)
	if err != nil {
		return nil, err
	}
	if err := osp.WriteFrame(conn, b, 0); err != nil {
		return nil, err
	}
	conn.SetDeadline(time.Time{})
	fr.SetLimit(c.cfg.MaxFrameBytes)
	switch c.attach(entry, s) {
	case attachClosed:
		s.goodbye("shutting_down")
		return nil, ErrServerClosed
	case attachStale:
		s.goodbye("replaced")
		return nil, errReplaced
	}
	c.audit(AuditEvent{Event: AuditAgentConnected, Agent: s.agentID, Session: s.id, PeerUID: uid, PeerPID: pid})
	return s, nil
}

// safeRef returns a peer-chosen message id fit to be echoed in in_reply_to: short printable
// ASCII only.
func safeRef(id string) string {
	if len(id) == 0 || len(id) > 128 {
		return ""
	}
	for i := 0; i < len(id); i++ {
		if id[i] < 0x20 || id[i] > 0x7e {
			return ""
		}
	}
	return id
}

// Config returns the Core's configuration, with defaults filled in.
func (c *Core) Config() Config { return c.cfg }

// startedElsewhere reports whether agentID is configured without a command: an agent the Core
// does not launch, which may hold a credential of its own.
func (c *Core) startedElsewhere(agentID string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.agents[agentID]
	return ok && len(e.spec.Command) == 0
}
