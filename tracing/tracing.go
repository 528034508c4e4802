// Package tracing sets up OpenTelemetry tracing for a gateway, and carries
// W3C trace context from one organisation to the next inside MoltSpeak
// messages.
//
// A gateway exports spans through one of four exporters: none (the
// default: spans are neither recorded nor sent), OTLP over HTTP, OTLP over
// gRPC, or a file of JSON lines, one span a line. Spans name steps and
// parties, never content: attributes are ids, codes and names.
//
// Trace context crosses organisations in the signed message itself, in the
// namespaced extension member
//
//	"ext": {"moltgate.trace": {"traceparent": "00-…-…-01", "tracestate": "…"}}
//
// so that the caller, both gateways and the agent share one trace id. A
// receiving gateway by default continues the trace of a trusted peer (its
// spans are children of the peer's); with PeerTraces set to "link" it
// starts a trace of its own and links it to the peer's, so that a peer
// cannot choose this organisation's trace ids or sampling.
package tracing

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"strings"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"
)

// Exporters.
const (
	ExporterNone     = "none"
	ExporterOTLPHTTP = "otlp-http"
	ExporterOTLPGRPC = "otlp-grpc"
	ExporterFile     = "file"
)

// Peer trace policies.
const (
	// PeerContinue makes a trusted peer's trace the parent of this
	// gateway's spans.
	PeerContinue = "continue"
	// PeerLink starts a trace of this gateway's own, linked to the peer's.
	PeerLink = "link"
)

// Config configures tracing, as [tracing] in moltgate.toml does.
type Config struct {
	// Exporter is none, otlp-http, otlp-grpc or file. Default none.
	Exporter string `toml:"exporter"`
	// Endpoint is the OTLP collector: a URL (http://host:4318 or
	// https://…; http means no TLS) or host:port (TLS). Required for the
	// OTLP exporters.
	Endpoint string `toml:"endpoint"`
	// Path is the file the file exporter appends JSON lines to, created
	// with mode 0600. Required for file.
	Path string `toml:"path"`
	// SampleRatio is the share of new traces recorded, from 0 to 1. A
	// continued trace keeps its parent's decision. Default 1.
	SampleRatio *float64 `toml:"sample_ratio"`
	// PeerTraces is continue or link. Default continue.
	PeerTraces string `toml:"peer_traces"`
}

// Check validates c, naming the member at fault and the way out.
func (c Config) Check() error {
	switch c.Exporter {
	case "", ExporterNone:
	case ExporterOTLPHTTP, ExporterOTLPGRPC:
		if c.Endpoint == "" {
			return fmt.Errorf("tracing.endpoint: required for exporter %q: give the collector's address, such as http://127.0.0.1:4318", c.Exporter)
		}
		if strings.Contains(c.Endpoint, "://") {
			u, err := url.Parse(c.Endpoint)
			if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
				return fmt.Errorf("tracing.endpoint: %q is not an http or https URL, nor host:port", c.Endpoint)
			}
		}
	case ExporterFile:
		if c.Path == "" {
			return errors.New("tracing.path: required for exporter \"file\": give the file to write spans to")
		}
	default:
		return fmt.Errorf("tracing.exporter: %q is not one of none, otlp-http, otlp-grpc, file", c.Exporter)
	}
	if c.SampleRatio != nil && (*c.SampleRatio < 0 || *c.SampleRatio > 1) {
		return fmt.Errorf("tracing.sample_ratio: %v is not between 0 and 1", *c.SampleRatio)
	}
	switch c.PeerTraces {
	case "", PeerContinue, PeerLink:
	default:
		return fmt.Errorf("tracing.peer_traces: %q is not continue or link", c.PeerTraces)
	}
	return nil
}

// Tracing is a gateway's tracer and what it exports to.
type Tracing struct {
	provider trace.TracerProvider
	tracer   trace.Tracer
	shutdown func(context.Context) error
	link     bool
	prop     propagation.TraceContext
}

// New starts tracing as c says. service and org name this gateway in the
// spans' resource (service.name, service.namespace).
func New(ctx context.Context, c Config, service, org string) (*Tracing, error) {
	if err := c.Check(); err != nil {
		return nil, err
	}
	t := &Tracing{link: c.PeerTraces == PeerLink, shutdown: func(context.Context) error { return nil }}
	if c.Exporter == "" || c.Exporter == ExporterNone {
		t.provider = noop.NewTracerProvider()
		t.tracer = t.provider.Tracer("github.com/moltgate/moltgate")
		return t, nil
	}
	proc, closeFile, err := processor(ctx, c)
	if err != nil {
		return nil, err
	}
	ratio := 1.0
	if c.SampleRatio != nil {
		ratio = *c.SampleRatio
	}
	res := resource.NewSchemaless(attribute.String("service.name", service), attribute.String("service.namespace", org))
	tp := sdktrace.NewTracerProvider(
		sdktrace.WithSpanProcessor(proc),
		sdktrace.WithResource(res),
		sdktrace.WithSampler(sdktrace.ParentBased(sdktrace.TraceIDRatioBased(ratio))),
	)
	t.provider = tp
	t.tracer = tp.Tracer("github.com/moltgate/moltgate")
	t.shutdown = func(ctx context.Context) error {
		err := tp.Shutdown(ctx)
		if closeFile != nil {
			err = errors.Join(err, closeFile())
		}
		return err
	}
	return t, nil
}

// processor is the span processor of c's exporter: the SDK's batch
// processor in front of an OTLP exporter, or the span file's own
// (fileSpans).
func processor(ctx context.Context, c Config) (sdktrace.SpanProcessor, func() error, error) {
	switch c.Exporter {
	case ExporterOTLPHTTP:
		var opts []otlptracehttp.Option
		if strings.Contains(c.Endpoint, "://") {
			opts = append(opts, otlptracehttp.WithEndpointURL(strings.TrimSuffix(c.Endpoint, "/")+"/v1/traces"))
		} else {
			opts = append(opts, otlptracehttp.WithEndpoint(c.Endpoint))
		}
		exp, err := otlptracehttp.New(ctx, opts...)
		if err != nil {
			return nil, nil, fmt.Errorf("tracing: otlp-http exporter: %w", err)
		}
		return sdktrace.NewBatchSpanProcessor(exp), nil, nil
	case ExporterOTLPGRPC:
		var opts []otlptracegrpc.Option
		if strings.Contains(c.Endpoint, "://") {
			opts = append(opts, otlptracegrpc.WithEndpointURL(c.Endpoint))
		} else {
			opts = append(opts, otlptracegrpc.WithEndpoint(c.Endpoint))
		}
		exp, err := otlptracegrpc.New(ctx, opts...)
		if err != nil {
			return nil, nil, fmt.Errorf("tracing: otlp-grpc exporter: %w", err)
		}
		return sdktrace.NewBatchSpanProcessor(exp), nil, nil
	default: // file
		f, err := os.OpenFile(c.Path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
		if err != nil {
			return nil, nil, fmt.Errorf("tracing.path: %w", err)
		}
		return newFileSpans(f), f.Close, nil
	}
}

// Tracer returns the gateway's tracer.
func (t *Tracing) Tracer() trace.Tracer { return t.tracer }

// Provider returns the tracer provider, for libraries that take one.
func (t *Tracing) Provider() trace.TracerProvider { return t.provider }

// Shutdown exports what is buffered and stops the exporter.
func (t *Tracing) Shutdown(ctx context.Context) error { return t.shutdown(ctx) }
