package localbridge_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/moltgate/moltgate/internal/benchcpu"
	"github.com/moltgate/moltgate/localbridge"
)

// answerQuerier answers every query at once with its own input, as the
// gateway does with a peer's reply: the JSON-RPC face is all that is left.
type answerQuerier struct{}

func (answerQuerier) Query(ctx context.Context, req localbridge.QueryRequest, emit func(localbridge.StreamEvent) error) (json.RawMessage, error) {
	return req.Input, nil
}

// BenchmarkRPCQuery is one agent.query through the JSON-RPC face, client
// and server in this process: the request line, its query_id response and
// the stream.complete carrying a 1 KiB result, each encoded and decoded
// once on each side. The face's request rate is unbounded: the benchmark
// measures the face, not its limit.
func BenchmarkRPCQuery(b *testing.B) {
	dir, err := os.MkdirTemp("", "rpcb")
	if err != nil {
		b.Fatal(err)
	}
	defer os.RemoveAll(dir)
	l, err := localbridge.ListenUnix(filepath.Join(dir, "rpc.sock"))
	if err != nil {
		b.Fatal(err)
	}
	face := localbridge.NewRPCServer(localbridge.RPCConfig{Query: answerQuerier{}, RequestsPerSecond: -1, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	go face.Serve(l)
	defer face.Close()
	ctx := context.Background()
	c, err := localbridge.Dial(ctx, filepath.Join(dir, "rpc.sock"), localbridge.ClientOptions{Name: "bench"})
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	in, _ := json.Marshal(map[string]string{"text": strings.Repeat("a quick brown fox ", 57)})
	req := localbridge.QueryRequest{From: "client", To: "echo@globex", Tool: "echo", Input: in}
	b.ReportAllocs()
	defer benchcpu.Start(b)()
	for b.Loop() {
		out, err := c.Query(ctx, req, nil)
		if err != nil || len(out) != len(in) {
			b.Fatalf("%v: %d bytes back", err, len(out))
		}
	}
}
