package agent

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
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	jsonv2 "github.com/go-json-experiment/json"

	"github.com/moltgate/moltgate/internal/sockio"
	"github.com/moltgate/moltgate/localbridge/osp"
)

// Version is the SDK's version, reported in agent.hello.
const Version = "0.1.0"

// Error codes a Handler commonly returns.
const (
	CodeInvalidInput = osp.CodeInvalidInput
	CodeFailed       = osp.CodeToolFailed
	CodeTimeout      = osp.CodeToolTimeout
	CodeCanceled     = osp.CodeToolCanceled
)

// Agent is a local agent: an id and a set of tools.
type Agent struct {
	// ID is the agent's id. Default: $OPENSENTIENCE_AGENT_ID.
	ID string

	// Version is the agent's semantic version. Default: "0.0.0".
	Version string

	// Logger receives the SDK's own messages. Default: slog.Default(), whose output on stderr
	// the gateway logs.
	Logger *slog.Logger

	// Health, if set, is asked at each heartbeat for the agent's status ("ok", "degraded" or
	// "unhealthy") and secret-free details. Default: always "ok".
	Health func() (status string, details map[string]any)

	// MaxConcurrent bounds the calls that run at once; more wait. Default: 256, the gateway's
	// own per-agent limit.
	MaxConcurrent int

	tools []Tool
}

// Tool is one tool of the agent.
type Tool struct {
	Name              string // dot-separated [A-Za-z0-9_-] labels, unique within the agent
	Description       string
	InputSchema       string // a JSON Schema the gateway validates input against; default {"type":"object"}
	OutputSchema      string // optional
	SideEffects       bool   // the tool changes something: the gateway asks a human first
	RequiresDirective bool   // the tool must be directive-backed: the gateway asks a human first
	Tags              []string
	Handler           Handler
}

// Handler runs one call. It returns the tool's output, which must marshal to a JSON object
// (anything else is wrapped as {"result": ...}), or an error: an *Error chooses the code the
// gateway sees; any other error is reported as tool.failed with its text, which must therefore
// hold nothing secret. ctx ends when the gateway cancels the call or its timeout passes.
type Handler func(ctx context.Context, call *Call) (any, error)

// Add adds a tool. Tools are registered when Run connects.
func (a *Agent) Add(t Tool) { a.tools = append(a.tools, t) }

// Error is a tool failure with a chosen code.
type Error struct {
	Code      string // e.g. CodeInvalidInput, or a code of the tool's own ("tool.not_enough_money")
	Message   string // safe to show: no secrets
	Retryable bool
}

func (e *Error) Error() string { return e.Code + ": " + e.Message }

// Errorf returns an *Error.
func Errorf(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// GoodbyeError is returned by Run when the gateway ended the connection for a reason other
// than shutting down.
type GoodbyeError struct {
	Reason     string
	RetryAfter time.Duration
}

func (e *GoodbyeError) Error() string { return "gateway said goodbye: " + e.Reason }

// RegistrationError is returned by Run when the gateway rejected tools.
type RegistrationError struct {
	Rejected []osp.Rejection
}

func (e *RegistrationError) Error() string {
	s := "gateway rejected tools:"
	for _, r := range e.Rejected {
		s += fmt.Sprintf(" %s (%s: %s)", r.ToolID, r.Error.Code, r.Error.Message)
	}
	return s
}

// ErrUnauthorized is returned by Run when the gateway refused the token.
var ErrUnauthorized = errors.New("gateway refused the session token")

// Run connects to the gateway named by the environment and serves calls until the gateway
// says goodbye, the connection ends or ctx ends. It removes the token from the environment so
// that programs the agent starts do not inherit it. Run returns nil after ctx ends or the
// gateway shuts down.
func (a *Agent) Run(ctx context.Context) error {
	path, token := os.Getenv("OPENSENTIENCE_SOCKET"), os.Getenv("OPENSENTIENCE_TOKEN")
	os.Unsetenv("OPENSENTIENCE_TOKEN")
	if path == "" || token == "" {
		return errors.New("agent: OPENSENTIENCE_SOCKET and OPENSENTIENCE_TOKEN must be set; agents are started by the gateway")
	}
	var d sockio.Dialer
	c, err := d.DialContext(ctx, "unix", path)
	if err != nil {
		return fmt.Errorf("connect to gateway: %w", err)
	}
	return a.Serve(ctx, c, token)
}

// Serve runs the agent over an established connection, authenticating with token. It closes
// conn when it returns.
func (a *Agent) Serve(ctx context.Context, conn net.Conn, token string) error {
	id := a.ID
	if id == "" {
		id = os.Getenv("OPENSENTIENCE_AGENT_ID")
	}
	if id == "" {
		conn.Close()
		return errors.New("agent: no agent id (set Agent.ID or OPENSENTIENCE_AGENT_ID)")
	}
	s := &session{
		a:       a,
		id:      id,
		conn:    conn,
		fr:      osp.NewReader(conn, osp.DefaultMaxFrameBytes),
		w:       osp.NewWriter(conn, osp.DefaultMaxFrameBytes, 0),
		log:     a.Logger,
		calls:   make(map[string]*Call),
		started: time.Now(),
	}
	if s.log == nil {
		s.log = slog.Default()
	}
	ids, err := osp.NewIDSource(rand.Reader)
	if err != nil {
		conn.Close()
		return err
	}
	s.ids = ids
	s.sem = make(chan struct{}, max(a.MaxConcurrent, 1))
	if a.MaxConcurrent <= 0 {
		s.sem = make(chan struct{}, 256)
	}
	s.idle = make(chan chan func(), cap(s.sem))
	s.lead = make(chan struct{}, 1)
	s.outcome = make(chan error, 1)
	s.slow = make([]atomic.Bool, len(a.tools))
	s.stopWorkers = make(chan struct{})
	defer close(s.stopWorkers)
	defer conn.Close()
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	defer stop()
	err = s.run(ctx, token)
	if ctx.Err() != nil {
		err = nil
	}
	s.cancelAll()
	s.wg.Wait()
	return err
}

// session is one connection to the gateway.
type session struct {
	a        *Agent
	id       string
	conn     net.Conn
	fr       *osp.Reader
	log      *slog.Logger
	started  time.Time
	welcome  osp.Welcome
	maxFrame int
	ids      *osp.IDSource

	registerID string // id of agent.tools.register, whose answer decides whether to go on

	w *osp.Writer

	sem         chan struct{}
	waiting     atomic.Int32
	wg          sync.WaitGroup
	idle        chan chan func() // idle workers' inboxes
	stopWorkers chan struct{}

	mu    sync.Mutex
	calls map[string]*Call

	// The read role (see read): one goroutine at a time reads the gateway's messages.
	ctx         context.Context
	lead        chan struct{} // holds the role's token while no goroutine has it
	outcome     chan error    // how the connection ended, from the goroutine that read last
	idleTimer   *time.Timer
	idleArmed   atomic.Bool
	freeSince   atomic.Int64  // when the role was last freed, in Unix nanoseconds
	slow        []atomic.Bool // per tool: a call outlasted idleReadDelay on the reading goroutine
	unknownSlow atomic.Bool
}

func (s *session) header(typ string) osp.Header {
	return osp.Header{V: osp.Version, Type: typ, ID: s.ids.New(), TS: osp.Timestamp(time.Now())}
}

// send writes one message; messages sent at once by many calls go out together.
func (s *session) send(h *osp.Header, p any) error {
	err := s.w.WriteEncoded(func(b []byte) ([]byte, error) { return osp.AppendMarshal(b, h, p) }, nil)
	if err != nil && s.w.Err() != nil {
		s.conn.Close()
	}
	return err
}

// run does the handshake and registration, then serves.
//
//	agent → core  agent.hello            {session_token, agent_id, agent_version, protocol, sdk}
//	core → agent  core.welcome           {accepted_version, session_id, heartbeat_interval_ms, max_frame_bytes}
//	agent → core  agent.tools.register   {tools}
//	core → agent  core.tools.registered  {registered, rejected}
func (s *session) run(ctx context.Context, token string) error {
	version := s.a.Version
	if version == "" {
		version = "0.0.0"
	}
	s.conn.SetDeadline(time.Now().Add(30 * time.Second))
	h := s.header(osp.TypeHello)
	if err := s.send(&h, osp.Hello{
		SessionToken: token,
		AgentID:      s.id,
		AgentVersion: version,
		Protocol:     osp.HelloProtocol{SupportedVersions: []int{osp.Version}, Capabilities: []string{"tools", "streaming", "cancellation"}},
		SDK:          &osp.SDKInfo{Name: "moltgate-go-agent", Version: Version},
	}); err != nil {
		return fmt.Errorf("send hello: %w", err)
	}
	env, err := s.next()
	if err != nil {
		return fmt.Errorf("read welcome: %w", err)
	}
	if env.Type != osp.TypeWelcome {
		return fmt.Errorf("handshake: expected core.welcome, got %s", env.Type)
	}
	if env.Error != nil {
		if env.Error.Code == osp.CodeUnauthorized {
			return ErrUnauthorized
		}
		return fmt.Errorf("handshake: %w", env.Error)
	}
	if err := env.DecodePayload(&s.welcome); err != nil {
		return fmt.Errorf("handshake: %w", err)
	}
	s.maxFrame = s.welcome.MaxFrameBytes
	s.fr.SetLimit(s.maxFrame)
	s.w.SetLimit(s.maxFrame)

	tools, err := s.toolList()
	if err != nil {
		return err
	}
	s.conn.SetDeadline(time.Time{})
	hbCtx, stopHB := context.WithCancel(ctx)
	defer stopHB()
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		s.heartbeats(hbCtx)
	}()
	h = s.header(osp.TypeToolsRegister)
	s.registerID = h.ID
	if err := s.send(&h, osp.ToolsRegister{Tools: tools, Replace: true}); err != nil {
		return fmt.Errorf("register tools: %w", err)
	}
	return s.serve(ctx)
}

func (s *session) next() (*osp.Envelope, error) {
	f, err := s.fr.ReadFrame()
	if err != nil {
		return nil, err
	}
	return osp.Decode(f)
}

func (s *session) toolList() ([]osp.Tool, error) {
	out := make([]osp.Tool, 0, len(s.a.tools))
	for _, t := range s.a.tools {
		if t.Handler == nil {
			return nil, fmt.Errorf("agent: tool %s has no handler", t.Name)
		}
		in := t.InputSchema
		if in == "" {
			in = `{"type":"object"}`
		}
		if !json.Valid([]byte(in)) {
			return nil, fmt.Errorf("agent: tool %s: input schema is not valid JSON", t.Name)
		}
		ot := osp.Tool{
			ToolID: s.id + "/" + t.Name, Name: t.Name, Description: t.Description,
			InputSchema: json.RawMessage(in), Capabilities: []string{"streaming", "cancellation"},
			SideEffects: t.SideEffects, RequiresDirective: t.RequiresDirective, Tags: t.Tags,
		}
		if t.OutputSchema != "" {
			if !json.Valid([]byte(t.OutputSchema)) {
				return nil, fmt.Errorf("agent: tool %s: output schema is not valid JSON", t.Name)
			}
			ot.OutputSchema = json.RawMessage(t.OutputSchema)
		}
		out = append(out, ot)
	}
	return out, nil
}

func (s *session) heartbeats(ctx context.Context) {
	iv := time.Duration(s.welcome.HeartbeatIntervalMS) * time.Millisecond
	if iv <= 0 {
		iv = 5 * time.Second
	}
	t := time.NewTicker(iv)
	defer t.Stop()
	for {
		status, details := "ok", map[string]any{}
		if s.a.Health != nil {
			status, details = s.a.Health()
			if details == nil {
				details = map[string]any{}
			}
		}
		details["queue_depth"] = s.waiting.Load()
		d, _ := json.Marshal(details)
		h := s.header(osp.TypeHeartbeat)
		if s.send(&h, osp.Heartbeat{
			SessionID:     s.welcome.SessionID,
			UptimeMS:      time.Since(s.started).Milliseconds(),
			InflightCalls: len(s.sem),
			Status:        status,
			Details:       d,
		}) != nil {
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// serve reads the gateway's messages until the connection ends, and returns how it ended.
func (s *session) serve(ctx context.Context) error {
	s.ctx = ctx
	s.idleTimer = time.AfterFunc(time.Hour, s.idleFire)
	s.idleTimer.Stop()
	defer s.idleTimer.Stop()
	s.read()
	return <-s.outcome
}

// idleReadDelay is how long the read role may stay free while a call runs on the goroutine
// that read it before another goroutine takes the role: a cancel or another call that comes
// in meanwhile is read at most this much later, and a tool whose call outlasts it has its
// later calls run on goroutines of their own.
const idleReadDelay = time.Millisecond

// release gives up the read role while the goroutine that read a call runs it.
func (s *session) release() {
	s.freeSince.Store(time.Now().UnixNano())
	s.lead <- struct{}{} // never blocks: there is one token
	if s.idleArmed.CompareAndSwap(false, true) {
		s.idleTimer.Reset(idleReadDelay)
	}
}

// idleFire takes the read role if it has been free for idleReadDelay. The timer is armed
// once per delay, not once per call, so it may find the role freed only lately: then it
// waits for the rest.
func (s *session) idleFire() {
	s.idleArmed.Store(false) // first: a release from now on arms the timer again
	select {
	case <-s.lead:
	default:
		return // the role was taken back
	}
	if left := idleReadDelay - time.Duration(time.Now().UnixNano()-s.freeSince.Load()); left > 0 {
		s.lead <- struct{}{}
		if s.idleArmed.CompareAndSwap(false, true) {
			s.idleTimer.Reset(left)
		}
		return
	}
	s.read()
}

// read reads and dispatches the gateway's messages while it holds the read role. A call that
// arrives when nothing else waits to be read runs on this goroutine, which saves a hand-off
// to another; the role is free meanwhile, and taken back after the call if no other
// goroutine took it. When the connection ends, the outcome goes to serve.
func (s *session) read() {
	ctx := s.ctx
	for {
		env, err := s.next()
		if err != nil {
			var pe *osp.Error
			if errors.As(err, &pe) {
				s.log.Warn("gateway sent a malformed message", "code", pe.Code)
				continue
			}
			if errors.Is(err, io.EOF) || errors.Is(err, net.ErrClosed) || ctx.Err() != nil {
				s.outcome <- nil
				return
			}
			s.outcome <- fmt.Errorf("read from gateway: %w", err)
			return
		}
		switch env.Type {
		case osp.TypeToolCall:
			run, slow := s.startCall(ctx, env)
			switch {
			case run == nil:
			case s.fr.Buffered() > 0:
				s.work(run)
			case slow.Load():
				// A call may have been slow by chance (the machine was busy): one that is
				// quick now lets the tool's calls run on the reading goroutine again.
				s.work(func() {
					start := time.Now()
					run()
					if time.Since(start) < idleReadDelay/2 {
						slow.Store(false)
					}
				})
			default:
				s.release()
				run()
				select {
				case <-s.lead:
				default:
					slow.Store(true)
					return
				}
			}
		case osp.TypeToolCancel:
			var p osp.ToolCancel
			if env.DecodePayload(&p) == nil {
				s.cancelCall(env, p)
			}
		case osp.TypeGoodbye:
			var p osp.Goodbye
			env.DecodePayload(&p)
			if p.Reason == "shutting_down" {
				s.outcome <- nil
			} else {
				s.outcome <- &GoodbyeError{Reason: p.Reason, RetryAfter: time.Duration(p.RetryAfterMS) * time.Millisecond}
			}
			return
		case osp.TypePing:
			h := s.header(osp.TypePong)
			h.InReplyTo = env.ID
			go s.send(&h, nil)
		case osp.TypeToolsRegistered:
			var reg osp.ToolsRegistered
			if env.DecodePayload(&reg) == nil && env.InReplyTo == s.registerID && len(reg.Rejected) > 0 {
				s.outcome <- &RegistrationError{Rejected: reg.Rejected}
				return
			}
		case osp.TypeError:
			if env.Error != nil && env.InReplyTo != "" && env.InReplyTo == s.registerID {
				s.outcome <- fmt.Errorf("register tools: %w", env.Error)
				return
			}
			if env.Error != nil {
				s.log.Warn("gateway reported a protocol error", "code", env.Error.Code, "message", env.Error.Message)
			}
		}
	}
}

func (s *session) cancelAll() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, c := range s.calls {
		c.cancel()
	}
}

func (s *session) cancelCall(env *osp.Envelope, p osp.ToolCancel) {
	s.mu.Lock()
	c := s.calls[p.CallID]
	s.mu.Unlock()
	if c != nil {
		c.canceled.Store(true)
		c.cancel()
	}
	h := s.header(osp.TypeCancelAck)
	h.InReplyTo, h.RequestID = env.ID, env.RequestID
	// Not from the reader: a write may wait on the gateway, which may be waiting on us.
	go s.send(&h, osp.CancelAck{CallID: p.CallID, Accepted: c != nil})
}

// startCall admits a call and returns the work of running it, and the flag that tells whether
// its tool has been slow; nil if the message is no call.
func (s *session) startCall(ctx context.Context, env *osp.Envelope) (func(), *atomic.Bool) {
	p, err := osp.PayloadOf[osp.ToolCall](env)
	if err != nil || p.CallID == "" {
		return nil, nil
	}
	name, ok := cut(p.ToolID, s.id+"/")
	var handler Handler
	slow := &s.unknownSlow
	if ok {
		for i, t := range s.a.tools {
			if t.Name == name {
				handler, slow = t.Handler, &s.slow[i]
				break
			}
		}
	}
	cctx, cancel := context.WithCancel(ctx)
	var deadline time.Time
	if p.TimeoutMS > 0 {
		deadline = time.Now().Add(time.Duration(p.TimeoutMS) * time.Millisecond)
		cctx, cancel = context.WithDeadline(ctx, deadline)
	}
	c := &Call{
		ID: p.CallID, Tool: name, Input: p.Input,
		RequestID: env.RequestID, CorrelationID: env.CorrelationID, IdempotencyKey: p.IdempotencyKey,
		Deadline: deadline, Context: p.Context,
		s: s, causationID: env.CausationID, cancel: cancel,
	}
	if p.Caller != nil {
		c.Caller = Caller{Type: p.Caller.Type, ID: p.Caller.ID}
	}
	s.mu.Lock()
	s.calls[c.ID] = c
	s.mu.Unlock()
	s.wg.Add(1)
	return func() {
		defer s.wg.Done()
		defer func() {
			s.mu.Lock()
			delete(s.calls, c.ID)
			s.mu.Unlock()
			cancel()
		}()
		if handler == nil {
			c.finish(time.Now(), nil, Errorf(osp.CodeToolNotFound, "no such tool"), cctx)
			return
		}
		select {
		case s.sem <- struct{}{}:
		default:
			s.waiting.Add(1)
			select {
			case s.sem <- struct{}{}:
				s.waiting.Add(-1)
			case <-cctx.Done():
				s.waiting.Add(-1)
				c.finish(time.Now(), nil, cctx.Err(), cctx)
				return
			}
		}
		defer func() { <-s.sem }()
		started := time.Now()
		out, err := c.invoke(cctx, handler)
		c.finish(started, out, err, cctx)
	}, slow
}

// work runs fn on an idle worker goroutine, or a new one. As many finished call goroutines
// as calls may run at once (MaxConcurrent) wait for the next call: reusing them spares each
// call a fresh goroutine whose stack must grow again, even when the gateway keeps its whole
// in-flight limit busy.
func (s *session) work(fn func()) {
	select {
	case w := <-s.idle:
		w <- fn
	default:
		go s.worker(make(chan func(), 1), fn)
	}
}

func (s *session) worker(in chan func(), fn func()) {
	for {
		fn()
		select {
		case s.idle <- in:
		default:
			return
		}
		select {
		case fn = <-in:
		case <-s.stopWorkers:
			return
		}
	}
}

func cut(s, prefix string) (string, bool) {
	if len(s) > len(prefix) && s[:len(prefix)] == prefix {
		return s[len(prefix):], true
	}
	return "", false
}

// Caller says who asked for a call, as the gateway reports it. It is information, never
// authority.
type Caller struct {
	Type string // "human", "agent" or "system"
	ID   string
}

// Call is one call of a tool.
type Call struct {
	ID             string
	Tool           string          // the tool's name
	Input          json.RawMessage // a JSON object the gateway has validated against the input schema
	RequestID      string
	CorrelationID  string
	IdempotencyKey string
	Caller         Caller
	Deadline       time.Time       // zero when the gateway set no timeout
	Context        json.RawMessage // non-secret metadata from the gateway, if any

	s           *session
	causationID string
	cancel      context.CancelFunc
	canceled    atomic.Bool
	smu         sync.Mutex
	seq         int64
	ended       bool
}

// Bind decodes the input into v, as encoding/json would, matching member names to fields
// without regard to case. A failure is an *Error with CodeInvalidInput, fit to be returned
// from the Handler as it is.
func (c *Call) Bind(v any) error {
	if err := jsonv2.Unmarshal(c.Input, v, jsonv2.MatchCaseInsensitiveNames(true)); err != nil {
		return Errorf(CodeInvalidInput, "the input does not fit the tool's parameters")
	}
	return nil
}

// Stream sends text on the stdout channel.
func (c *Call) Stream(text string) error { return c.Send(osp.ChannelStdout, text) }

// Status sends a progress note on the status channel.
func (c *Call) Status(text string) error { return c.Send(osp.ChannelStatus, text) }

// Log sends text on the log channel.
func (c *Call) Log(text string) error { return c.Send(osp.ChannelLog, text) }

// Send sends text on a channel: "stdout", "stderr", "log" or "status". It blocks until the
// chunk is written, so a slow reader slows the tool down.
func (c *Call) Send(channel, text string) error {
	return c.chunk(channel, osp.StreamData{Text: text})
}

// Partial sends a partial result, which must marshal to a JSON object.
func (c *Call) Partial(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("partial result: %w", err)
	}
	if len(b) == 0 || b[0] != '{' {
		return errors.New("partial result: not a JSON object")
	}
	return c.chunk(osp.ChannelPartialResult, osp.StreamData{JSON: b})
}

// chunk sends one agent.tool.stream message. Seq numbers are assigned under the lock that
// also orders the writes, so they reach the gateway in increasing order.
func (c *Call) chunk(channel string, d osp.StreamData) error {
	if c.canceled.Load() {
		return context.Canceled
	}
	c.smu.Lock()
	defer c.smu.Unlock()
	if c.ended {
		return errors.New("agent: the call has ended")
	}
	c.seq++
	h := c.header(osp.TypeToolStream)
	return c.s.send(&h, osp.ToolStream{CallID: c.ID, Seq: c.seq, Channel: channel, Data: d})
}

func (c *Call) header(typ string) osp.Header {
	h := c.s.header(typ)
	h.RequestID, h.CorrelationID, h.CausationID = c.RequestID, c.CorrelationID, c.causationID
	return h
}

// invoke runs the handler, turning a panic into a failure.
func (c *Call) invoke(ctx context.Context, h Handler) (out any, err error) {
	defer func() {
		if r := recover(); r != nil {
			c.s.log.Error("tool panicked", "tool", c.Tool, "panic", fmt.Sprint(r), "stack", string(debug.Stack()))
			out, err = nil, &Error{Code: osp.CodeToolInternal, Message: "the tool failed unexpectedly"}
		}
	}()
	return h(ctx, c)
}

// finish sends the call's one agent.tool.result.
func (c *Call) finish(started time.Time, out any, err error, ctx context.Context) {
	c.smu.Lock()
	defer c.smu.Unlock()
	if c.ended {
		return
	}
	c.ended = true
	r := osp.ToolResult{CallID: c.ID, StartedAt: osp.Timestamp(started), FinishedAt: osp.Timestamp(time.Now())}
	switch {
	case err == nil:
		b, merr := marshalOutput(out)
		if merr != nil {
			r.Status, r.Error = osp.StatusFailed, &osp.Error{Code: osp.CodeOutputMalformed, Message: "the tool's output cannot be encoded"}
		} else if c.s.maxFrame > 0 && len(b) > c.s.maxFrame-4096 {
			r.Status, r.Error = osp.StatusFailed, &osp.Error{Code: osp.CodeOutputTooLarge, Message: "the tool's output exceeds the frame limit"}
		} else {
			r.Status, r.Output = osp.StatusSucceeded, b
		}
	case c.canceled.Load() || (errors.Is(err, context.Canceled) && ctx.Err() != nil):
		r.Status, r.Error = osp.StatusCanceled, &osp.Error{Code: osp.CodeToolCanceled, Message: "the call was cancelled"}
	case errors.Is(err, context.DeadlineExceeded) || errors.Is(ctx.Err(), context.DeadlineExceeded):
		r.Status, r.Error = osp.StatusFailed, &osp.Error{Code: osp.CodeToolTimeout, Message: "the call's timeout passed"}
	default:
		r.Status = osp.StatusFailed
		var e *Error
		if errors.As(err, &e) {
			r.Error = &osp.Error{Code: e.Code, Message: e.Message, Retryable: e.Retryable}
		} else {
			msg := err.Error()
			if len(msg) > 1024 {
				msg = msg[:1024]
			}
			r.Error = &osp.Error{Code: osp.CodeToolFailed, Message: msg}
		}
	}
	h := c.header(osp.TypeToolResult)
	c.s.send(&h, r)
}

func marshalOutput(v any) (json.RawMessage, error) {
	if v == nil {
		return json.RawMessage("{}"), nil
	}
	if raw, ok := v.(json.RawMessage); ok && json.Valid(raw) && len(raw) > 0 && raw[0] == '{' {
		return raw, nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	if len(b) > 0 && b[0] == '{' {
		return b, nil
	}
	return json.Marshal(map[string]json.RawMessage{"result": b})
}
