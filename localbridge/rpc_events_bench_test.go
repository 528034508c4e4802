package localbridge_test

import (
	"bufio"
	"bytes"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/moltgate/moltgate/events"
	"github.com/moltgate/moltgate/internal/benchcpu"
	"github.com/moltgate/moltgate/localbridge"
)

// BenchmarkRPCEvent is an event through the JSON-RPC face to a subscribed
// client over the Unix socket, from Emit to the client's having read the
// notification line, emitted in batches of 128 as events.BenchmarkSSE and
// events.BenchmarkWebSocket do, and read as a ratio against
// events.BenchmarkChanSend in the same run (docs/benchmarks.md, "Event
// stream").
func BenchmarkRPCEvent(b *testing.B) {
	dir, err := os.MkdirTemp("", "rpce")
	if err != nil {
		b.Fatal(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "rpc.sock")
	l, err := localbridge.ListenUnix(path)
	if err != nil {
		b.Fatal(err)
	}
	stream := events.New(events.Config{})
	face := localbridge.NewRPCServer(localbridge.RPCConfig{Events: stream, RequestsPerSecond: -1, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	go face.Serve(l)
	defer face.Close()
	c, err := net.Dial("unix", path)
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	if _, err := c.Write([]byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocol_version":"1.0.0","client_info":{"name":"bench","version":"0"}}}` + "\n" +
		`{"jsonrpc":"2.0","id":2,"method":"events.subscribe"}` + "\n")); err != nil {
		b.Fatal(err)
	}
	r := bufio.NewReader(c)
	for answers := 0; answers < 2; {
		line, err := r.ReadSlice('\n')
		if err != nil {
			b.Fatal(err)
		}
		if bytes.Contains(line, []byte(`"id":`)) && !bytes.Contains(line, []byte(`"method"`)) {
			answers++
		}
	}
	var got sync.WaitGroup
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			line, err := r.ReadSlice('\n')
			if err != nil {
				return // the connection closed
			}
			if bytes.HasPrefix(line, []byte(`{"jsonrpc":"2.0","method":"event"`)) {
				got.Done()
			}
		}
	}()
	payload := map[string]any{"id": "89359099-ced9-46f2-b0a9-41f8664234bc", "direction": "inbound", "from": "client@acme",
		"to": "greeter@globex", "tool": "greet", "status": "success", "duration_ms": 3}
	b.ReportAllocs()
	stop := benchcpu.Start(b)
	b.ResetTimer()
	for i := 0; i < b.N; {
		k := min(128, b.N-i)
		got.Add(k)
		for range k {
			stream.Emit(events.CallCompleted, payload)
		}
		got.Wait()
		i += k
	}
	b.StopTimer()
	stop()
	c.Close()
	<-done
}
