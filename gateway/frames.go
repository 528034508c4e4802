package gateway

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/moltgate/moltgate/handshake"
)

// frameEnd says why a stream connection's loop ended.
type frameEnd int

const (
	endPeer     frameEnd = iota // the peer closed or broke the connection
	endShutdown                 // the gateway is shutting down
	endWrite                    // an answer could not be written
)

// serveFrames runs the pipeline over one stream connection (a WebSocket or
// a gRPC stream): recv returns the next envelope, send writes one (it must
// be safe for concurrent use). Until the connection's handshake completes,
// envelopes are handled in order, so that the first message in the session
// cannot overtake the last of the handshake; after that they are pipelined,
// wsInFlight at a time, beyond which the loop stops reading and the sender
// is pushed back. On shutdown it stops taking envelopes and lets those in
// flight finish and be answered. Sessions made on the connection end with
// it. ctx is the connection's; serveFrames cancels it when the peer is gone.
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
	sem := make(chan struct{}, wsInFlight)
	var wg sync.WaitGroup
	end := endPeer
	defer func() {
		if end != endShutdown {
			cancel() // nobody is left to answer
		}
		wg.Wait()
		cancel()
		mu.Lock()
		for _, id := range mine {
			s.sessions.Remove(id)
		}
		mu.Unlock()
	}()

	// Envelopes are read on a goroutine of their own so that shutdown can
	// stop taking them while the read blocks.
	frames := make(chan []byte)
	go func() {
		defer close(frames)
		for {
			b, err := recv()
			if err != nil {
				return
			}
			select {
			case frames <- b:
			case <-ctx.Done():
				return
			}
		}
	}()
	for {
		var in []byte
		var ok bool
		select {
		case in, ok = <-frames:
			if !ok {
				return endPeer
			}
		case <-s.quit:
			end = endShutdown
			return end
		}
		if !established.Load() {
			if a := s.handle(ctx, o, in, send); a.body != nil && send(a.body) != nil {
				end = endWrite
				return end
			}
			continue
		}
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
			return endPeer
		}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			if a := s.handle(ctx, o, in, send); a.body != nil && send(a.body) != nil {
				cancel()
			}
		}()
	}
}
