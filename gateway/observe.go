package gateway

import (
	"context"
	"path/filepath"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/moltgate/moltgate/gateway/pipeline"
	"github.com/moltgate/moltgate/tracing"
	"github.com/moltgate/moltgate/wire"
)

// openTracing starts the exporter [tracing] names; nil for none, so that a
// gateway that traces nothing spends nothing on it. A relative path is
// taken from the gateway directory, as every other path of the gateway is.
func openTracing(d Dir, cfg *Config) (*tracing.Tracing, error) {
	c := cfg.Tracing
	if c.Exporter == "" || c.Exporter == tracing.ExporterNone {
		return nil, nil
	}
	if c.Exporter == tracing.ExporterFile && !filepath.IsAbs(c.Path) {
		c.Path = d.path(c.Path)
	}
	return tracing.New(context.Background(), c, "moltgate", cfg.Org)
}

// startPeerCall starts the span of a call to a peer's gateway and puts its
// trace context in m's ext, before m is signed: the peer continues the
// trace (or links to it) and its agent sees the same trace id. With
// tracing off it returns ctx and a span that records nothing.
func (s *Server) startPeerCall(ctx context.Context, m *wire.Message) (context.Context, trace.Span) {
	if s.tracing == nil {
		// Spans are not recorded, but a local caller's trace context
		// still goes on, for the peer and its agent to join.
		if trace.SpanContextFromContext(ctx).IsValid() {
			m.Ext = pipeline.WithTrace(ctx, m.Ext)
		}
		return ctx, trace.SpanFromContext(context.Background())
	}
	ctx, span := s.tracing.Tracer().Start(ctx, "moltspeak "+string(m.Op), trace.WithSpanKind(trace.SpanKindClient),
		trace.WithAttributes(attribute.String("rpc.system", "moltspeak"), attribute.String("rpc.method", string(m.Op)),
			attribute.String("server.address", m.To.Org), attribute.String("moltgate.peer.org", m.To.Org),
			attribute.String("moltgate.message.id", m.ID), attribute.String("moltgate.sender", m.From.Ref().String()),
			attribute.String("moltgate.cls", m.Cls.String())))
	m.Ext = pipeline.WithTrace(ctx, m.Ext)
	return ctx, span
}

// startBridgeCall starts the span of a call to a local agent over the
// OpenSentience bridge, and returns the trace context for the call's
// causation_id.
func (s *Server) startBridgeCall(ctx context.Context, agent, tool string) (context.Context, trace.Span, string) {
	if s.tracing == nil {
		return ctx, trace.SpanFromContext(context.Background()), tracing.Inject(ctx).TraceParent
	}
	ctx, span := s.tracing.Tracer().Start(ctx, "opensentience tool.call", trace.WithSpanKind(trace.SpanKindClient),
		trace.WithAttributes(attribute.String("rpc.system", "opensentience"), attribute.String("rpc.method", "core.tool.call"),
			attribute.String("moltgate.agent", agent), attribute.String("moltgate.tool", tool)))
	return ctx, span, tracing.Inject(ctx).TraceParent
}

// endSpan ends a span with err's code, if any.
func endSpan(span trace.Span, err error) {
	if err != nil {
		c := string(pipeline.AsWire(err).Code)
		span.SetAttributes(attribute.String("error.type", c))
		span.SetStatus(codes.Error, c)
	}
	span.End()
}

// outboundDone counts a call to a peer and ends its span.
func (s *Server) outboundDone(_ context.Context, span trace.Span, m *wire.Message, took time.Duration, err error) {
	outcome := "ok"
	if err != nil {
		outcome = string(pipeline.AsWire(err).Code)
	}
	s.metrics.outbound.WithLabelValues(m.To.Org, string(m.Op), outcome).Inc()
	s.metrics.outboundLatency.WithLabelValues(m.To.Org, string(m.Op)).Observe(took.Seconds())
	endSpan(span, err)
}

// withCallerTrace makes a local caller's W3C trace context, if valid, the
// parent of what ctx is used for.
func withCallerTrace(ctx context.Context, parent, state string) context.Context {
	if parent == "" {
		return ctx
	}
	if sc := tracing.Remote(tracing.Carrier{TraceParent: parent, TraceState: state}); sc.IsValid() {
		return trace.ContextWithRemoteSpanContext(ctx, sc)
	}
	return ctx
}
