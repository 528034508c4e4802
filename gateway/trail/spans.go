package trail

import (
	"context"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/moltgate/moltgate/gateway/pipeline"
	"github.com/moltgate/moltgate/tracing"
	"github.com/moltgate/moltgate/wire"
)

// SpansConfig is what Spans need.
type SpansConfig struct {
	// Tracing records the spans. Default nil: none are recorded, but a
	// local caller's trace context still goes on to the peer.
	Tracing *tracing.Tracing
	// Done counts a call to a peer by its organisation, operation and
	// outcome ("ok" or the error's code), and how long it took. Default:
	// nothing.
	Done func(org, op, outcome string, took time.Duration)
	// Now is the clock. Default time.Now.
	Now func() time.Time
}

// Spans are the spans and counts of the gateway's calls: to peers'
// gateways, and to local agents over the OpenSentience bridge.
type Spans struct{ cfg SpansConfig }

// NewSpans makes the spans of cfg.Tracing.
func NewSpans(cfg SpansConfig) *Spans {
	if cfg.Done == nil {
		cfg.Done = func(string, string, string, time.Duration) {}
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return &Spans{cfg: cfg}
}

// SetTracing replaces the tracer; for tests, before the gateway serves.
func (s *Spans) SetTracing(t *tracing.Tracing) { s.cfg.Tracing = t }

// PeerCall opens the span of a call to a peer, before its message is
// checked (the trace context is signed with the rest), and returns what
// counts the call and closes the span with its outcome.
func (s *Spans) PeerCall(ctx context.Context, m *wire.Message) (context.Context, func(error)) {
	ctx, span := s.startPeerCall(ctx, m)
	start := s.cfg.Now()
	return ctx, func(err error) {
		outcome := "ok"
		if err != nil {
			outcome = string(pipeline.AsWire(err).Code)
		}
		s.cfg.Done(m.To.Org, string(m.Op), outcome, s.cfg.Now().Sub(start))
		endSpan(span, err)
	}
}

// startPeerCall starts the span of a call to a peer's gateway and puts its
// trace context in m's ext, before m is signed: the peer continues the
// trace (or links to it) and its agent sees the same trace id. With
// tracing off it returns ctx and a span that records nothing.
func (s *Spans) startPeerCall(ctx context.Context, m *wire.Message) (context.Context, trace.Span) {
	if s.cfg.Tracing == nil {
		// Spans are not recorded, but a local caller's trace context
		// still goes on, for the peer and its agent to join.
		if trace.SpanContextFromContext(ctx).IsValid() {
			m.Ext = pipeline.WithTrace(ctx, m.Ext)
		}
		return ctx, trace.SpanFromContext(context.Background())
	}
	ctx, span := s.cfg.Tracing.Tracer().Start(ctx, "moltspeak "+string(m.Op), trace.WithSpanKind(trace.SpanKindClient),
		trace.WithAttributes(attribute.String("rpc.system", "moltspeak"), attribute.String("rpc.method", string(m.Op)),
			attribute.String("server.address", m.To.Org), attribute.String("moltgate.peer.org", m.To.Org),
			attribute.String("moltgate.message.id", m.ID), attribute.String("moltgate.sender", m.From.Ref().String()),
			attribute.String("moltgate.cls", m.Cls.String())))
	m.Ext = pipeline.WithTrace(ctx, m.Ext)
	return ctx, span
}

// BridgeCall starts the span of a call to a local agent over the
// OpenSentience bridge, and returns the context to make it in, the trace
// context for the call's causation_id, and what ends the span with the
// call's outcome.
func (s *Spans) BridgeCall(ctx context.Context, agent, tool string) (context.Context, string, func(error)) {
	if s.cfg.Tracing == nil {
		span := trace.SpanFromContext(context.Background())
		return ctx, tracing.Inject(ctx).TraceParent, func(err error) { endSpan(span, err) }
	}
	ctx, span := s.cfg.Tracing.Tracer().Start(ctx, "opensentience tool.call", trace.WithSpanKind(trace.SpanKindClient),
		trace.WithAttributes(attribute.String("rpc.system", "opensentience"), attribute.String("rpc.method", "core.tool.call"),
			attribute.String("moltgate.agent", agent), attribute.String("moltgate.tool", tool)))
	return ctx, tracing.Inject(ctx).TraceParent, func(err error) { endSpan(span, err) }
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

// CallerTrace makes a local caller's W3C trace context, if valid, the
// parent of what ctx is used for.
func CallerTrace(ctx context.Context, parent, state string) context.Context {
	if parent == "" {
		return ctx
	}
	if sc := tracing.Remote(tracing.Carrier{TraceParent: parent, TraceState: state}); sc.IsValid() {
		return trace.ContextWithRemoteSpanContext(ctx, sc)
	}
	return ctx
}
