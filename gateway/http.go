package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"net/netip"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/moltgate/moltgate/gateway/pipeline"
	"github.com/moltgate/moltgate/wire"
)

// httpHandler routes the gateway's HTTP face.
func (s *Server) httpHandler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /moltspeak/v0.1/message", s.serveMessage)
	mux.HandleFunc("POST /moltspeak/v0.1/batch", s.serveBatch)
	mux.HandleFunc("GET /moltspeak/v0.1/stream", s.serveStream)
	mux.HandleFunc("POST /registry/v1/register", s.serveRegistryMessage)
	mux.HandleFunc("POST /registry/v1/discover", s.serveDiscover)
	mux.HandleFunc("GET /registry/v1/agents/{id}", s.serveAgent)
	mux.HandleFunc("DELETE /registry/v1/agents/{id}", s.serveDeregister)
	mux.HandleFunc("GET /registry/v1/capabilities", s.serveCapabilities)
	mux.HandleFunc("POST /registry/v1/ping/{id}", s.servePing)
	mux.HandleFunc("GET /registry/v1/health", s.serveHealth)
	mux.HandleFunc("GET /healthz", s.serveHealth)
	mux.HandleFunc("GET /readyz", s.serveReady)
	mux.Handle("GET /metrics", s.metricsHandler())
	return s.withRequestID(s.routesOnly(mux))
}

// routesOnly answers a request that matches no route the way the face
// answers any refusal, with a signed error, though with the status the mux
// gives it (404, or 405 with Allow) rather than a line of plain text.
func (s *Server) routesOnly(mux *http.ServeMux) http.Handler {
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
		s.writeRefusal(w, rec.status, wire.Errorf(wire.ErrInvalidParam, "", "%s", msg))
	})
}

// writeRefusal answers with a signed refusal of err under an HTTP status
// of the route's own, rather than the one its code maps to.
func (s *Server) writeRefusal(w http.ResponseWriter, status int, err *wire.Error) {
	a := s.pipe.Refuse(nil, nil, err)
	a.Status = status
	s.writeAnswer(w, a)
}

// statusOnly keeps the status and header a handler answers with.
type statusOnly struct {
	header http.Header
	status int
}

func (r *statusOnly) Header() http.Header         { return r.header }
func (r *statusOnly) Write(b []byte) (int, error) { return len(b), nil }
func (r *statusOnly) WriteHeader(status int)      { r.status = status }

// metricsHandler serves /metrics. The gauges of what the gateway holds
// (sessions, calls in flight) are read at the scrape: set as things happen,
// they missed the sessions of its own WebSocket and gRPC connections and
// the ends of calls and connections.
func (s *Server) metricsHandler() http.Handler {
	h := promhttp.HandlerFor(s.metrics.reg, promhttp.HandlerOpts{})
	allowed := s.cfg.Listen.MetricsNetworks()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !fromNetworks(r.RemoteAddr, allowed) {
			s.writeRefusal(w, http.StatusForbidden, wire.Errorf(wire.ErrAuthFailed, "", "metrics are served only to the addresses in listen.metrics_from"))
			return
		}
		s.metrics.sessions.Set(float64(s.sessions.Len()))
		s.metrics.inflight.Set(float64(s.flight.Count()))
		h.ServeHTTP(w, r)
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

// withRequestID gives every request an id that follows it through the
// logs, from the face to the local bridge.
func (s *Server) withRequestID(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := pipeline.NewMessageID(s.rand)
		w.Header().Set("X-Request-Id", id)
		h.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), requestIDKey, id)))
	})
}

// readBody reads a request body of at most limit bytes. A body it cannot
// take is refused here, with the reason: too large, too slow, or not a
// well-formed HTTP body. It counts as a message of no op on face.
func (s *Server) readBody(w http.ResponseWriter, r *http.Request, face string, limit int) ([]byte, bool) {
	err := bodyError(r.ContentLength, limit, nil)
	if err == nil {
		// A body announced as too large is refused before it is read, so a
		// client that asked to continue is told at once.
		b, rerr := io.ReadAll(http.MaxBytesReader(w, r.Body, int64(limit)))
		if rerr == nil {
			return b, true
		}
		err = bodyError(r.ContentLength, limit, rerr)
	}
	s.refuseBody(w, face, err)
	return nil, false
}

// refuseBody answers a request refused before its message was read, and
// counts it as a message of no op on face.
func (s *Server) refuseBody(w http.ResponseWriter, face string, err *wire.Error) {
	s.metrics.messages.WithLabelValues("none", face, string(err.Code)).Inc()
	s.writeAnswer(w, s.pipe.Refuse(nil, nil, err))
}

// bodyError is the refusal of a request body of announced length n (-1 if
// not announced) under limit, given the error reading it ended with.
func bodyError(n int64, limit int, err error) *wire.Error {
	var mb *http.MaxBytesError
	var ne net.Error
	switch {
	case n > int64(limit) || errors.As(err, &mb):
		return wire.Errorf(wire.ErrTooLarge, "", "body exceeds %d bytes", limit)
	case err == nil:
		return nil
	case errors.Is(err, os.ErrDeadlineExceeded) || errors.As(err, &ne) && ne.Timeout():
		return wire.Errorf(wire.ErrTimeout, "", "the request body did not arrive in time")
	default:
		return wire.Errorf(wire.ErrParse, "", "the request body could not be read")
	}
}

// deadline is the request's deadline on the process's clock: its
// X-Moltgate-Deadline header (unix milliseconds, on the gateway's clock
// like every time in a message), at most the gateway's request timeout.
func (s *Server) deadline(r *http.Request) time.Time {
	left := s.cfg.Listen.RequestTimeout.D()
	if v := r.Header.Get(headerDeadline); v != "" {
		if ms, err := strconv.ParseInt(v, 10, 64); err == nil {
			left = min(left, time.UnixMilli(ms).Sub(s.now()))
		}
	}
	return time.Now().Add(left)
}

func (s *Server) writeAnswer(w http.ResponseWriter, a pipeline.Answer) {
	if a.RetryAfter > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(retryAfterSeconds(a.RetryAfter)))
	}
	if a.Status == 0 {
		a.Status = http.StatusOK
	}
	if a.Body == nil {
		w.WriteHeader(a.Status)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(a.Status)
	w.Write(a.Body)
	w.Write([]byte("\n"))
}

// serveMessage is POST /moltspeak/v0.1/message: one envelope or bare
// message. The reply comes in the response when it is ready within the
// request's deadline and the face's reply wait; otherwise the answer is 202
// and the reply is delivered to the sender's gateway when it is ready. A
// client that accepts application/x-ndjson gets a streamed reply as one
// envelope per line.
func (s *Server) serveMessage(w http.ResponseWriter, r *http.Request) {
	body, ok := s.readBody(w, r, pipeline.FaceHTTP, s.pipe.EnvelopeLimit())
	if !ok {
		return
	}
	deadline := s.deadline(r)
	if !time.Now().Before(deadline) {
		// Nothing could be answered in time, and a 202 would promise a
		// reply to a call that is not taken.
		s.refuseBody(w, pipeline.FaceHTTP, wire.Errorf(wire.ErrTimeout, "", "the request's deadline (%s) has passed", headerDeadline))
		return
	}
	streaming := strings.Contains(r.Header.Get("Accept"), contentNDJSON)
	// The call outlives the request if it must: it is bounded by its own
	// deadline, not by the connection.
	ctx, cancel := context.WithDeadline(context.WithoutCancel(r.Context()), deadline)
	var mu sync.Mutex
	started, gone := false, false
	requestID := ""              // the message's id, once the pipeline has authenticated it
	taken := make(chan struct{}) // closed then
	flusher, _ := w.(http.Flusher)
	var emit func([]byte) error
	if streaming {
		emit = func(env []byte) error {
			mu.Lock()
			defer mu.Unlock()
			if gone {
				return nil
			}
			if !started {
				w.Header().Set("Content-Type", contentNDJSON)
				w.WriteHeader(http.StatusOK)
				started = true
			}
			w.Write(env)
			w.Write([]byte("\n"))
			if flusher != nil {
				flusher.Flush()
			}
			return nil
		}
	}
	done := make(chan pipeline.Answer, 1)
	o := pipeline.Origin{Face: pipeline.FaceHTTP, Remote: r.RemoteAddr, OnRequest: func(id string) {
		mu.Lock()
		requestID = id
		mu.Unlock()
		close(taken)
	}}
	go func() {
		defer cancel()
		done <- s.pipe.Handle(ctx, o, body, emit)
	}()
	finish := func(a pipeline.Answer) {
		mu.Lock()
		defer mu.Unlock()
		if started {
			if a.Body != nil {
				w.Write(a.Body)
				w.Write([]byte("\n"))
			}
			return
		}
		s.writeAnswer(w, a)
	}
	leave := func() {
		mu.Lock()
		gone = true
		mu.Unlock()
		go s.deliverLater(done)
	}
	wait := time.NewTimer(min(s.cfg.Peers.ReplyWait.D(), time.Until(deadline)))
	defer wait.Stop()
	select {
	case a := <-done:
		finish(a)
		return
	case <-r.Context().Done():
		leave()
		return
	case <-wait.C:
	}
	// A 202 promises a reply later, so it is only for a message that the
	// pipeline has taken in; anything refused before that is answered here.
	select {
	case <-taken:
	default:
		select {
		case a := <-done:
			finish(a)
			return
		case <-r.Context().Done():
			leave()
			return
		case <-taken:
		}
	}
	mu.Lock()
	if started {
		// Chunks are flowing: keep the response open to the end.
		mu.Unlock()
		finish(<-done)
		return
	}
	gone = true
	id := requestID
	mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusAccepted)
	// The reference is the request's own id: the late reply is a
	// message whose re names it.
	accepted, _ := json.Marshal(struct {
		Status    string `json:"status"`
		RequestID string `json:"request_id"`
		Delivery  string `json:"delivery"`
	}{"accepted", id, "the reply will be sent to your gateway as a message whose re is request_id"})
	w.Write(append(accepted, '\n'))
	go s.deliverLater(done)
}

// deliverLater sends a reply that was not ready in time to the gateway of
// the organisation that asked.
func (s *Server) deliverLater(done <-chan pipeline.Answer) {
	a := <-done
	if a.Body == nil || a.Peer == "" {
		return
	}
	ps := s.peer(a.Peer)
	if ps == nil {
		return
	}
	ctx, cancel := context.WithTimeout(s.bgCtx, s.cfg.Listen.RequestTimeout.D())
	defer cancel()
	for i := 0; i < 3; i++ {
		resp, err := ps.post(ctx, a.Body, "")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode < 500 {
				return
			}
		}
		select {
		case <-time.After(time.Duration(200<<i) * time.Millisecond):
		case <-ctx.Done():
			return
		}
	}
	s.log.Warn("could not deliver a late reply", "peer", a.Peer)
}

// serveBatch is POST /moltspeak/v0.1/batch: a JSON array of envelopes,
// answered with an array of per-item results {"status":…,"reply":envelope}.
func (s *Server) serveBatch(w http.ResponseWriter, r *http.Request) {
	body, ok := s.readBody(w, r, pipeline.FaceBatch, s.cfg.Limits.BatchBytes)
	if !ok {
		return
	}
	v, err := wire.Parse(body, wire.MaxDepth+2)
	if err != nil || v.Kind() != wire.Array {
		if err == nil {
			err = wire.Errorf(wire.ErrSchema, "", "a batch is a JSON array of envelopes")
		}
		s.writeAnswer(w, s.pipe.Refuse(nil, nil, err))
		return
	}
	if v.Len() > 1000 {
		s.writeAnswer(w, s.pipe.Refuse(nil, nil, wire.Errorf(wire.ErrTooLarge, "", "a batch holds at most 1000 envelopes")))
		return
	}
	ctx, cancel := context.WithDeadline(r.Context(), s.deadline(r))
	defer cancel()
	o := pipeline.Origin{Face: pipeline.FaceBatch, Remote: r.RemoteAddr, Unread: &pipeline.UnreadRefusals{}}
	results := make([]pipeline.Answer, v.Len())
	var wg sync.WaitGroup
	sem := make(chan struct{}, 16)
	for i, item := range v.Elems() {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			results[i] = s.pipe.Handle(ctx, o, wire.AppendCanonical(nil, item.Value), nil)
		}()
	}
	wg.Wait()
	out := make([]byte, 0, 1024)
	out = append(out, '[')
	for i, a := range results {
		if i > 0 {
			out = append(out, ',')
		}
		if a.Status == 0 {
			a.Status = http.StatusOK
		}
		out = append(out, `{"status":`...)
		out = strconv.AppendInt(out, int64(a.Status), 10)
		if a.Body != nil {
			out = append(out, `,"reply":`...)
			out = append(out, a.Body...)
		}
		out = append(out, '}')
	}
	out = append(out, ']', '\n')
	w.Header().Set("Content-Type", "application/json")
	w.Write(out)
}

func (s *Server) serveHealth(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprintf(w, `{"status":"ok","org":%q,"version":%q}`+"\n", s.cfg.Org, Version)
}

// serveReady answers 200 when the gateway takes traffic: not shutting down,
// and its storage answers.
func (s *Server) serveReady(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
	defer cancel()
	// Whoever asks may be a load balancer, which a shutdown should give
	// time to see the 503 (see drainDelay).
	s.readyAsked.Store(s.now().UnixNano())
	w.Header().Set("Content-Type", "application/json")
	// The reason is one of two fixed words: the storage error itself may
	// name hosts or users, and this endpoint answers anyone.
	reason := ""
	if s.draining.Load() {
		reason = "shutting_down"
	} else if err := s.store.Ping(ctx); err != nil {
		s.log.Warn("readiness check: storage does not answer", "err", err)
		reason = "storage_unavailable"
	}
	if reason != "" {
		w.WriteHeader(http.StatusServiceUnavailable)
		fmt.Fprintf(w, `{"status":"not ready","reason":%q}`+"\n", reason)
		return
	}
	fmt.Fprintln(w, `{"status":"ready"}`)
}

// retryAfterSeconds rounds a delay up to whole seconds, as Retry-After
// carries.
func retryAfterSeconds(d time.Duration) int {
	return int(math.Ceil(max(d, time.Second).Seconds()))
}
