// Package httpface is the gateway's HTTPS face: POST /moltspeak/v0.1/message
// (one envelope, its reply in the response or delivered later) and
// /moltspeak/v0.1/batch, the registry's routes under /registry/v1/, the
// health and readiness probes and /metrics. It hands what it reads to the
// pipeline through its own Pipeline interface and reaches the registry
// through its own Registry interface: it knows no storage, keys or peers.
// Other faces served on the same port (the WebSocket stream) are mounted
// as routes of Config.Routes, so adding one touches nothing here.
package httpface

import (
	"context"
	"crypto/tls"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"slices"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"golang.org/x/net/netutil"

	"github.com/moltgate/moltgate/gateway/face/frames"
	"github.com/moltgate/moltgate/gateway/pipeline"
	"github.com/moltgate/moltgate/handshake"
	"github.com/moltgate/moltgate/internal/sockio"
	"github.com/moltgate/moltgate/tracing"
	"github.com/moltgate/moltgate/wire"
)

// ErrServerClosed is what Serve returns after Shutdown, as net/http's
// Server does (it is the same error).
var ErrServerClosed = http.ErrServerClosed

// Protocol headers and media types of the face.
const (
	// HeaderDeadline is the request's deadline, in Unix milliseconds on
	// the gateway's clock.
	HeaderDeadline = frames.HeaderDeadline
	// ContentNDJSON is the media type of a streamed reply: one envelope a
	// line.
	ContentNDJSON = frames.ContentNDJSON
)

// Pipeline takes envelopes through the gateway's checks and routes them
// (*pipeline.Pipeline).
type Pipeline interface {
	Handle(ctx context.Context, o pipeline.Origin, body []byte, emit func([]byte) error) pipeline.Answer
	Refuse(req *wire.Message, sess *handshake.Session, err error) pipeline.Answer
	EnvelopeLimit() int
}

// Config is what the face needs. Pipeline, Registry, Log, Messages and
// Errors are required; every other field has the default it states.
type Config struct {
	Pipeline Pipeline
	// Registry answers the anonymous registry routes.
	Registry Registry
	// Ready says whether the gateway takes traffic, for /readyz: "" if it
	// does, or one fixed word saying why not ("shutting_down",
	// "storage_unavailable"). Default: always ready.
	Ready func(ctx context.Context) string
	// Late receives the answer to a request that was answered 202 (or
	// whose client left) once the pipeline has it, to deliver to the
	// sender's gateway. It is called on a goroutine of its own. Default:
	// the answer is dropped.
	Late func(pipeline.Answer)
	// Routes are the other faces served on this port, by ServeMux pattern
	// ("GET /moltspeak/v0.1/stream"). Default none.
	Routes map[string]http.Handler
	// Metrics serves GET /metrics to the addresses in MetricsFrom.
	// Default: the route answers 404.
	Metrics     http.Handler
	MetricsFrom []netip.Prefix
	// Org and Version are what /healthz reports. Default "".
	Org, Version string
	// TLS, if set, is the listener's TLS configuration. Default plain HTTP.
	TLS *tls.Config

	// MaxConnections bounds the connections served at once; more wait to
	// be accepted. Default 1024.
	MaxConnections int
	// ReadHeaderTimeout bounds the reading of a request's header. Default 5s.
	ReadHeaderTimeout time.Duration
	// RequestTimeout bounds the reading of a body, and is the longest a
	// request waits for its answer (X-Moltgate-Deadline may shorten it).
	// Default 30s.
	RequestTimeout time.Duration
	// IdleTimeout closes a keep-alive connection idle that long. Default 2m.
	IdleTimeout time.Duration
	// ReplyWait is how long POST /message waits for a reply before it
	// answers 202 and has the reply delivered later. Default 10s.
	ReplyWait time.Duration
	// BatchBytes bounds the body of a batch. Default 10 MiB.
	BatchBytes int
	// MaxBatch bounds the envelopes of one batch. Default 1000.
	MaxBatch int
	// MaxStreams bounds the requests one HTTP/2 connection carries at
	// once. Default 100.
	MaxStreams int
	// DrainBytes and DrainTime bound what is read and thrown away of a
	// body refused as too large, after the refusal is sent, so that a
	// client that sends its whole body before it reads (most do) reads the
	// 413 rather than a reset: at most DrainBytes, each MiB of it within
	// DrainTime of the one before. A body announced larger is not read at
	// all; past either bound the connection is closed. Defaults 16 MiB and
	// 5s.
	DrainBytes int64
	DrainTime  time.Duration
	// Messages counts requests refused before their message was read, by
	// op ("none"), face and outcome (the error code).
	Messages *prometheus.CounterVec
	// Errors counts what net/http logs of the connections, by kind.
	Errors *prometheus.CounterVec
	Log    *slog.Logger
	// Now is the gateway's clock, which X-Moltgate-Deadline is read on.
	// Default time.Now.
	Now func() time.Time
	// Rand is the source of request ids. Default crypto/rand.
	Rand io.Reader
}

func (c *Config) defaults() {
	setDur := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	setInt := func(n *int, v int) {
		if *n <= 0 {
			*n = v
		}
	}
	setInt(&c.MaxConnections, 1024)
	setDur(&c.ReadHeaderTimeout, 5*time.Second)
	setDur(&c.RequestTimeout, 30*time.Second)
	setDur(&c.IdleTimeout, 2*time.Minute)
	setDur(&c.ReplyWait, 10*time.Second)
	setInt(&c.BatchBytes, 10<<20)
	setInt(&c.MaxBatch, 1000)
	setInt(&c.MaxStreams, 100)
	if c.DrainBytes <= 0 {
		c.DrainBytes = 16 << 20
	}
	setDur(&c.DrainTime, 5*time.Second)
	if c.Now == nil {
		c.Now = time.Now
	}
	if c.Rand == nil {
		c.Rand = cryptoRand{}
	}
	if c.Ready == nil {
		c.Ready = func(context.Context) string { return "" }
	}
	if c.Late == nil {
		c.Late = func(pipeline.Answer) {}
	}
}

// Face is the HTTPS face. Make it with New.
type Face struct {
	cfg Config
	hs  *http.Server

	mu     sync.Mutex
	closed bool
}

// New makes the face.
func New(cfg Config) *Face {
	cfg.defaults()
	f := &Face{cfg: cfg}
	f.hs = &http.Server{
		Handler:           f.Handler(),
		ReadHeaderTimeout: cfg.ReadHeaderTimeout,
		// A body trickled in slowly must not hold a connection for ever.
		ReadTimeout: cfg.RequestTimeout,
		// Nor a client that does not read its answer. An answer lasts at
		// most until the request's deadline, which is at most the request
		// timeout after its body was read (within ReadTimeout). A WebSocket
		// sets its own deadlines once upgraded.
		WriteTimeout:   2*cfg.RequestTimeout + 5*time.Second,
		IdleTimeout:    cfg.IdleTimeout,
		MaxHeaderBytes: 64 << 10,
		// Streams per HTTP/2 connection: MaxConnections bounds
		// connections, this what each may carry at once.
		HTTP2:    &http.HTTP2Config{MaxConcurrentStreams: cfg.MaxStreams},
		ErrorLog: errorLog(cfg.Log, cfg.Errors),
	}
	return f
}

// Serve accepts connections on l, at most MaxConnections at once, under
// TLS if configured, until Shutdown; then it returns ErrServerClosed.
func (f *Face) Serve(l net.Listener) error {
	f.mu.Lock()
	closed := f.closed
	f.mu.Unlock()
	if closed {
		l.Close()
		return ErrServerClosed
	}
	l = netutil.LimitListener(sockio.Listener{Listener: l}, f.cfg.MaxConnections)
	if f.cfg.TLS != nil {
		l = tls.NewListener(l, f.cfg.TLS)
	}
	return f.hs.Serve(l)
}

// Shutdown stops accepting, lets the requests being served finish until
// ctx ends, and closes the connections. The faces mounted in Routes that
// take their connections over (a WebSocket) are theirs to shut down.
func (f *Face) Shutdown(ctx context.Context) error {
	f.mu.Lock()
	f.closed = true
	f.mu.Unlock()
	return f.hs.Shutdown(ctx)
}

// route is one route of the face: a ServeMux pattern and what serves it.
type route struct {
	pattern string
	h       http.Handler
}

// routes is the face's one table of routes: Handler serves it, and
// Patterns lists it.
func (f *Face) routes() []route {
	rs := []route{
		{"POST /moltspeak/v0.1/message", http.HandlerFunc(f.serveMessage)},
		{"POST /moltspeak/v0.1/batch", http.HandlerFunc(f.serveBatch)},
		{"POST /registry/v1/register", http.HandlerFunc(f.serveRegistryMessage)},
		{"POST /registry/v1/discover", http.HandlerFunc(f.serveDiscover)},
		{"GET /registry/v1/agents/{id}", http.HandlerFunc(f.serveAgent)},
		{"DELETE /registry/v1/agents/{id}", http.HandlerFunc(f.serveDeregister)},
		{"GET /registry/v1/capabilities", http.HandlerFunc(f.serveCapabilities)},
		{"POST /registry/v1/ping/{id}", http.HandlerFunc(f.servePing)},
		{"GET /registry/v1/health", http.HandlerFunc(f.serveHealth)},
		{"GET /healthz", http.HandlerFunc(f.serveHealth)},
		{"GET /readyz", http.HandlerFunc(f.serveReady)},
	}
	if f.cfg.Metrics != nil {
		rs = append(rs, route{"GET /metrics", f.metricsHandler()})
	}
	for pattern, h := range f.cfg.Routes {
		rs = append(rs, route{pattern, h})
	}
	return rs
}

// Patterns lists the ServeMux patterns Handler serves ("GET /healthz",
// "GET /registry/v1/agents/{id}"), its own and Config.Routes, sorted: what
// a description of the face, such as docs/openapi.json, must cover.
func (f *Face) Patterns() []string {
	var out []string
	for _, r := range f.routes() {
		out = append(out, r.pattern)
	}
	slices.Sort(out)
	return out
}

// Handler routes the face's requests; Serve serves it.
func (f *Face) Handler() http.Handler {
	mux := http.NewServeMux()
	for _, r := range f.routes() {
		mux.Handle(r.pattern, r.h)
	}
	return f.withRequestID(f.routesOnly(mux))
}

// routesOnly answers a request that matches no route the way the face
// answers any refusal, with a signed error, though with the status the
// mux gives it (404, or 405 with Allow) rather than a line of plain text.
func (f *Face) routesOnly(mux *http.ServeMux) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h, pattern := mux.Handler(r)
		if pattern != "" {
			mux.ServeHTTP(w, r)
			return
		}
		rec := &statusOnly{header: http.Header{}}
		h.ServeHTTP(rec, r)
		msg := "no such route (the faces are under /moltspeak/v0.1/ and /registry/v1/)"
		if rec.status == http.StatusMethodNotAllowed {
			msg = "method not allowed here (allowed: " + rec.header.Get("Allow") + ")"
			w.Header().Set("Allow", rec.header.Get("Allow"))
		}
		f.writeRefusal(w, rec.status, wire.Errorf(wire.ErrInvalidParam, "", "%s", msg))
	})
}

// writeRefusal answers with a signed refusal of err under an HTTP status
// of the route's own, rather than the one its code maps to.
func (f *Face) writeRefusal(w http.ResponseWriter, status int, err *wire.Error) {
	a := f.cfg.Pipeline.Refuse(nil, nil, err)
	a.Status = status
	WriteAnswer(w, a)
}

// statusOnly keeps the status and header a handler answers with.
type statusOnly struct {
	header http.Header
	status int
}

func (r *statusOnly) Header() http.Header         { return r.header }
func (r *statusOnly) Write(b []byte) (int, error) { return len(b), nil }
func (r *statusOnly) WriteHeader(status int)      { r.status = status }

// metricsHandler serves /metrics to the addresses in MetricsFrom only.
func (f *Face) metricsHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !fromNetworks(r.RemoteAddr, f.cfg.MetricsFrom) {
			f.writeRefusal(w, http.StatusForbidden, wire.Errorf(wire.ErrAuthFailed, "", "metrics are served only to the addresses in listen.metrics_from"))
			return
		}
		f.cfg.Metrics.ServeHTTP(w, r)
	})
}

// fromNetworks reports whether the host of addr ("IP:port") is in one of
// the networks. An IPv4 address that comes as IPv6 (::ffff:a.b.c.d) is
// taken as the IPv4 address it is.
func fromNetworks(addr string, networks []netip.Prefix) bool {
	ap, err := netip.ParseAddrPort(addr)
	if err != nil {
		return false
	}
	ip := ap.Addr().Unmap()
	for _, n := range networks {
		if n.Contains(ip) {
			return true
		}
	}
	return false
}

type ctxKey int

const requestIDKey ctxKey = iota

// RequestID is the id the face gave the request of ctx, or "".
func RequestID(ctx context.Context) string {
	id, _ := ctx.Value(requestIDKey).(string)
	return id
}

// withRequestID gives every request an id that follows it through the
// logs, from the face to the local bridge.
func (f *Face) withRequestID(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := pipeline.NewMessageID(f.cfg.Rand)
		w.Header().Set("X-Request-Id", id)
		// tracing's key too, for the log lines of the request.
		h.ServeHTTP(w, r.WithContext(tracing.WithRequestID(context.WithValue(r.Context(), requestIDKey, id), id)))
	})
}
