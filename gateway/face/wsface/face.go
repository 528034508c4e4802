// Package wsface is the gateway's WebSocket face, GET
// /moltspeak/v0.1/stream: a connection on which each message is one
// envelope. The handshake runs on it and the sessions it makes end with
// it; after the handshake messages are pipelined, each answered as soon as
// it is handled (stream chunks first, the final reply last). The framing,
// shared with the gRPC face, is package frames; the face adds the
// WebSocket: the upgrade, pings both ways, the read limit, batched writes,
// and the closing message. It is an http.Handler, mounted on the HTTPS
// face's port, and can serve a listener of its own.
package wsface

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/gorilla/websocket"

	"github.com/moltgate/moltgate/gateway/face/frames"
	"github.com/moltgate/moltgate/gateway/pipeline"
	"github.com/moltgate/moltgate/handshake"
	"github.com/moltgate/moltgate/internal/wsconn"
	"github.com/moltgate/moltgate/wire"
)

// ErrServerClosed is what Serve returns after Shutdown.
var ErrServerClosed = errors.New("wsface: server closed")

// Pipeline is what the face needs of the pipeline besides the framing
// (*pipeline.Pipeline): refusals of what is not an upgrade, and the
// envelope limit.
type Pipeline interface {
	Refuse(req *wire.Message, sess *handshake.Session, err error) pipeline.Answer
	EnvelopeLimit() int
}

// Frames runs the pipeline over one stream connection (*frames.Conns).
type Frames interface {
	Serve(ctx, quitting context.Context, o *pipeline.Origin, recv func() ([]byte, error), send func([]byte) error, interrupt func()) frames.End
}

// Config is what the face needs. Pipeline, Frames and Log are required;
// every other field has the default it states.
type Config struct {
	Pipeline Pipeline
	Frames   Frames
	Log      *slog.Logger
	// MaxFrame is the largest message read whole. Up to it, an envelope
	// over the limit reaches the pipeline, which refuses it with
	// E_TOO_LARGE as the HTTP face does; beyond it the connection is
	// closed (1009) without reading more. Default twice the envelope limit.
	MaxFrame int
	// WriteTimeout is how long a batch of answers may wait for the peer to
	// read before the connection is given up. Default 10s.
	WriteTimeout time.Duration
	// PingRate and PingBurst bound the pings a peer may send, each of which
	// the face answers with a pong: past them the connection is closed as
	// a policy violation (1008). Defaults DefaultPingRate and
	// DefaultPingBurst.
	PingRate  float64
	PingBurst int
	// Shared by the connections: write buffers (of a TLS record's size),
	// the batches being written, and the messages queued. Default: pools
	// of the face's own.
	WriteBufs, CorkBufs, Queues *sync.Pool
}

// The default bounds on a peer's pings: a burst of 20, then 2 a second,
// sixty times what a gateway that pings every wsconn.PingEvery sends.
const (
	DefaultPingRate  = 2
	DefaultPingBurst = 20
)

// Face is the WebSocket face. Make it with New.
type Face struct {
	cfg      Config
	up       websocket.Upgrader
	quitting context.Context
	quit     context.CancelFunc

	mu     sync.Mutex
	closed bool
	hs     *http.Server // Serve's own, if it was called
	conns  sync.WaitGroup
	open   map[*wsconn.Conn]struct{}
}

// New makes the face.
func New(cfg Config) *Face {
	if cfg.MaxFrame <= 0 {
		cfg.MaxFrame = 2 * cfg.Pipeline.EnvelopeLimit()
	}
	if cfg.WriteTimeout <= 0 {
		cfg.WriteTimeout = wsconn.WriteTimeout
	}
	if cfg.PingRate <= 0 {
		cfg.PingRate = DefaultPingRate
	}
	if cfg.PingBurst <= 0 {
		cfg.PingBurst = DefaultPingBurst
	}
	for _, p := range []**sync.Pool{&cfg.WriteBufs, &cfg.CorkBufs, &cfg.Queues} {
		if *p == nil {
			*p = new(sync.Pool)
		}
	}
	f := &Face{cfg: cfg, open: map[*wsconn.Conn]struct{}{}}
	f.quitting, f.quit = context.WithCancel(context.Background())
	f.up = websocket.Upgrader{
		// An idle connection holds little: a 512-byte read buffer of its
		// own (a larger message is read through it; the HTTP server's
		// buffers, and its connection state, can then be let go), and a
		// write borrows a buffer of a TLS record's size from a pool for
		// as long as it lasts. 64 KiB buffers of its own made an idle
		// session cost about 190 KiB.
		ReadBufferSize: 512, WriteBufferSize: 16 << 10, WriteBufferPool: cfg.WriteBufs,
		// Peers are gateways, not browsers: there is no origin to check.
		CheckOrigin: func(*http.Request) bool { return true },
		Error: func(w http.ResponseWriter, _ *http.Request, status int, reason error) {
			f.refuse(w, status, wire.Errorf(wire.ErrInvalidParam, "", "not a WebSocket upgrade: %v", reason))
		},
	}
	return f
}

// Pattern is the route the face serves, as a ServeMux pattern.
const Pattern = "GET /moltspeak/v0.1/stream"

// Serve serves the face alone on l (plain HTTP; wrap l for TLS) until
// Shutdown, then returns ErrServerClosed. Mounted on the HTTPS face, the
// face is served there instead, as an http.Handler.
func (f *Face) Serve(l net.Listener) error {
	mux := http.NewServeMux()
	mux.Handle(Pattern, f)
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	f.mu.Lock()
	if f.closed {
		f.mu.Unlock()
		l.Close()
		return ErrServerClosed
	}
	f.hs = hs
	f.mu.Unlock()
	if err := hs.Serve(l); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return ErrServerClosed
}

// Shutdown stops taking upgrades, stops each connection reading, and waits
// until each has written the answers to what it had read and closed (with
// 1001, going away), or until ctx ends, when those left are closed at
// once. An answer in flight at shutdown is written before its connection
// closes.
func (f *Face) Shutdown(ctx context.Context) error {
	f.mu.Lock()
	f.closed = true
	hs := f.hs
	f.mu.Unlock()
	f.quit()
	var err error
	if hs != nil {
		err = hs.Shutdown(ctx)
	}
	done := make(chan struct{})
	go func() { f.conns.Wait(); close(done) }()
	select {
	case <-done:
		return err
	case <-ctx.Done():
	}
	f.mu.Lock()
	for c := range f.open {
		c.WebSocket().Close()
	}
	f.mu.Unlock()
	return errors.Join(err, fmt.Errorf("wsface: connections still open at the deadline: %w", context.Cause(ctx)))
}

// refuse answers an HTTP request with a signed refusal under status.
func (f *Face) refuse(w http.ResponseWriter, status int, err *wire.Error) {
	a := f.cfg.Pipeline.Refuse(nil, nil, err)
	if a.RetryAfter > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(int(max(a.RetryAfter, time.Second)/time.Second)))
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(append(a.Body, '\n'))
}

// ServeHTTP upgrades the request to a WebSocket and serves it. The
// connection is served on a goroutine of its own and ServeHTTP returns:
// the HTTP server's goroutine has the stack its TLS handshake grew, and it
// would hold that for as long as the connection lives. The connection
// outlives the request that opened it.
func (f *Face) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	if f.closed {
		f.mu.Unlock()
		f.refuse(w, http.StatusServiceUnavailable, wire.Errorf(wire.ErrPeerUnavailable, "", "the gateway is shutting down"))
		return
	}
	// Counted before the upgrade, so that Shutdown waits for it.
	f.conns.Add(1)
	f.mu.Unlock()
	hj := &wsconn.Hijacker{ResponseWriter: w, Bufs: f.cfg.CorkBufs}
	// The 101 is written by the upgrader, not through w's header.
	c, err := f.up.Upgrade(hj, r, http.Header{"X-Request-Id": w.Header().Values("X-Request-Id")})
	if err != nil {
		f.conns.Done()
		return
	}
	conn := wsconn.New(c, hj.Cork, f.cfg.Queues, f.cfg.WriteTimeout)
	f.mu.Lock()
	f.open[conn] = struct{}{}
	f.mu.Unlock()
	go f.serveConn(context.WithoutCancel(r.Context()), conn, r.RemoteAddr)
}
