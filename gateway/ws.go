package gateway

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/gorilla/websocket"
	"golang.org/x/time/rate"

	"github.com/moltgate/moltgate/gateway/face/frames"
	"github.com/moltgate/moltgate/gateway/pipeline"
	"github.com/moltgate/moltgate/internal/wsconn"
	"github.com/moltgate/moltgate/wire"
)

const (
	// wsPingRate and wsPingBurst bound the pings a peer may send on a
	// connection, each of which the gateway must answer with a pong: a
	// burst of 20, then 2 a second, sixty times what a gateway that pings
	// every wsconn.PingEvery sends. Past them the connection is closed.
	wsPingRate  = 2
	wsPingBurst = 20
)

// limitPings answers the peer's pings with pongs up to wsPingRate; past it
// the read fails with errPingFlood. It is a function of its own, never
// inlined, so that what it sets up is not in the frame of serveStreamConn,
// which every idle connection's reader keeps on its stack: a deeper parked
// reader is one the collector no longer shrinks to 4 KiB (see
// docs/benchmarks.md, idle sessions).
//
//go:noinline
func limitPings(c *websocket.Conn) {
	pings := rate.NewLimiter(wsPingRate, wsPingBurst)
	c.SetPingHandler(func(data string) error {
		if !pings.Allow() {
			return errPingFlood
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

// errPingFlood ends a WebSocket whose peer sends pings past wsPingRate.
var errPingFlood = fmt.Errorf("%w: more than %d pings at once or %d a second", frames.ErrPolicy, wsPingBurst, wsPingRate)

// serveStream is GET /moltspeak/v0.1/stream: a WebSocket on which each
// message is one envelope. The handshake runs on it; the sessions it makes
// end with the connection. Messages are pipelined: each is answered as soon
// as it is handled, stream chunks first, the final reply last, all sealed
// in the session.
func (s *Server) serveStream(w http.ResponseWriter, r *http.Request) {
	up := websocket.Upgrader{
		// An idle connection holds little: a 2 KiB read buffer of its own
		// (a larger message is read through it; the HTTP server's
		// buffers, and its connection state, can then be let go), and a
		// write borrows a buffer of a TLS record's size from a pool for
		// as long as it lasts. 64 KiB buffers of its own made an idle
		// session cost about 190 KiB.
		ReadBufferSize: 512, WriteBufferSize: 16 << 10, WriteBufferPool: &s.wsWriteBufs,
		// Peers are gateways, not browsers: there is no origin to check.
		CheckOrigin: func(*http.Request) bool { return true },
		Error: func(w http.ResponseWriter, _ *http.Request, status int, reason error) {
			s.writeRefusal(w, status, wire.Errorf(wire.ErrInvalidParam, "", "not a WebSocket upgrade: %v", reason))
		},
	}
	hj := &wsconn.Hijacker{ResponseWriter: w, Bufs: &s.corkBufs}
	// The 101 is written by the upgrader, not through w's header.
	c, err := up.Upgrade(hj, r, http.Header{"X-Request-Id": w.Header().Values("X-Request-Id")})
	if err != nil {
		return
	}
	// The connection is served on a goroutine of its own and this handler
	// returns: the HTTP server's goroutine has the stack its TLS handshake
	// grew, and it would hold that for as long as the connection lives.
	// The connection outlives the request that opened it.
	go s.serveStreamConn(context.WithoutCancel(r.Context()), wsconn.New(c, hj.Cork, &s.wsQueues, s.writeTimeout), r.RemoteAddr)
}

// serveStreamConn reads and answers one WebSocket connection's frames.
func (s *Server) serveStreamConn(base context.Context, conn *wsconn.Conn, remote string) {
	c := conn.WebSocket()
	c.SetReadLimit(int64(s.frameLimit()))
	stopPing := wsconn.KeepAlive(conn)
	defer stopPing()
	// Reading is given up if the other end is silent for three pings, or
	// at once when the gateway shuts down (interrupt): once interrupted,
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
	limitPings(c)
	recv := func() ([]byte, error) {
		// The frame's buffer is given back once it is handled
		// (package frames): the pipeline decodes from copies.
		frame, err := wsconn.ReadMessage(c, frames.GetEnvelopeBuf)
		if err == nil {
			extend()
		}
		return frame, err
	}
	end := s.frames.Serve(base, &pipeline.Origin{Face: pipeline.FaceWS, Remote: remote}, recv, conn.Write, interrupt)
	// The answers may still be queued: they go out before the connection ends.
	conn.Sync()
	switch end {
	case frames.EndShutdown:
		conn.Control(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseGoingAway, "gateway shutting down"), time.Now().Add(time.Second))
	case frames.EndPolicy:
		conn.Control(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.ClosePolicyViolation, "too many pings"), time.Now().Add(time.Second))
	}
	c.Close()
}

// frameLimit is the largest message the stream faces (WebSocket, gRPC)
// read whole. Up to it, an envelope over the limit reaches the pipeline,
// which refuses it with E_TOO_LARGE as the HTTP face does; beyond it the
// transport ends the connection (WebSocket close 1009) or the call (gRPC
// ResourceExhausted) without reading more.
func (s *Server) frameLimit() int { return 2 * s.pipe.EnvelopeLimit() }
