package gateway

import (
	"context"
	"crypto/tls"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/moltgate/moltgate/gateway/face/grpcface"
	"github.com/moltgate/moltgate/gateway/face/httpface"
	"github.com/moltgate/moltgate/gateway/face/wsface"
	"github.com/moltgate/moltgate/gateway/pipeline"
	"github.com/moltgate/moltgate/gateway/revoke"
	"github.com/moltgate/moltgate/gateway/rotation"
	"github.com/moltgate/moltgate/wire"
)

// The faces' wiring: each face package defines what it needs of the
// gateway as interfaces and hooks, given here from the configuration read
// at Serve (tests change it between Open and Serve).

// httpFace builds the HTTPS face, with the WebSocket face mounted on it.
func (s *Server) httpFace(tlsCfg *tls.Config, ws *wsface.Face) *httpface.Face {
	l := s.cfg.Listen
	return httpface.New(httpface.Config{
		Pipeline: s.pipe, Registry: registryFace{s}, Ready: s.ready, Late: s.deliverLate,
		Routes: map[string]http.Handler{wsface.Pattern: ws,
			"GET " + revoke.Route: s.revoked, "GET " + rotation.Route: s.rotation,
			"GET /events":    s.feed.Handler(false, l.MetricsNetworks(), s.writeRefusal),
			"GET /events/ws": s.feed.Handler(true, l.MetricsNetworks(), s.writeRefusal)},
		Metrics: s.metricsHandler(), MetricsFrom: l.MetricsNetworks(),
		Org: s.cfg.Org, Version: Version, TLS: tlsCfg,
		MaxConnections: l.MaxConnections, ReadHeaderTimeout: l.ReadHeaderTimeout.D(), RequestTimeout: l.RequestTimeout.D(),
		IdleTimeout: l.IdleTimeout.D(), ReplyWait: s.cfg.Peers.ReplyWait.D(), BatchBytes: s.cfg.Limits.BatchBytes,
		MaxStreams: maxStreamsPerConn, Messages: s.metrics.messages, Errors: s.metrics.httpErrs,
		Log: s.log, Now: s.now, Rand: s.rand,
	})
}

// wsFace builds the WebSocket face.
func (s *Server) wsFace() *wsface.Face {
	return wsface.New(wsface.Config{Pipeline: s.pipe, Frames: s.frames, Log: s.log, WriteTimeout: s.writeTimeout,
		WriteBufs: &s.wsWriteBufs, CorkBufs: &s.corkBufs, Queues: &s.wsQueues})
}

// grpcFace builds the gRPC face.
func (s *Server) grpcFace(tlsCfg *tls.Config) *grpcface.Face {
	l := s.cfg.Listen
	return grpcface.New(grpcface.Config{Pipeline: s.pipe, Frames: s.frames, Log: s.log, TLS: tlsCfg,
		MaxConnections: l.MaxConnections, MaxStreams: min(s.cfg.Limits.MaxInFlight, maxStreamsPerConn),
		IdleTimeout: l.IdleTimeout.D(), ConnectionTimeout: l.ReadHeaderTimeout.D(), WriteTimeout: s.writeTimeout})
}

// metricsHandler serves /metrics. The gauges of what the gateway holds
// (sessions, calls in flight) are read at the scrape: set as things happen,
// they missed the sessions of its own WebSocket and gRPC connections and
// the ends of calls and connections.
func (s *Server) metricsHandler() http.Handler {
	h := promhttp.HandlerFor(s.metrics.reg, promhttp.HandlerOpts{})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.metrics.sessions.Set(float64(s.sessions.Len()))
		s.metrics.inflight.Set(float64(s.flight.Count()))
		h.ServeHTTP(w, r)
	})
}

// ready is "" when the gateway takes traffic: not shutting down, and its
// storage answers; otherwise the fixed word that says why not.
func (s *Server) ready(ctx context.Context) string {
	// Whoever asks may be a load balancer, which a shutdown should give
	// time to see the 503 (see drainDelay).
	s.readyAsked.Store(s.now().UnixNano())
	if s.draining.Load() {
		return "shutting_down"
	}
	if err := s.store.Ping(ctx); err != nil {
		s.log.Warn("readiness check: storage does not answer", "err", err)
		return "storage_unavailable"
	}
	if reason := storageFailing(s.outages); reason != "" {
		return reason
	}
	return ""
}

// deliverLate sends a reply that was not ready in time to the gateway of
// the organisation that asked.
func (s *Server) deliverLate(a pipeline.Answer) {
	ps := s.peers.Get(a.Peer)
	if ps == nil {
		return
	}
	ctx, cancel := context.WithTimeout(s.bgCtx, s.cfg.Listen.RequestTimeout.D())
	defer cancel()
	for i := 0; i < 3; i++ {
		resp, err := ps.Post(ctx, a.Body)
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

// registryFace answers the HTTPS face's anonymous registry routes from the
// registry, as anonymous callers see it.
type registryFace struct{ s *Server }

func (r registryFace) Allow(remote string) error { return r.s.registry.AllowAnonymous(remote) }

func (r registryFace) Discover(ctx context.Context, p *wire.DiscoverPayload) (wire.Value, error) {
	return r.s.registry.DiscoverAnonymous(ctx, p)
}

func (r registryFace) Agent(ctx context.Context, id string) (wire.Value, error) {
	return r.s.registry.LookupAnonymous(ctx, id)
}

func (r registryFace) Capabilities(ctx context.Context, prefix string, verified bool) (wire.Value, error) {
	return r.s.registry.CapabilitiesAnonymous(ctx, prefix, verified)
}

func (r registryFace) Ping(ctx context.Context, id, nonce string) (wire.Value, error) {
	return r.s.registry.PingAnonymous(ctx, id, nonce)
}

// writeRefusal answers an HTTP request with a signed refusal of err under
// status.
func (s *Server) writeRefusal(w http.ResponseWriter, status int, err *wire.Error) {
	a := s.pipe.Refuse(nil, nil, err)
	a.Status = status
	httpface.WriteAnswer(w, a)
}
