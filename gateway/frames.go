package gateway

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/moltgate/moltgate/handshake"
)

// frameEnd says why a stream connection's loop ended.
type frameEnd int

const (
	endPeer     frameEnd = iota // the peer closed or broke the connection
	endShutdown                 // the gateway is shutting down
	endWrite                    // an answer could not be written
)

// workerLinger is how long a connection's worker goroutine waits for the
// next envelope before it exits. Reusing a worker keeps the stack it has
// grown on the pipeline: a fresh goroutine per envelope grew its stack
// every time, 4 to 5 % of a gateway's CPU under load. Idle connections hold
// no workers.
const workerLinger = 2 * time.Second

// serveFrames runs the pipeline over one stream connection (a WebSocket or
// a gRPC stream): recv returns the next envelope, send writes one (it must
// be safe for concurrent use). Until the connection's handshake completes,
// envelopes are handled in order, so that the first message in the session
// cannot overtake the last of the handshake; after that they are pipelined,
// wsInFlight at a time, beyond which reading stops and the sender is pushed
// back. On shutdown it stops taking envelopes and lets those in flight
// finish and be answered. Sessions made on the connection end with it. ctx
// is the connection's; serveFrames cancels it when the peer is gone.
func (s *Server) serveFrames(ctx context.Context, o origin, recv func() ([]byte, error), send func([]byte) error) frameEnd {
	ctx, cancel := context.WithCancel(ctx)
	var mu sync.Mutex
	var mine []string
	var established atomic.Bool
	o.onSession = func(sess *handshake.Session) {
		mu.Lock()
		mine = append(mine, sess.ID())
		mu.Unlock()
		established.Store(true)
	}

	// Every envelope taken is counted in inFlight before it is handled;
	// once stopped is set, none is taken, so Wait sees them all.
	var (
		inFlight sync.WaitGroup
		takeMu   sync.Mutex
		stopped  bool
	)
	take := func() bool {
		takeMu.Lock()
		defer takeMu.Unlock()
		if stopped {
			return false
		}
		inFlight.Add(1)
		return true
	}
	end := endPeer
	defer func() {
		takeMu.Lock()
		stopped = true
		takeMu.Unlock()
		if end != endShutdown {
			cancel() // nobody is left to answer
		}
		inFlight.Wait()
		cancel()
		mu.Lock()
		for _, id := range mine {
			s.sessions.Remove(id)
		}
		mu.Unlock()
	}()

	sem := make(chan struct{}, wsInFlight)
	work := make(chan []byte) // unbuffered: a send succeeds only if a worker waits
	worker := func(in []byte) {
		var linger *time.Timer
		for {
			if a := s.handle(ctx, o, in, send); a.body != nil && send(a.body) != nil {
				cancel()
			}
			<-sem
			inFlight.Done()
			if linger == nil {
				linger = time.NewTimer(workerLinger)
			} else {
				linger.Reset(workerLinger)
			}
			select {
			case in = <-work:
			case <-linger.C:
				return
			case <-ctx.Done():
				linger.Stop()
				return
			}
		}
	}

	// Envelopes are read and dispatched on a goroutine of their own, so
	// that shutdown can stop taking them while the read blocks.
	readEnd := make(chan frameEnd, 1)
	go func() {
		for {
			in, err := recv()
			if err != nil || !take() {
				readEnd <- endPeer
				return
			}
			if !established.Load() {
				a := s.handle(ctx, o, in, send)
				failed := a.body != nil && send(a.body) != nil
				inFlight.Done()
				if failed {
					readEnd <- endWrite
					return
				}
				continue
			}
			select {
			case sem <- struct{}{}:
			case <-ctx.Done():
				inFlight.Done()
				readEnd <- endPeer
				return
			}
			select {
			case work <- in:
			default:
				go worker(in)
			}
		}
	}()
	select {
	case end = <-readEnd:
	case <-ctx.Done():
		end = endPeer
	case <-s.quit:
		end = endShutdown
	}
	return end
}
