package wsface

import (
	"context"
	"fmt"
	"net"
	"sync"
	"time"

	"github.com/gorilla/websocket"
	"golang.org/x/time/rate"

	"github.com/moltgate/moltgate/gateway/face/frames"
	"github.com/moltgate/moltgate/gateway/pipeline"
	"github.com/moltgate/moltgate/internal/wsconn"
)

// serveConn reads and answers one WebSocket connection's frames.
func (f *Face) serveConn(base context.Context, conn *wsconn.Conn, remote string) {
	defer f.conns.Done()
	c := conn.WebSocket()
	c.SetReadLimit(int64(f.cfg.MaxFrame))
	stopPing := wsconn.KeepAlive(conn)
	defer stopPing()
	// Reading is given up if the other end is silent for three pings, or
	// at once when the face shuts down (interrupt): once interrupted,
	// nothing extends the deadline again.
	var (
		readMu      sync.Mutex
		interrupted bool
	)
	extend := func() {
		readMu.Lock()
		if !interrupted {
			c.SetReadDeadline(time.Now().Add(3 * wsconn.PingEvery))
		}
		readMu.Unlock()
	}
	interrupt := func() {
		readMu.Lock()
		interrupted = true
		c.SetReadDeadline(time.Now())
		readMu.Unlock()
	}
	extend()
	// A pong costs no more than the reading of it: it only keeps the
	// connection from being given up as silent, as any message does.
	c.SetPongHandler(func(string) error { extend(); return nil })
	f.limitPings(c)
	recv := func() ([]byte, error) {
		// The frame's buffer is given back once it is handled
		// (package frames): the pipeline decodes from copies.
		frame, err := wsconn.ReadMessage(c, frames.GetEnvelopeBuf)
		if err == nil {
			extend()
		}
		return frame, err
	}
	end := f.cfg.Frames.Serve(base, f.quitting, &pipeline.Origin{Face: pipeline.FaceWS, Remote: remote}, recv, conn.Write, interrupt)
	f.close(conn, end)
}

// close ends a connection served to its end: the answers still queued go
// out first, then the closing message that says why, if the gateway is
// the one ending it. Not inlined, for the reason limitPings gives.
//
//go:noinline
func (f *Face) close(conn *wsconn.Conn, end frames.End) {
	conn.Sync()
	switch end {
	case frames.EndShutdown:
		conn.Control(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseGoingAway, "gateway shutting down"), time.Now().Add(time.Second))
	case frames.EndPolicy:
		conn.Control(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.ClosePolicyViolation, "too many pings"), time.Now().Add(time.Second))
	case frames.EndNoSession:
		// The initiator may have finished its end of the handshake and
		// sent calls already, which were never read: the code tells it
		// they may go again on a new connection.
		conn.Control(websocket.CloseMessage, websocket.FormatCloseMessage(wsconn.CloseNoSession, "no session was made in time"), time.Now().Add(time.Second))
	}
	conn.WebSocket().Close()
	f.mu.Lock()
	delete(f.open, conn)
	f.mu.Unlock()
}

// limitPings answers the peer's pings with pongs up to PingRate; past it
// the read fails with an error of frames.ErrPolicy. It is a function of its
// own, never inlined, so that what it sets up is not in the frame of
// serveConn, which every idle connection's reader keeps on its stack: a
// deeper parked reader is one the collector no longer shrinks to 4 KiB
// (see docs/benchmarks.md, idle sessions).
//
//go:noinline
func (f *Face) limitPings(c *websocket.Conn) {
	pings := rate.NewLimiter(rate.Limit(f.cfg.PingRate), f.cfg.PingBurst)
	c.SetPingHandler(func(data string) error {
		if !pings.Allow() {
			return fmt.Errorf("%w: more than %d pings at once or %g a second", frames.ErrPolicy, f.cfg.PingBurst, f.cfg.PingRate)
		}
		// As gorilla/websocket's own handler: a pong that cannot be
		// written in time, or after the closing message, is let go.
		err := c.WriteControl(websocket.PongMessage, []byte(data), time.Now().Add(time.Second))
		if ne, ok := err.(net.Error); err == websocket.ErrCloseSent || ok && ne.Timeout() {
			return nil
		}
		return err
	})
}
