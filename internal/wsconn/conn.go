// Package wsconn is what both ends of a gateway-to-gateway WebSocket share:
// the writer that batches the messages of the calls on a connection into one
// TLS record and one system call, the cork under it, reading a message whole
// into a recycled buffer, and the keep-alive pings.
package wsconn

import (
	"bufio"
	"context"
	"crypto/tls"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/gorilla/websocket"

	"github.com/moltgate/moltgate/internal/coalesce"
	"github.com/moltgate/moltgate/internal/sockio"
)

// Conn writes a WebSocket connection's messages for the calls that share it. The
// messages queued while one batch is being written go out together in the next: each
// is still a WebSocket message of its own, but a batch is one TLS record (up to 16 KiB)
// and one system call, where a message each cost about a tenth of a busy gateway's CPU.
type Conn struct {
	c       *websocket.Conn
	cork    *Cork // nil if the connection could not be wrapped
	q       *coalesce.Writer
	timeout time.Duration // for a batch to be written
	// wmu keeps a batch and the control messages this side sends (pings, the
	// closing message) from interleaving in the cork.
	wmu sync.Mutex
}

// New writes to c, through cork (nil if c is not over one), in batches held
// in bufs, each given timeout to be written.
func New(c *websocket.Conn, cork *Cork, bufs *sync.Pool, timeout time.Duration) *Conn {
	w := &Conn{c: c, cork: cork, timeout: timeout}
	w.q = coalesce.NewWriter(w.flush, coalesce.Options{Pool: bufs, Yield: true})
	return w
}

// write queues b, a message, and returns once it is written or queued. A message queued
// behind a write that fails is lost with the connection, which is then closed: every
// call waiting on it fails at once.
func (w *Conn) Write(b []byte) error { return w.q.Write(b) }

// Sync returns once every message queued so far is written, with the
// error of the write that failed, if one did.
func (w *Conn) Sync() error { return w.q.Sync() }

// WebSocket is the connection written to, for reading and for its
// deadlines.
func (w *Conn) WebSocket() *websocket.Conn { return w.c }

// NetConn is the connection under the WebSocket and its TLS, if any; nil
// if the connection is not corked.
func (w *Conn) NetConn() net.Conn {
	if w.cork == nil {
		return nil
	}
	c := w.cork.Conn
	if tc, ok := c.(*tls.Conn); ok {
		c = tc.NetConn()
	}
	return c
}

func (w *Conn) flush(buf []byte, ends []int) error {
	w.wmu.Lock()
	defer w.wmu.Unlock()
	w.c.SetWriteDeadline(time.Now().Add(w.timeout))
	if w.cork != nil {
		w.cork.hold()
	}
	var err error
	start := 0
	for _, end := range ends {
		if err = w.c.WriteMessage(websocket.TextMessage, buf[start:end]); err != nil {
			break
		}
		start = end
	}
	if w.cork != nil {
		if rerr := w.cork.release(); err == nil {
			err = rerr
		}
	}
	if err != nil {
		w.c.Close()
	}
	return err
}

// Control sends a control message (ping, close) between batches.
func (w *Conn) Control(messageType int, data []byte, deadline time.Time) error {
	w.wmu.Lock()
	defer w.wmu.Unlock()
	return w.c.WriteControl(messageType, data, deadline)
}

// Cork is the connection under a WebSocket (above TLS). While held, what the
// WebSocket writes is gathered, and release sends it in one write.
type Cork struct {
	net.Conn
	bufs *sync.Pool // of *[]byte, shared by a gateway's connections

	mu       sync.Mutex
	held     bool
	buf      *[]byte // only while held: an idle connection keeps no buffer
	deadline time.Time
	deferred bool // a write deadline waits for release
}

func newCork(c net.Conn, bufs *sync.Pool) *Cork { return &Cork{Conn: c, bufs: bufs} }

func (c *Cork) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.held {
		return c.Conn.Write(p)
	}
	if c.buf == nil {
		c.buf, _ = c.bufs.Get().(*[]byte)
		if c.buf == nil {
			c.buf = new([]byte)
		}
	}
	*c.buf = append(*c.buf, p...)
	return len(p), nil
}

// SetWriteDeadline is deferred to release while the connection is held: the WebSocket
// sets it for every message, and a batch needs it once.
func (c *Cork) SetWriteDeadline(t time.Time) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.held {
		c.deadline, c.deferred = t, true
		return nil
	}
	return c.Conn.SetWriteDeadline(t)
}

func (c *Cork) hold() {
	c.mu.Lock()
	c.held = true
	c.mu.Unlock()
}

// release writes what was gathered while the connection was held.
func (c *Cork) release() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.held = false
	if c.deferred {
		c.deferred = false
		if err := c.Conn.SetWriteDeadline(c.deadline); err != nil {
			return err
		}
	}
	if c.buf == nil {
		return nil
	}
	_, err := c.Conn.Write(*c.buf)
	if cap(*c.buf) <= 1<<20 {
		*c.buf = (*c.buf)[:0]
		c.bufs.Put(c.buf)
	}
	c.buf = nil
	return err
}

// Hijacker hands the WebSocket upgrade a cork over the connection it takes over.
type Hijacker struct {
	http.ResponseWriter
	// Bufs holds the batches being written, shared by a gateway's
	// connections. Required.
	Bufs *sync.Pool
	// Cork is the cork over the connection, once Hijack has taken it.
	Cork *Cork
}

func (h *Hijacker) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	hj, ok := h.ResponseWriter.(http.Hijacker)
	if !ok {
		return nil, nil, http.ErrNotSupported
	}
	c, rw, err := hj.Hijack()
	if err != nil {
		return nil, nil, err
	}
	h.Cork = newCork(c, h.Bufs)
	return h.Cork, rw, nil
}

// Dialer dials a peer's WebSocket with a cork over the connection: under TLS for
// wss (the handshake done as the WebSocket client would do it), over TCP for ws.
type Dialer struct {
	// TLS is the client configuration for wss. Default: names and chains
	// checked as crypto/tls does.
	TLS *tls.Config
	// Bufs holds the batches being written, shared by a gateway's
	// connections. Required.
	Bufs *sync.Pool
	// Cork is the cork over the connection, once dialled.
	Cork *Cork
}

func (d *Dialer) Dial(ctx context.Context, network, addr string) (net.Conn, error) {
	var nd sockio.Dialer
	c, err := nd.DialContext(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	d.Cork = newCork(c, d.Bufs)
	return d.Cork, nil
}

func (d *Dialer) DialTLS(ctx context.Context, network, addr string) (net.Conn, error) {
	var nd sockio.Dialer
	c, err := nd.DialContext(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	cfg := d.TLS.Clone()
	if cfg == nil {
		cfg = &tls.Config{}
	}
	if cfg.ServerName == "" {
		host, _, err := net.SplitHostPort(addr)
		if err != nil {
			host = addr
		}
		cfg.ServerName = host
	}
	tc := tls.Client(c, cfg)
	if err := tc.HandshakeContext(ctx); err != nil {
		c.Close()
		return nil, err
	}
	if !cfg.InsecureSkipVerify {
		if err := tc.VerifyHostname(cfg.ServerName); err != nil {
			tc.Close()
			return nil, err
		}
	}
	d.Cork = newCork(tc, d.Bufs)
	return d.Cork, nil
}
