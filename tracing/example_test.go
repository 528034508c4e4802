package tracing_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/moltgate/moltgate/tracing"
)

func Example() {
	dir, _ := os.MkdirTemp("", "spans")
	defer os.RemoveAll(dir)
	ctx := context.Background()
	acme, _ := tracing.New(ctx, tracing.Config{Exporter: tracing.ExporterFile, Path: filepath.Join(dir, "acme.jsonl")}, "moltgate", "acme")
	globex, _ := tracing.New(ctx, tracing.Config{Exporter: tracing.ExporterFile, Path: filepath.Join(dir, "globex.jsonl")}, "moltgate", "globex")
	defer acme.Shutdown(ctx)
	defer globex.Shutdown(ctx)

	// acme's gateway calls globex: the trace context goes in the message's
	// ext, under tracing.ExtKey.
	cctx, call := acme.Tracer().Start(ctx, "peer.call")
	carrier := tracing.Inject(cctx)

	// globex's gateway continues the trusted peer's trace.
	_, msg := globex.StartRemote(ctx, "face.message", carrier, true)
	fmt.Println(msg.SpanContext().TraceID() == call.SpanContext().TraceID())
	msg.End()
	call.End()
	// Output: true
}
