package gateway

import (
	"context"
	"crypto/tls"
	"io"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/moltgate/moltgate/gateway/face/frames"
	"github.com/moltgate/moltgate/gateway/face/grpcface"
	"github.com/moltgate/moltgate/gateway/face/httpface"
	"github.com/moltgate/moltgate/gateway/face/wsface"
	"github.com/moltgate/moltgate/gateway/feed"
	"github.com/moltgate/moltgate/gateway/peers"
	"github.com/moltgate/moltgate/gateway/pipeline"
	"github.com/moltgate/moltgate/gateway/registry"
	"github.com/moltgate/moltgate/gateway/revoke"
	"github.com/moltgate/moltgate/gateway/rotation"
	"github.com/moltgate/moltgate/wire"
)

// faces is the faces' wiring: each face package defines what it needs of
// the gateway as interfaces and hooks, given here from the configuration
// read when the face is built, at Serve (tests change it between Open and
// Serve). It holds what the faces' connections share.
type faces struct {
	cfg    *Config
	pipe   *pipeline.Pipeline
	frames *frames.Conns
	// registry is the registry service, as it is when asked (tests
	// replace it).
	registry func() *registry.Service
	revoked  *revoke.Lists
	rotation *rotation.Room
	feed     *feed.Feed
	peers    *peers.Table
	metrics  *metrics
	// gauges sets the gauges of what the gateway holds, read at a
	// scrape.
	gauges func()
	// ready is the HTTP face's /readyz: "" when the gateway takes
	// traffic, otherwise why not.
	ready func(context.Context) string
	// writeTimeout is Server.writeTimeout, read when a face is built.
	writeTimeout func() time.Duration
	// base is the context of the late replies, cancelled at shutdown.
	base context.Context
	log  *slog.Logger
	now  func() time.Time
	rand io.Reader

	wsWriteBufs sync.Pool // write buffers of the WebSocket face's connections
	corkBufs    sync.Pool // batches being written to the WebSocket face's connections
	wsQueues    sync.Pool // messages queued for WebSocket connections
}

// http builds the HTTPS face, with the WebSocket face mounted on it.
func (f *faces) http(tlsCfg *tls.Config, ws *wsface.Face) *httpface.Face {
	l := f.cfg.Listen
	return httpface.New(httpface.Config{
		Pipeline: f.pipe, Registry: registryFace{f.registry}, Ready: f.ready, Late: f.deliverLate,
		Routes: map[string]http.Handler{wsface.Pattern: ws,
			"GET " + revoke.Route: f.revoked, "GET " + rotation.Route: f.rotation,
			"GET /events":    f.feed.Handler(false, l.MetricsNetworks(), f.writeRefusal),
			"GET /events/ws": f.feed.Handler(true, l.MetricsNetworks(), f.writeRefusal)},
		Metrics: f.metricsHandler(), MetricsFrom: l.MetricsNetworks(),
		Org: f.cfg.Org, Version: Version, TLS: tlsCfg,
		MaxConnections: l.MaxConnections, ReadHeaderTimeout: l.ReadHeaderTimeout.D(), RequestTimeout: l.RequestTimeout.D(),
		IdleTimeout: l.IdleTimeout.D(), DrainTime: l.DrainTime.D(), ReplyWait: f.cfg.Peers.ReplyWait.D(), BatchBytes: f.cfg.Limits.BatchBytes,
		MaxStreams: maxStreamsPerConn, Messages: f.metrics.messages, Errors: f.metrics.httpErrs,
		Log: f.log, Now: f.now, Rand: f.rand,
	})
}

// ws builds the WebSocket face.
func (f *faces) ws() *wsface.Face {
	return wsface.New(wsface.Config{Pipeline: f.pipe, Frames: f.frames, Log: f.log, WriteTimeout: f.writeTimeout(),
		WriteBufs: &f.wsWriteBufs, CorkBufs: &f.corkBufs, Queues: &f.wsQueues})
}

// grpc builds the gRPC face.
func (f *faces) grpc(tlsCfg *tls.Config) *grpcface.Face {
	l := f.cfg.Listen
	return grpcface.New(grpcface.Config{Pipeline: f.pipe, Frames: f.frames, Log: f.log, TLS: tlsCfg,
		MaxConnections: l.MaxConnections, MaxStreams: min(f.cfg.Limits.MaxInFlight, maxStreamsPerConn),
		IdleTimeout: l.IdleTimeout.D(), ConnectionTimeout: l.ReadHeaderTimeout.D(), WriteTimeout: f.writeTimeout()})
}

// metricsHandler serves /metrics. The gauges of what the gateway holds
// (sessions, calls in flight) are read at the scrape: set as things happen,
// they missed the sessions of its own WebSocket and gRPC connections and
// the ends of calls and connections.
func (f *faces) metricsHandler() http.Handler {
	h := promhttp.HandlerFor(f.metrics.reg, promhttp.HandlerOpts{})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.gauges()
		h.ServeHTTP(w, r)
	})
}

// deliverLate sends a reply that was not ready in time to the gateway of
// the organisation that asked.
func (f *faces) deliverLate(a pipeline.Answer) {
	ps := f.peers.Get(a.Peer)
	if ps == nil {
		return
	}
	ctx, cancel := context.WithTimeout(f.base, f.cfg.Listen.RequestTimeout.D())
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
	f.log.Warn("could not deliver a late reply", "peer", a.Peer)
}

// writeRefusal answers an HTTP request with a signed refusal of err under
// status.
func (f *faces) writeRefusal(w http.ResponseWriter, status int, err *wire.Error) {
	a := f.pipe.Refuse(nil, nil, err)
	a.Status = status
	httpface.WriteAnswer(w, a)
}

// registryFace answers the HTTPS face's anonymous registry routes from the
// registry, as anonymous callers see it.
type registryFace struct{ r func() *registry.Service }

func (r registryFace) Allow(remote string) error { return r.r().AllowAnonymous(remote) }

func (r registryFace) Discover(ctx context.Context, p *wire.DiscoverPayload) (wire.Value, error) {
	return r.r().DiscoverAnonymous(ctx, p)
}

func (r registryFace) Agent(ctx context.Context, id string) (wire.Value, error) {
	return r.r().LookupAnonymous(ctx, id)
}

func (r registryFace) Capabilities(ctx context.Context, prefix string, verified bool) (wire.Value, error) {
	return r.r().CapabilitiesAnonymous(ctx, prefix, verified)
}

func (r registryFace) Ping(ctx context.Context, id, nonce string) (wire.Value, error) {
	return r.r().PingAnonymous(ctx, id, nonce)
}
