package localbridge

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
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
