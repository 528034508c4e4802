package gateway

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/moltgate/moltgate/gateway/pipeline"
	"github.com/moltgate/moltgate/wire"
)

// mortalListener's connections fail every write once dead is set: a
// process that has exited writes nothing more, and a test that sets dead
// as Shutdown returns sees what a gateway stopped by SIGTERM would have
// sent.
type mortalListener struct {
	net.Listener
	dead *atomic.Bool
}

func (l mortalListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return mortalConn{c, l.dead}, nil
}

type mortalConn struct {
	net.Conn
	dead *atomic.Bool
}

var errExited = errors.New("the gateway's process has exited")

func (c mortalConn) Write(p []byte) (int, error) {
	if c.dead.Load() {
		return 0, errExited
	}
	return c.Conn.Write(p)
}

// handledOn is how many envelopes the pipeline has handled from face,
// besides the handshake's (the last of which has no answer).
func handledOn(t *testing.T, s *Server, face string) float64 {
	t.Helper()
	mfs, err := s.metrics.reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	n := 0.0
	for _, mf := range mfs {
		if mf.GetName() != "moltgate_messages_total" {
			continue
		}
		for _, m := range mf.GetMetric() {
			labels := map[string]string{}
			for _, l := range m.GetLabel() {
				labels[l.GetName()] = l.GetValue()
			}
			if labels["face"] == face && labels["op"] != string(wire.OpHello) {
				n += m.GetCounter().GetValue()
			}
		}
	}
	return n
}

// TestShutdownAnswersWhatItRead: a stream connection that has read a
// message when the gateway shuts down writes its answer before it closes,
// and Shutdown returns only once it has, so that a process that exits
// then loses no reply. Each round loads a WebSocket or a gRPC stream with
// calls to a local agent, shuts the gateway down while they are in
// flight, and from the moment Shutdown returns lets the gateway write
// nothing more: every message the pipeline handled must have had its
// answer by then.
func TestShutdownAnswersWhatItRead(t *testing.T) {
	rounds := 10
	if raceEnabled || testing.Short() {
		// Each round is a pair of gateways and a hundred calls, several
		// times slower under the race detector.
		rounds = 3
	}
	for _, face := range []string{pipeline.FaceWS, pipeline.FaceStream} {
		t.Run(face, func(t *testing.T) {
			var inFlight int64
			for round := range rounds {
				inFlight += shutdownUnderLoad(t, face, round)
			}
			if inFlight == 0 {
				t.Fatal("no call was in flight at any shutdown: the test tried nothing")
			}
		})
	}
}

func shutdownUnderLoad(t *testing.T, face string, round int) (inFlight int64) {
	var dead atomic.Bool
	r := newFaceRigOn(t, func(ls *Listeners) {
		ls.HTTP = mortalListener{ls.HTTP, &dead}
		ls.GRPC = mortalListener{ls.GRPC, &dead}
	}, noDrainDelay)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	c := r.dial(ctx, t, face)
	defer c.close()
	// Each sender may make 3 calls (the rig's agent rate limit); the calls
	// take from 0 to 40 ms at the agent, so that some are in flight when
	// the shutdown comes, and some are still to be read.
	var envs [][]byte
	for i := range 20 {
		s := newSender(t, r.acme, fmt.Sprintf("load-%d-%d", round, i))
		for j := range 3 {
			envs = append(envs, sealed(t, c, s, s.tool("sleep", fmt.Sprintf(`{"ms":%d}`, (i*3+j)%41), wire.Conf)))
		}
	}
	before := handledOn(t, r.g.s, face)

	var answered atomic.Int64
	readDone := make(chan error, 1)
	go func() {
		for {
			var b []byte
			var err error
			if c.ws != nil {
				_, b, err = c.ws.ReadMessage()
			} else {
				err = c.st.RecvMsg(&b)
			}
			if err != nil {
				readDone <- err
				return
			}
			var a faceAnswer
			if err := c.take(&a, b); err != nil {
				readDone <- err
				return
			}
			if a.final != nil {
				answered.Add(1)
			}
		}
	}()
	if c.ws != nil {
		c.ws.SetReadDeadline(time.Now().Add(60 * time.Second))
	}
	var wg sync.WaitGroup
	wg.Add(1)
	halfway := make(chan struct{})
	go func() {
		defer wg.Done()
		for i, env := range envs {
			if i == len(envs)/2 {
				close(halfway)
			}
			var err error
			if c.ws != nil {
				err = c.ws.WriteMessage(websocket.TextMessage, env)
			} else {
				err = c.st.SendMsg(&env)
			}
			if err != nil {
				return // the gateway is gone
			}
		}
	}()
	// Shut down halfway through the load, once answers flow: calls are
	// then in flight.
	select {
	case <-halfway:
	case err := <-readDone:
		t.Fatalf("round %d: the connection ended before the shutdown: %v", round, err)
	}
	for answered.Load() < 5 {
		select {
		case err := <-readDone:
			t.Fatalf("round %d: the connection ended before the shutdown: %v", round, err)
		case <-ctx.Done():
			t.Fatalf("round %d: %d answers in %s", round, answered.Load(), time.Minute)
		case <-time.After(time.Millisecond):
		}
	}
	atShutdown := answered.Load()
	sctx, scancel := context.WithTimeout(ctx, 30*time.Second)
	err := r.g.s.Shutdown(sctx)
	scancel()
	dead.Store(true)
	if err != nil {
		t.Fatalf("round %d: Shutdown: %v", round, err)
	}
	// The connection ended cleanly before Shutdown returned: the
	// WebSocket with its closing message (1001, going away), the stream
	// with its status (OK), both written before the writes stopped.
	select {
	case err := <-readDone:
		var ce *websocket.CloseError
		if c.ws != nil && !(errors.As(err, &ce) && ce.Code == websocket.CloseGoingAway) {
			t.Fatalf("round %d: the WebSocket ended with %v, not its closing message (1001)", round, err)
		}
		if c.ws == nil && !errors.Is(err, io.EOF) {
			t.Fatalf("round %d: the stream ended with %v, not its status", round, err)
		}
	case <-ctx.Done():
		t.Fatalf("round %d: the connection was not closed after Shutdown", round)
	}
	c.close()
	wg.Wait()
	handled := handledOn(t, r.g.s, face) - before
	got := float64(answered.Load())
	t.Logf("round %d: %d sent, %.0f handled, %.0f answered, %d of them during the shutdown", round, len(envs), handled, got, answered.Load()-atShutdown)
	if got != handled {
		t.Fatalf("round %d: %.0f messages handled, %.0f answers received before Shutdown returned: %.0f lost", round, handled, got, handled-got)
	}
	return answered.Load() - atShutdown
}
