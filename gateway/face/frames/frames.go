// Package frames is the framing layer the stream faces share (WebSocket
// and gRPC streams): a connection's envelopes, read in order until its
// handshake makes a session and pipelined after, each handed to the
// pipeline and its answer written back; the sessions made on a connection,
// which end with it; the connections that have yet to make one, ended when
// their time is up; and the envelope buffers the faces recycle.
package frames

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/moltgate/moltgate/gateway/pipeline"
	"github.com/moltgate/moltgate/handshake"
	"github.com/moltgate/moltgate/internal/workers"
)

// End says why a stream connection's loop ended.
type End int

const (
	EndPeer     End = iota // the peer closed or broke the connection
	EndShutdown            // the gateway is shutting down
	EndWrite               // an answer could not be written
	// EndStalled: an answer waited the write timeout for the peer to read
	// (ErrWriteStalled, the cause of the connection's context). The
	// writes blocked on the peer fail only once the face gives the
	// connection up, so the connection is finished after it returns.
	EndStalled
	// EndPolicy: the peer broke a limit of the connection (recv failed
	// with ErrPolicy).
	EndPolicy
	// EndNoSession: the connection made no session within the handshake
	// timeout, so nothing sent on it was acted on: what its peer sent
	// after its own end of the handshake may be sent again on a new one.
	EndNoSession
)

// ErrPolicy is what a face's recv fails with, wrapped, when the peer broke
// a limit of its connection: the connection ends (EndPolicy), which a
// WebSocket closes as a policy violation (1008).
var ErrPolicy = errors.New("policy violation")

// ErrWriteStalled is the error of a write to a stream that waited the
// write timeout for the other end to read; a face cancels the
// connection's context with it as the cause.
var ErrWriteStalled = errors.New("the other end stopped reading")

// WorkerLinger is how long a connection's worker goroutine waits for the
// next envelope before it exits (see package workers).
const WorkerLinger = 2 * time.Second

// InFlight bounds the messages of one connection being handled at once;
// past it the face stops reading, which pushes back on the sender through
// TCP.
const InFlight = 256

// Handler takes one envelope through the pipeline. emit, if not nil,
// receives the envelopes of a streamed reply before the final answer.
type Handler interface {
	Handle(ctx context.Context, o pipeline.Origin, body []byte, emit func([]byte) error) pipeline.Answer
}

// Sessions ends the sessions made on a connection once it ends.
type Sessions interface {
	Remove(id string)
}

// Config is what Conns need. Every field is required.
type Config struct {
	Handler  Handler
	Sessions Sessions
	Log      *slog.Logger
	// HandshakeTimeout is how long a new connection has to make a
	// session; it is read as each connection starts.
	HandshakeTimeout func() time.Duration
}

// Conns are the stream connections being served, with the sessions made
// on them.
type Conns struct {
	cfg Config
	// bound maps the id of each session made on a connection to that
	// connection (*frameConn).
	bound sync.Map
	// handshakes are the connections yet to make a session.
	handshakes pendingHandshakes
}

// New makes the connections' room.
func New(cfg Config) *Conns { return &Conns{cfg: cfg} }

// Load returns the connection a session was made on, if it was made on
// one still served: the pipeline refuses the session anywhere else.
func (c *Conns) Load(session any) (conn any, ok bool) { return c.bound.Load(session) }

// Sweep ends the connections whose time to make a session is up at now.
func (c *Conns) Sweep(now time.Time) { c.handshakes.sweep(now) }

// Serve runs the pipeline over one stream connection (a WebSocket or
// a gRPC stream): recv returns the next envelope, send writes one (it must
// be safe for concurrent use). Until the connection's handshake completes,
// envelopes are handled in order, so that the first message in the session
// cannot overtake the last of the handshake; after that they are pipelined,
// wsInFlight at a time, beyond which reading stops and the sender is pushed
// back. On shutdown it stops taking envelopes and lets those in flight
// finish and be answered. Sessions made on the connection end with it. ctx
// is the connection's; Serve cancels it when the peer is gone. quitting is
// the face's: it ends when the face shuts down, and the connection then
// stops taking envelopes and answers those it took (EndShutdown).
//
// With interrupt, which makes a recv in progress (and every later one)
// fail at once, the connection is read on the calling goroutine, which
// shutdown interrupts: an idle WebSocket then holds one goroutine, not two.
// Without it (gRPC streams, whose reads cannot be interrupted) reading has
// a goroutine of its own.
func (c *Conns) Serve(ctx, quitting context.Context, o *pipeline.Origin, recv func() ([]byte, error), send func([]byte) error, interrupt func()) End {
	// One allocation holds the connection's state: an idle WebSocket costs
	// what it holds, and closures over each variable cost more.
	fc := &frameConn{c: c, origin: *o, recv: recv, sem: make(chan struct{}, InFlight)}
	fc.send = func(b []byte) error {
		err := send(b)
		if err != nil {
			fc.writeFailed(err)
		}
		return err
	}
	fc.ctx, fc.cancel = context.WithCancel(ctx)
	fc.workers = workers.New(fc.ctx.Done(), WorkerLinger, fc.work)
	fc.origin.OnSession = fc.sessionMade
	fc.origin.Conn = fc
	// Refusals of what cannot be read are signed once they are many.
	fc.origin.Unread = &pipeline.UnreadRefusals{}
	c.expectHandshake(fc)
	end := EndPeer
	defer func() {
		if end == EndStalled {
			go fc.finish(end)
			return
		}
		fc.finish(end)
	}()

	if interrupt != nil {
		var shutdown atomic.Bool
		defer context.AfterFunc(quitting, func() { shutdown.Store(true); interrupt() })()
		defer context.AfterFunc(fc.ctx, interrupt)() // a failed write ends reading
		end = fc.read()
		switch {
		case shutdown.Load():
			end = EndShutdown
		case fc.late.Load():
			end = EndNoSession
		}
		return end
	}
	// Envelopes are read and dispatched on a goroutine of their own, so
	// that shutdown can stop taking them while the read blocks.
	readEnd := make(chan End, 1)
	go func() { readEnd <- fc.read() }()
	select {
	case end = <-readEnd:
	case <-fc.ctx.Done():
		if fc.late.Load() {
			end = EndNoSession
		}
	case <-quitting.Done():
		end = EndShutdown
	}
	if errors.Is(context.Cause(ctx), ErrWriteStalled) {
		end = EndStalled
		fc.warn("peer stopped reading its stream: the stream is ended", nil)
	}
	return end
}

// frameConn is one stream connection being served.
type frameConn struct {
	c      *Conns
	origin pipeline.Origin
	recv   func() ([]byte, error)
	send   func([]byte) error
	ctx    context.Context
	cancel context.CancelFunc

	sem     chan struct{} // a slot per envelope in flight
	workers *workers.Pool[[]byte]

	established atomic.Bool
	// Every envelope taken is counted in inFlight before it is handled;
	// once stopped is set, none is taken, so Wait sees them all.
	inFlight sync.WaitGroup
	stalled  atomic.Bool // a write timed out
	late     atomic.Bool // no session was made in time
	mu       sync.Mutex
	stopped  bool
	sessions []string // made on this connection
	org      string   // the peer's, once a session is made
}

// pendingHandshakes are the stream connections that have made no session
// yet, with the time by which they must. Before its handshake a connection
// only costs the gateway, and what it may send (pings, pongs, junk, one
// message sent slowly) would otherwise hold it and its slot under
// max_connections for ever. One sweep ends those that are late, rather than
// a timer per connection.
type pendingHandshakes struct {
	mu    sync.Mutex
	conns map[*frameConn]time.Time
}

// expectHandshake gives fc its time to make a session. It is a function of
// its own, never inlined, for the reason warn gives: Serve is on the stack
// of every idle connection's reader.
//
//go:noinline
func (c *Conns) expectHandshake(fc *frameConn) {
	c.handshakes.add(fc, time.Now().Add(c.cfg.HandshakeTimeout()))
}

func (p *pendingHandshakes) add(fc *frameConn, by time.Time) {
	p.mu.Lock()
	if p.conns == nil {
		p.conns = map[*frameConn]time.Time{}
	}
	p.conns[fc] = by
	p.mu.Unlock()
}

func (p *pendingHandshakes) remove(fc *frameConn) {
	p.mu.Lock()
	delete(p.conns, fc)
	p.mu.Unlock()
}

// sweep ends the connections whose time to handshake is up at now.
func (p *pendingHandshakes) sweep(now time.Time) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for fc, by := range p.conns {
		if now.After(by) {
			delete(p.conns, fc)
			fc.late.Store(true)
			fc.cancel()
		}
	}
}

// SweepEvery is how often late handshakes are looked for: a
// quarter of the handshake timeout, from 100 ms to a second.
func SweepEvery(timeout time.Duration) time.Duration {
	return min(max(timeout/4, 100*time.Millisecond), time.Second)
}

func (fc *frameConn) sessionMade(sess *handshake.Session) {
	fc.mu.Lock()
	fc.sessions = append(fc.sessions, sess.ID())
	fc.org = sess.Peer().Ref().Org
	fc.mu.Unlock()
	fc.c.bound.Store(sess.ID(), fc)
	fc.established.Store(true)
	fc.c.handshakes.remove(fc)
}

// peer is the organisation the connection's sessions are with, or "" if
// it has made none.
func (fc *frameConn) peer() string {
	fc.mu.Lock()
	defer fc.mu.Unlock()
	return fc.org
}

// take counts an envelope in, unless the connection stopped taking them.
func (fc *frameConn) take() bool {
	fc.mu.Lock()
	defer fc.mu.Unlock()
	if fc.stopped {
		return false
	}
	fc.inFlight.Add(1)
	return true
}

// finish stops taking envelopes, lets those taken finish (cancelled first
// unless the gateway is shutting down, when they are answered), and ends
// the connection's sessions.
func (fc *frameConn) finish(end End) {
	fc.c.handshakes.remove(fc)
	fc.mu.Lock()
	fc.stopped = true
	fc.mu.Unlock()
	if end != EndShutdown {
		fc.cancel() // nobody is left to answer
	}
	fc.inFlight.Wait()
	fc.cancel()
	fc.mu.Lock()
	for _, id := range fc.sessions {
		fc.c.cfg.Sessions.Remove(id)
		fc.c.bound.Delete(id)
	}
	fc.mu.Unlock()
}

// read reads and dispatches envelopes until reading fails.
func (fc *frameConn) read() End {
	for {
		in, err := fc.recv()
		if err != nil {
			return fc.readFailed(err)
		}
		if !fc.take() {
			return EndPeer
		}
		if !fc.established.Load() {
			// In order, and on a goroutine of its own: the handshake's
			// stack would stay with the reader for as long as the
			// connection lives.
			handled := make(chan bool, 1)
			go func() { handled <- fc.handle(in) }()
			ok := <-handled
			fc.inFlight.Done()
			if !ok {
				return EndWrite
			}
			continue
		}
		select {
		case fc.sem <- struct{}{}:
		case <-fc.ctx.Done():
			fc.inFlight.Done()
			return EndPeer
		}
		fc.workers.Go(in)
	}
}

// handle runs one envelope through the pipeline and sends the answer. It
// reports false if the answer could not be written.
func (fc *frameConn) handle(in []byte) bool {
	a := fc.c.cfg.Handler.Handle(fc.ctx, fc.origin, in, fc.send)
	// Both stream faces read in into a recycled buffer, and the pipeline
	// kept nothing of it: it decodes from copies.
	PutEnvelopeBuf(in)
	if a.Body == nil {
		return true
	}
	err := fc.send(a.Body)
	if fc.origin.Face == pipeline.FaceWS && !a.Shared {
		// The WebSocket writer queues a copy of what it is given; a gRPC
		// stream may still hold it after Send returns.
		PutEnvelopeBuf(a.Body) // an answer is the connection's alone
	}
	return err == nil
}

// readFailed says why reading ended with err: the peer broke a limit of
// the connection, or it is gone. Not inlined, for the reason warn gives.
//
//go:noinline
func (fc *frameConn) readFailed(err error) End {
	if errors.Is(err, ErrPolicy) {
		fc.warn("peer broke a limit of its stream connection: the connection is closed", err)
		return EndPolicy
	}
	return EndPeer
}

// writeFailed notes an answer that could not be written. One that waited
// the write timeout means the peer stopped reading, which the operator
// should hear of once; the writes that fail after it, and those on a
// connection the peer closed, are not news. (A gRPC stream's stall is told
// where the stream ends, see serveFrames.)
func (fc *frameConn) writeFailed(err error) {
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() && fc.stalled.CompareAndSwap(false, true) {
		fc.warn("peer stopped reading its stream: the connection is closed", nil)
	}
}

// warn logs msg about the connection, naming its peer, with err if not
// nil. It is a function of its own, never inlined, because serveFrames and
// read are on the stack of every idle connection's reader: the arguments of
// a log call would deepen it past a quarter of its 8 KiB, and the collector
// would no longer shrink it to 4 KiB (see docs/benchmarks.md, idle
// sessions).
//
//go:noinline
func (fc *frameConn) warn(msg string, err error) {
	args := []any{"peer", fc.peer(), "face", fc.origin.Face, "remote", fc.origin.Remote}
	if err != nil {
		args = append(args, "err", err.Error())
	}
	fc.c.cfg.Log.Warn(msg, args...)
}

// work handles an envelope taken in flight.
func (fc *frameConn) work(in []byte) {
	if !fc.handle(in) {
		fc.cancel()
	}
	<-fc.sem
	fc.inFlight.Done()
}
