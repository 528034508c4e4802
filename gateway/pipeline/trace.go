package pipeline

import (
	"context"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/moltgate/moltgate/tracing"
	"github.com/moltgate/moltgate/wire"
)

// Span attributes. The rpc.* and error.type keys are OpenTelemetry's
// semantic conventions; the moltgate.* keys name what those do not cover.
// None carries content: only ids, names and codes.
const (
	attrRPCSystem = "rpc.system"
	attrRPCMethod = "rpc.method"
	attrErrorType = "error.type"
	attrClient    = "client.address"
	attrFace      = "moltgate.face"
	attrStep      = "moltgate.step"
	attrPeer      = "moltgate.peer.org"
	attrSender    = "moltgate.sender"
	attrMessageID = "moltgate.message.id"
	attrClass     = "moltgate.cls"
)

// stepMark is when one step ran, kept for the steps that run before the
// envelope's span can be started.
type stepMark struct {
	start, end time.Time
	code       wire.Code
}

// runTraced is run with a span for the envelope and one per step. The
// envelope's span continues the trace its sender put in ext (or links to
// it; see tracing.Tracing.StartRemote), which is known only once the
// message is open, and whether to trust it only once its sender is: the
// steps up to "sender" are timed and their spans made afterwards, with
// the times they ran.
func (p *Pipeline) runTraced(ctx context.Context, in *Inbound) Answer {
	defer in.release()
	var (
		early [16]stepMark
		marks = early[:0]
		span  trace.Span
		sctx  context.Context
		start = time.Now()
	)
	open := func() {
		var carrier tracing.Carrier
		trusted := false
		if in.M != nil {
			carrier = carrierOf(in.M)
			trusted = in.FromPeer
		}
		sctx, span = p.Tracing.StartRemote(ctx, "moltspeak "+string(opOf(in)), carrier, trusted,
			trace.WithSpanKind(trace.SpanKindServer), trace.WithTimestamp(start),
			trace.WithAttributes(attribute.String(attrRPCSystem, "moltspeak"), attribute.String(attrFace, in.Origin.Face),
				attribute.String(attrClient, hostOf(in.Origin.Remote))))
		for i, mk := range marks {
			_, s := p.Tracing.Tracer().Start(sctx, p.steps[i].Name, trace.WithTimestamp(mk.start), p.stepSpan[i])
			endStep(s, mk.code, mk.end)
		}
		in.traceCtx = sctx
	}
	var a Answer
	for i, st := range p.steps {
		if span == nil && i > p.senderStep {
			open()
		}
		if span == nil {
			t0 := time.Now()
			r, done := st.Run(p, ctx, in)
			marks = append(marks, stepMark{start: t0, end: time.Now(), code: r.Code})
			if done {
				a = r
				break
			}
			continue
		}
		stctx, s := p.Tracing.Tracer().Start(sctx, st.Name, p.stepSpan[i])
		r, done := st.Run(p, stctx, in)
		endStep(s, r.Code, time.Time{})
		if done {
			a = r
			break
		}
	}
	if span == nil {
		open()
	}
	if !span.IsRecording() {
		// Not sampled: nothing to name or describe.
		span.End()
		return a
	}
	attrs := []attribute.KeyValue{attribute.String(attrRPCMethod, string(opOf(in)))}
	if in.M != nil {
		attrs = append(attrs, attribute.String(attrMessageID, in.M.ID), attribute.String(attrPeer, in.M.From.Org),
			attribute.String(attrSender, in.M.From.Ref().String()), attribute.String(attrClass, in.M.Cls.String()))
	}
	span.SetName("moltspeak " + string(opOf(in)))
	span.SetAttributes(attrs...)
	if a.Code != "" {
		span.SetAttributes(attribute.String(attrErrorType, string(a.Code)))
		span.SetStatus(codes.Error, string(a.Code))
	}
	span.End()
	return a
}

// endStep ends a step's span, at end unless it is zero, marking the code
// it refused with.
func endStep(s trace.Span, c wire.Code, end time.Time) {
	if c != "" {
		s.SetAttributes(attribute.String(attrErrorType, string(c)))
		s.SetStatus(codes.Error, string(c))
	}
	if end.IsZero() {
		s.End()
		return
	}
	s.End(trace.WithTimestamp(end))
}

// opOf is the envelope's operation as far as it is known.
func opOf(in *Inbound) wire.Op {
	switch {
	case in.M != nil:
		return in.M.Op
	case in.env != nil && in.env.Message != nil:
		return in.env.Message.Op
	}
	return "envelope"
}

// carrierOf reads the trace context a message carries in ext. A member of
// the wrong shape is no context, never a refusal: W3C asks that a
// malformed traceparent be ignored.
func carrierOf(m *wire.Message) tracing.Carrier {
	v := m.Ext.Get(tracing.ExtKey)
	tp, _ := v.Get("traceparent").Str()
	ts, _ := v.Get("tracestate").Str()
	return tracing.Carrier{TraceParent: tp, TraceState: ts}
}

// WithTrace returns ext with the trace context of ctx's span in
// tracing.ExtKey, or ext unchanged when ctx holds none.
func WithTrace(ctx context.Context, ext wire.Value) wire.Value {
	c := tracing.Inject(ctx)
	if c.IsZero() {
		return ext
	}
	members := []wire.Member{{Key: "traceparent", Value: wire.StringValue(c.TraceParent)}}
	if c.TraceState != "" {
		members = append(members, wire.Member{Key: "tracestate", Value: wire.StringValue(c.TraceState)})
	}
	if ext.IsAbsent() {
		ext = wire.ObjectValue()
	}
	return ext.With(tracing.ExtKey, wire.ObjectValue(members...))
}

// TraceContext is the context of in's span, for what the route does with
// it: ctx itself when tracing is off.
func (in *Inbound) TraceContext(ctx context.Context) context.Context {
	if in.traceCtx != nil {
		return in.traceCtx
	}
	return ctx
}
