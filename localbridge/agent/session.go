package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/moltgate/moltgate/localbridge/osp"
)

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
	if s.welcome.AgentKey != "" {
		if err := s.a.keepKey(s.welcome.AgentKey); err != nil {
			// The key is good for this connection still; a restart would need a new token.
			s.log.Error("cannot keep the agent key; after a restart the agent needs a new token", "err", err.Error())
		}
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
		CausationID: env.CausationID, s: s, cancel: cancel,
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
