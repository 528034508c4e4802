package tracing

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"sync"
	"time"

	"go.opentelemetry.io/otel"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"

	"github.com/moltgate/moltgate/internal/jsonw"
)

// fileSpans writes spans to a file as JSON lines, one span a line, each an
// object of the span's own members alone:
//
//	{"name":"moltspeak tool","trace_id":"4bf9…","span_id":"00f0…","parent_span_id":"7a3c…",
//	 "kind":"server","start_unix_nano":1795738154989000000,"end_unix_nano":1795738154990100000,
//	 "attributes":{"rpc.method":"tool","moltgate.face":"websocket"},
//	 "status":{"code":"error","description":"E_RATE_LIMIT"},
//	 "resource":{"service.name":"moltgate","service.namespace":"acme"}}
//
// parent_span_id (with "parent_remote":true when the parent is another
// process's), trace_state, events, links, status and the dropped counts
// appear only when the span has them; an attribute's value is a JSON
// string, number, boolean or array. The SDK's stdout exporter, whose form
// (SpanStub) this file had first, wrote some 1,170 bytes a span where this
// writes some 420.
//
// It is a span processor, not an exporter behind the SDK's batch
// processor: each span is encoded as it ends, into a buffer that a
// goroutine of its own writes out once fileFlushBytes have gathered, or
// every fileFlushEvery. The batch processor's queue, its goroutine, and
// the ended spans it held until a batch filled (each a snapshot the
// collector had to trace) cost a traced gateway more than the encoding.
// A file that cannot keep up loses the spans beyond fileMaxBytes, counted,
// rather than holding the gateway's memory or its calls.
type fileSpans struct {
	mu      sync.Mutex // guards buf, closed, dropped and the resource's encoding
	buf     []byte
	closed  bool
	dropped int64
	// The resource is the same for every span of a gateway: encoded once.
	res     *resource.Resource
	resJSON []byte

	wmu   sync.Mutex // serialises the writes, so that lines keep their order
	w     io.Writer
	spare []byte // the buffer last written, reused; guarded by wmu
	err   error  // the last write's error; guarded by wmu

	wake, stop, done chan struct{}
	// flushBytes and maxBytes are fileFlushBytes and fileMaxBytes but in
	// tests.
	flushBytes, maxBytes int
}

// How the span file is written.
const (
	// fileFlushBytes has what waits written at once.
	fileFlushBytes = 256 << 10
	// fileFlushEvery is how long a span waits at most to be written.
	fileFlushEvery = time.Second
	// fileMaxBytes is what may wait to be written; spans beyond it are
	// dropped.
	fileMaxBytes = 16 << 20
)

// newFileSpans writes spans to w, from a goroutine that Shutdown ends.
func newFileSpans(w io.Writer) *fileSpans {
	f := &fileSpans{w: w, wake: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{}),
		flushBytes: fileFlushBytes, maxBytes: fileMaxBytes}
	go f.run()
	return f
}

func (f *fileSpans) run() {
	defer close(f.done)
	t := time.NewTicker(fileFlushEvery)
	defer t.Stop()
	for {
		select {
		case <-f.wake:
		case <-t.C:
		case <-f.stop:
			return
		}
		if err := f.flush(); err != nil {
			otel.Handle(err)
		}
	}
}

// OnStart implements sdktrace.SpanProcessor.
func (f *fileSpans) OnStart(context.Context, sdktrace.ReadWriteSpan) {}

// OnEnd implements sdktrace.SpanProcessor: the span is encoded at once.
func (f *fileSpans) OnEnd(s sdktrace.ReadOnlySpan) {
	if !s.SpanContext().IsSampled() {
		return
	}
	f.mu.Lock()
	if f.closed || len(f.buf) >= f.maxBytes {
		if !f.closed {
			f.dropped++
		}
		f.mu.Unlock()
		return
	}
	f.buf = append(f.appendSpan(f.buf, s), '\n')
	full := len(f.buf) >= f.flushBytes
	f.mu.Unlock()
	if full {
		select {
		case f.wake <- struct{}{}:
		default:
		}
	}
}

// flush writes what waits.
func (f *fileSpans) flush() error {
	f.wmu.Lock()
	defer f.wmu.Unlock()
	f.mu.Lock()
	b := f.buf
	f.buf = f.spare[:0]
	dropped := f.dropped
	f.dropped = 0
	f.mu.Unlock()
	f.spare = b[:0]
	if dropped > 0 {
		f.err = fmt.Errorf("tracing: %d spans dropped: the span file is not written as fast as spans end", dropped)
	}
	if len(b) > 0 {
		if _, err := f.w.Write(b); err != nil {
			f.err = fmt.Errorf("tracing: span file: %w", err)
		}
	}
	err := f.err
	f.err = nil
	return err
}

// ForceFlush implements sdktrace.SpanProcessor: what waits is written.
func (f *fileSpans) ForceFlush(context.Context) error { return f.flush() }

// Shutdown implements sdktrace.SpanProcessor: what waits is written, and
// spans that end later are not.
func (f *fileSpans) Shutdown(ctx context.Context) error {
	f.mu.Lock()
	was := f.closed
	f.closed = true
	f.mu.Unlock()
	if was {
		return nil
	}
	close(f.stop)
	select {
	case <-f.done:
	case <-ctx.Done():
		return ctx.Err()
	}
	return f.flush()
}

func (f *fileSpans) appendSpan(b []byte, s sdktrace.ReadOnlySpan) []byte {
	sc := s.SpanContext()
	b = append(b, `{"name":`...)
	b = jsonw.String(b, s.Name())
	b = appendIDs(append(b, ','), sc)
	if ts := sc.TraceState(); ts.Len() > 0 {
		b = append(b, `,"trace_state":`...)
		b = jsonw.String(b, ts.String())
	}
	if p := s.Parent(); p.HasSpanID() {
		sid := p.SpanID()
		b = append(b, `,"parent_span_id":"`...)
		b = hex.AppendEncode(b, sid[:])
		b = append(b, '"')
		if p.IsRemote() {
			b = append(b, `,"parent_remote":true`...)
		}
	}
	b = append(b, `,"kind":"`...)
	b = append(b, kindName(s.SpanKind())...)
	b = append(b, `","start_unix_nano":`...)
	b = strconv.AppendInt(b, s.StartTime().UnixNano(), 10)
	b = append(b, `,"end_unix_nano":`...)
	b = strconv.AppendInt(b, s.EndTime().UnixNano(), 10)
	if kvs := s.Attributes(); len(kvs) > 0 {
		b = appendAttrs(append(b, `,"attributes":`...), kvs)
	}
	if evs := s.Events(); len(evs) > 0 {
		b = append(b, `,"events":[`...)
		for i, ev := range evs {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"name":`...)
			b = jsonw.String(b, ev.Name)
			b = append(b, `,"time_unix_nano":`...)
			b = strconv.AppendInt(b, ev.Time.UnixNano(), 10)
			if len(ev.Attributes) > 0 {
				b = appendAttrs(append(b, `,"attributes":`...), ev.Attributes)
			}
			b = appendDropped(b, "dropped_attributes", ev.DroppedAttributeCount)
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	if ls := s.Links(); len(ls) > 0 {
		b = append(b, `,"links":[`...)
		for i, l := range ls {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendIDs(append(b, '{'), l.SpanContext)
			if len(l.Attributes) > 0 {
				b = appendAttrs(append(b, `,"attributes":`...), l.Attributes)
			}
			b = appendDropped(b, "dropped_attributes", l.DroppedAttributeCount)
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	if st := s.Status(); st.Code != codes.Unset {
		b = append(b, `,"status":{"code":"`...)
		if st.Code == codes.Error {
			b = append(b, "error"...)
		} else {
			b = append(b, "ok"...)
		}
		b = append(b, '"')
		if st.Description != "" {
			b = append(b, `,"description":`...)
			b = jsonw.String(b, st.Description)
		}
		b = append(b, '}')
	}
	b = appendDropped(b, "dropped_attributes", s.DroppedAttributes())
	b = appendDropped(b, "dropped_events", s.DroppedEvents())
	b = appendDropped(b, "dropped_links", s.DroppedLinks())
	if r := s.Resource(); r != f.res || f.resJSON == nil {
		f.res = r
		f.resJSON = append(f.resJSON[:0], `,"resource":`...)
		f.resJSON = appendAttrs(f.resJSON, r.Attributes())
	}
	b = append(b, f.resJSON...)
	return append(b, '}')
}

// appendIDs writes sc's ids as members: `"trace_id":"…","span_id":"…"`.
func appendIDs(b []byte, sc trace.SpanContext) []byte {
	tid, sid := sc.TraceID(), sc.SpanID()
	b = append(b, `"trace_id":"`...)
	b = hex.AppendEncode(b, tid[:])
	b = append(b, `","span_id":"`...)
	b = hex.AppendEncode(b, sid[:])
	return append(b, '"')
}

// kindName is a span kind as the file names it.
func kindName(k trace.SpanKind) string {
	switch k {
	case trace.SpanKindServer:
		return "server"
	case trace.SpanKindClient:
		return "client"
	case trace.SpanKindProducer:
		return "producer"
	case trace.SpanKindConsumer:
		return "consumer"
	}
	return "internal"
}

// appendDropped writes `,"name":n` if n is not 0.
func appendDropped(b []byte, name string, n int) []byte {
	if n == 0 {
		return b
	}
	b = append(b, `,"`...)
	b = append(b, name...)
	b = append(b, `":`...)
	return strconv.AppendInt(b, int64(n), 10)
}

// appendAttrs writes attributes as one object, {"key": value, …}: a
// string, number, boolean or array of them.
func appendAttrs(b []byte, kvs []attribute.KeyValue) []byte {
	b = append(b, '{')
	for i, kv := range kvs {
		if i > 0 {
			b = append(b, ',')
		}
		b = jsonw.String(b, string(kv.Key))
		b = append(b, ':')
		switch kv.Value.Type() {
		case attribute.STRING:
			b = jsonw.String(b, kv.Value.AsString())
		case attribute.INT64:
			b = strconv.AppendInt(b, kv.Value.AsInt64(), 10)
		case attribute.BOOL:
			b = strconv.AppendBool(b, kv.Value.AsBool())
		default:
			// Floats and slices, which no span of a gateway carries: as
			// encoding/json writes them.
			v, err := json.Marshal(kv.Value.AsInterface())
			if err != nil {
				v = []byte("null")
			}
			b = append(b, v...)
		}
	}
	return append(b, '}')
}
