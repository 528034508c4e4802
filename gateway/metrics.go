package gateway

import (
	"github.com/moltgate/moltgate/gateway/peers"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
)

// metrics are the gateway's Prometheus metrics, on a registry of its own
// (never the process-wide default), served at /metrics. Blocks by the data
// protection gate are exported from its counters (blockCollector).
type metrics struct {
	reg *prometheus.Registry

	messages  *prometheus.CounterVec   // op, face, outcome
	latency   *prometheus.HistogramVec // face, op
	sessions  prometheus.Gauge
	inflight  prometheus.Gauge
	breaker   *prometheus.GaugeVec // peer, state
	rateLimit *prometheus.CounterVec
	renewals  *prometheus.CounterVec // peer, way
	httpErrs  *prometheus.CounterVec // kind
	// Calls this gateway made to peers: outbound by peer, op and
	// outcome, outboundLatency by peer and op.
	outbound        *prometheus.CounterVec
	outboundLatency *prometheus.HistogramVec
}

func newMetrics() *metrics {
	m := &metrics{reg: prometheus.NewRegistry()}
	m.messages = prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: "moltgate", Name: "messages_total",
		Help: "Messages handled, by operation, face and outcome (ok or the error code).",
	}, []string{"op", "face", "outcome"})
	m.latency = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Namespace: "moltgate", Name: "request_duration_seconds",
		Help:    "Time from a request's arrival to its answer, by face and operation.",
		Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30},
	}, []string{"face", "op"})
	m.sessions = prometheus.NewGauge(prometheus.GaugeOpts{
		Namespace: "moltgate", Name: "sessions", Help: "Handshake sessions held.",
	})
	m.inflight = prometheus.NewGauge(prometheus.GaugeOpts{
		Namespace: "moltgate", Name: "in_flight", Help: "Calls being handled.",
	})
	m.breaker = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Namespace: "moltgate", Name: "peer_circuit_state",
		Help: "Circuit breaker state of each peer gateway: 1 for the current state.",
	}, []string{"peer", "state"})
	m.rateLimit = prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: "moltgate", Name: "rate_limited_total",
		Help: "Requests refused by a rate or concurrency limit, by scope.",
	}, []string{"scope"})
	m.renewals = prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: "moltgate", Name: "peer_session_renewals_total",
		Help: "Stream sessions with peers replaced before they ran out: in the background while calls went on (background), " +
			"with calls waiting for the new one (waited), or attempts in the background that failed (failed).",
	}, []string{"peer", "way"})
	m.httpErrs = prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: "moltgate", Name: "https_connection_errors_total",
		Help: "Errors the HTTPS face reports outside any answer, by kind: tls_handshake (a client failed its TLS handshake), accept, panic (a handler panicked) or other.",
	}, []string{"kind"})
	m.outbound = prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: "moltgate", Name: "outbound_calls_total",
		Help: "Calls to peer gateways, by peer, operation and outcome (ok or the error code, the peer's or this gateway's own).",
	}, []string{"peer", "op", "outcome"})
	m.outboundLatency = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Namespace: "moltgate", Name: "outbound_call_duration_seconds",
		Help:    "Time from a call to a peer's start to its answer, by peer and operation.",
		Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30},
	}, []string{"peer", "op"})
	m.reg.MustRegister(m.messages, m.latency, m.sessions, m.inflight, m.breaker, m.rateLimit, m.renewals, m.httpErrs,
		m.outbound, m.outboundLatency,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

func (m *metrics) setBreaker(peer string, s peers.BreakerState) {
	for _, st := range []peers.BreakerState{peers.BreakerClosed, peers.BreakerOpen, peers.BreakerHalfOpen} {
		v := 0.0
		if st == s {
			v = 1
		}
		m.breaker.WithLabelValues(peer, st.String()).Set(v)
	}
}

// peers are the hooks the calls to peers report through.
func (m *metrics) peers() peers.Metrics {
	return peers.Metrics{
		Breaker:  m.setBreaker,
		Renewed:  func(org, way string) { m.renewals.WithLabelValues(org, way).Inc() },
		Sessions: func(n int) { m.sessions.Set(float64(n)) },
	}
}
