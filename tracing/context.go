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
// a span carries its trace_id and span_id, and one that holds a request id
// (WithRequestID) its request_id.
func LogHandler(h slog.Handler) slog.Handler { return logHandler{h} }

type logHandler struct{ slog.Handler }

func (l logHandler) Handle(ctx context.Context, r slog.Record) error {
	sc := trace.SpanContextFromContext(ctx)
	id := RequestID(ctx)
	if sc.IsValid() || id != "" {
		r = r.Clone()
	}
	if id != "" {
		r.AddAttrs(slog.String("request_id", id))
	}
	if sc.IsValid() {
		r.AddAttrs(slog.String("trace_id", sc.TraceID().String()), slog.String("span_id", sc.SpanID().String()))
	}
	return l.Handler.Handle(ctx, r)
}

type requestIDKey struct{}

// WithRequestID gives ctx the id of the request it serves (the HTTPS
// face's X-Request-Id), which LogHandler adds to every line logged with it.
func WithRequestID(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, requestIDKey{}, id)
}

// RequestID is the request id WithRequestID gave ctx, or "".
func RequestID(ctx context.Context) string {
	id, _ := ctx.Value(requestIDKey{}).(string)
	return id
}

func (l logHandler) WithAttrs(as []slog.Attr) slog.Handler {
	return logHandler{l.Handler.WithAttrs(as)}
}
func (l logHandler) WithGroup(g string) slog.Handler { return logHandler{l.Handler.WithGroup(g)} }
