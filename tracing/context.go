package tracing

import (
	"context"
	"log/slog"

	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
)

// ExtKey is the member of a message's ext that carries trace context.
const ExtKey = "moltgate.trace"

// Carrier is W3C trace context as it travels in ExtKey, and in the
// correlation fields of local calls.
type Carrier struct {
	TraceParent string `json:"traceparent"`
	TraceState  string `json:"tracestate,omitempty"`
}

// IsZero reports whether c carries no context.
func (c Carrier) IsZero() bool { return c.TraceParent == "" }

// Inject returns the trace context of the span in ctx, zero if there is
// none. With tracing off a caller's context still passes through: spans
// are not recorded, but the trace id they were given travels on.
func Inject(ctx context.Context) Carrier {
	m := propagation.MapCarrier{}
	propagation.TraceContext{}.Inject(ctx, m)
	return Carrier{TraceParent: m["traceparent"], TraceState: m["tracestate"]}
}

// Remote parses c, returning an invalid SpanContext if c is zero or
// malformed (a malformed traceparent is ignored, as W3C asks, never an
// error that refuses the message).
func Remote(c Carrier) trace.SpanContext {
	if c.IsZero() {
		return trace.SpanContext{}
	}
	m := propagation.MapCarrier{"traceparent": c.TraceParent}
	if c.TraceState != "" {
		m["tracestate"] = c.TraceState
	}
	return trace.SpanContextFromContext(propagation.TraceContext{}.Extract(context.Background(), m))
}

// StartRemote starts the span of a message that arrived with trace
// context c. From a trusted peer, and with PeerTraces continue (the
// default), the span continues the peer's trace; otherwise it starts a
// trace of its own, linked to the peer's when c is valid.
func (t *Tracing) StartRemote(ctx context.Context, name string, c Carrier, trusted bool, opts ...trace.SpanStartOption) (context.Context, trace.Span) {
	sc := Remote(c)
	switch {
	case !sc.IsValid():
	case trusted && !t.link:
		ctx = trace.ContextWithRemoteSpanContext(ctx, sc)
	default:
		opts = append(opts, trace.WithNewRoot(), trace.WithLinks(trace.Link{SpanContext: sc}))
	}
	return t.tracer.Start(ctx, name, opts...)
}

// LogHandler wraps h so that every record logged with a context that holds
// a span carries its trace_id and span_id.
func LogHandler(h slog.Handler) slog.Handler { return logHandler{h} }

type logHandler struct{ slog.Handler }

func (l logHandler) Handle(ctx context.Context, r slog.Record) error {
	if sc := trace.SpanContextFromContext(ctx); sc.IsValid() {
		r = r.Clone()
		r.AddAttrs(slog.String("trace_id", sc.TraceID().String()), slog.String("span_id", sc.SpanID().String()))
	}
	return l.Handler.Handle(ctx, r)
}

func (l logHandler) WithAttrs(as []slog.Attr) slog.Handler {
	return logHandler{l.Handler.WithAttrs(as)}
}
func (l logHandler) WithGroup(g string) slog.Handler { return logHandler{l.Handler.WithGroup(g)} }
